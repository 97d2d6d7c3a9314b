package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/jsonpatch"
)

// authority is which activity types a MESSAGES_SNAPSHOT owns, read from
// metadata["@ag-ui/client"].authoritativeActivityTypes.
type authority struct {
	set   bool // the key is there
	all   bool // null: every activity type
	types []string
}

func authorityOf(md json.RawMessage) authority {
	client, ok := memberOf(md, "@ag-ui/client")
	if !ok {
		return authority{}
	}
	if _, err := members(client); err != nil {
		return authority{set: true} // not an object: owns no type
	}
	v, ok := memberOf(client, "authoritativeActivityTypes")
	if !ok {
		return authority{}
	}
	if string(v) == "null" {
		return authority{set: true, all: true}
	}
	var types []string
	if json.Unmarshal(v, &types) != nil {
		return authority{set: true}
	}
	return authority{set: true, types: types}
}

// messagesSnapshot reconciles the messages with a MESSAGES_SNAPSHOT by id:
// a local message stays if the snapshot has its id (replaced in place by
// the snapshot's version) or if it is client-only material the snapshot does
// not speak for (activity messages of types it does not own, reasoning
// messages when it carries none); the snapshot's other messages follow, in
// its order.
func (c *Conversation) messagesSnapshot(ev *agui.MessagesSnapshot) {
	c.flush()
	snap := make(map[string]agui.Message, len(ev.Messages))
	hasActivity, hasReasoning := false, false
	for _, m := range ev.Messages {
		if m == nil {
			continue
		}
		snap[messageID(m)] = m // a repeated id: the last one wins, as in a Map
		hasActivity = hasActivity || roleOf(m) == agui.RoleActivity
		hasReasoning = hasReasoning || roleOf(m) == agui.RoleReasoning
	}
	auth := authorityOf(ev.Metadata)
	preserved := func(m agui.Message) bool {
		switch m := m.(type) {
		case *agui.ActivityMessage:
			switch {
			case auth.all:
				return false
			case auth.set:
				return !slices.Contains(auth.types, m.ActivityType)
			}
			return !hasActivity
		case *agui.ReasoningMessage:
			return !hasReasoning
		case *agui.DeveloperMessage, *agui.SystemMessage, *agui.AssistantMessage, *agui.UserMessage, *agui.ToolMessage:
			// The conversation's own messages: the snapshot speaks for them.
		}
		return false
	}
	kept := c.entries[:0]
	held := make(map[string]struct{}, len(c.entries))
	for _, e := range c.entries {
		id := messageID(e.msg)
		if m, ok := snap[id]; ok {
			kept = append(kept, &entry{msg: cloneMessage(m)})
		} else if preserved(e.msg) {
			kept = append(kept, e)
		} else {
			continue
		}
		held[id] = struct{}{}
	}
	clear(c.entries[len(kept):])
	c.entries = kept
	for _, m := range ev.Messages {
		if m == nil {
			continue
		}
		if _, ok := held[messageID(m)]; !ok {
			c.entries = append(c.entries, &entry{msg: cloneMessage(m)})
		}
	}
	c.reindex()
}

func (c *Conversation) activitySnapshot(ws []agui.Warning, ev *agui.ActivitySnapshot) []agui.Warning {
	replace := ev.Replace == nil || *ev.Replace
	fresh := func() *agui.ActivityMessage {
		return &agui.ActivityMessage{ID: ev.MessageID, ActivityType: ev.ActivityType, Content: bytes.Clone(ev.Content), Attribution: agui.Attribution{SubagentRunID: cp(ev.SubagentRunID)}}
	}
	var target agui.Message
	switch e := c.byID[ev.MessageID]; {
	case e == nil:
		target = c.push(&entry{msg: fresh()}).msg
	case roleOf(e.msg) == agui.RoleActivity:
		am := e.msg.(*agui.ActivityMessage)
		if replace { // the accumulated metadata stays
			am.ActivityType, am.Content, am.SubagentRunID = ev.ActivityType, bytes.Clone(ev.Content), cp(ev.SubagentRunID)
		}
		target = am
	case replace:
		c.flushCalls()
		e.msg, e.live, e.dirty = fresh(), false, false
		c.reindex()
		target = e.msg
	}
	if target == nil {
		return ws
	}
	return c.mergeInto(ws, metadataOf(target), ev.Metadata)
}

func (c *Conversation) activityDelta(ws []agui.Warning, ev *agui.ActivityDelta) []agui.Warning {
	e := c.byID[ev.MessageID]
	if e == nil {
		return ws // the reference skips it silently
	}
	am, ok := e.msg.(*agui.ActivityMessage)
	if !ok {
		return append(ws, warning(NotActivity, fmt.Sprintf("ACTIVITY_DELTA: Message '%s' is not an activity message", ev.MessageID)))
	}
	ws = c.mergeInto(ws, &am.Metadata, ev.Metadata)
	content := am.Content
	if content == nil {
		content = json.RawMessage(`{}`)
	}
	next, err := jsonpatch.Apply(content, ev.Patch)
	if err != nil {
		return append(ws, warning(ActivityPatchFailed, fmt.Sprintf("Failed to apply activity patch for '%s': %v", ev.MessageID, err)))
	}
	am.Content, am.ActivityType = next, ev.ActivityType
	return ws
}
