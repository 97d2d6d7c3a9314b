package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/jsonpatch"
)

// entry is one message of the conversation. Streamed text is appended to
// text, not to the message's string: a Go string cannot grow in place, so
// appending there would copy the whole content on every delta. The message
// is brought up to date (flush) only when someone looks.
type entry struct {
	msg   agui.Message
	text  []byte // the content while it streams; authoritative when live
	live  bool
	dirty bool // text holds deltas the message does not have yet
}

// call locates a tool call inside its assistant message, with the same
// buffering of streamed arguments.
type call struct {
	e     *entry
	i     int // index in the message's ToolCalls
	args  []byte
	live  bool
	dirty bool
}

// Conversation is a thread as a consumer sees it: the messages, the state,
// the pending interrupts and the outcome of the last run, rebuilt from the
// events delivered to application code. It is not safe for concurrent use.
type Conversation struct {
	entries []*entry
	byID    map[string]*entry // the first entry with each id, as the reference's find
	calls   map[string]*call  // the first assistant message holding each tool call
	state   json.RawMessage

	thread     string
	started    []string            // tool calls started in the current run, in order
	answered   map[string]struct{} // tool calls of the current run that got a result
	interrupts []agui.Interrupt    // pending: the last RUN_FINISHED's interrupts
	intThread  string              // the thread those interrupts belong to
	outcome    Outcome
	before     map[string]struct{} // message ids at the last NextInput
}

// New returns a conversation holding messages (copied; activity messages
// included) and state (copied; nil means {}, the protocol's default). The
// state is taken as given: it should be one JSON document, and a delta
// applied to anything else fails with a StatePatchFailed warning.
func New(messages []agui.Message, state json.RawMessage) *Conversation {
	c := &Conversation{
		byID:     make(map[string]*entry, len(messages)),
		calls:    make(map[string]*call),
		answered: make(map[string]struct{}),
		state:    json.RawMessage(`{}`),
	}
	if state != nil {
		c.state = bytes.Clone(state)
	}
	for _, m := range messages {
		if m != nil {
			c.push(&entry{msg: cloneMessage(m)})
		}
	}
	c.before = c.ids()
	return c
}

// Apply folds one delivered event into the conversation and returns what it
// could not do, as warnings of this package's kinds (nil when everything
// applied). Their Index and Offset are -1: Apply is given an event, not its
// frame. Events must have
// been through chunk expansion (package chunks) and should have been
// verified (package verify): the reducer tolerates what the reference
// tolerates, and a chunk event is ignored with an UnexpandedChunk warning.
func (c *Conversation) Apply(ev agui.Event) []agui.Warning {
	c.init()
	var ws []agui.Warning
	switch ev := ev.(type) {
	case *agui.TextMessageStart:
		e := c.byID[ev.MessageID]
		if e != nil && roleOf(e.msg) == agui.RoleActivity {
			return activityConflict(ev.Type(), ev.MessageID, "text")
		}
		if e == nil {
			e = c.push(&entry{msg: newTextMessage(ev)})
		}
		ws = c.mergeInto(ws, metadataOf(e.msg), ev.Metadata)
	case *agui.TextMessageContent:
		ws = c.appendText(ws, ev.Type(), ev.MessageID, ev.Delta, ev.Metadata, "text")
	case *agui.TextMessageEnd:
		ws = c.endText(ws, ev.Type(), ev.MessageID, ev.Metadata, "text")
	case *agui.ReasoningMessageStart:
		e := c.byID[ev.MessageID]
		if e != nil && roleOf(e.msg) == agui.RoleActivity {
			return activityConflict(ev.Type(), ev.MessageID, "reasoning")
		}
		if e == nil {
			e = c.push(&entry{msg: &agui.ReasoningMessage{ID: ev.MessageID, Attribution: agui.Attribution{SubagentRunID: cp(ev.SubagentRunID)}}})
		}
		ws = c.mergeInto(ws, metadataOf(e.msg), ev.Metadata)
	case *agui.ReasoningMessageContent:
		ws = c.appendText(ws, ev.Type(), ev.MessageID, ev.Delta, ev.Metadata, "reasoning")
	case *agui.ReasoningMessageEnd:
		ws = c.endText(ws, ev.Type(), ev.MessageID, ev.Metadata, "reasoning")
	case *agui.ToolCallStart:
		ws = c.startToolCall(ws, ev)
	case *agui.ToolCallArgs:
		k := c.calls[ev.ToolCallID]
		if k == nil {
			return missingToolCall(ev.Type(), ev.ToolCallID)
		}
		if !k.live {
			k.args = append(k.args[:0], c.toolCall(k).Function.Arguments...)
			k.live = true
		}
		k.args = append(k.args, ev.Delta...)
		k.dirty = true
		if ev.Metadata != nil {
			ws = c.mergeInto(ws, &c.toolCall(k).Metadata, ev.Metadata)
		}
	case *agui.ToolCallEnd:
		k := c.calls[ev.ToolCallID]
		if k == nil {
			return missingToolCall(ev.Type(), ev.ToolCallID)
		}
		ws = c.mergeInto(ws, &c.toolCall(k).Metadata, ev.Metadata)
	case *agui.ToolCallResult:
		ws = c.toolResult(ws, ev)
	case *agui.StateSnapshot:
		c.state = bytes.Clone(ev.Snapshot)
		if c.state == nil {
			c.state = json.RawMessage("null")
		}
	case *agui.StateDelta:
		next, err := jsonpatch.Apply(c.state, ev.Delta)
		if err != nil {
			return []agui.Warning{warning(StatePatchFailed, "Failed to apply state patch:\nCurrent state: "+
				indent(c.state)+"\nPatch operations: "+patchJSON(ev.Delta)+"\nError: "+err.Error())}
		}
		c.state = next
	case *agui.MessagesSnapshot:
		c.messagesSnapshot(ev)
	case *agui.ActivitySnapshot:
		ws = c.activitySnapshot(ws, ev)
	case *agui.ActivityDelta:
		ws = c.activityDelta(ws, ev)
	case *agui.ReasoningEncryptedValue:
		if ev.Subtype == agui.ReasoningEncryptedValueSubtypeToolCall {
			if k := c.calls[ev.EntityID]; k != nil {
				c.toolCall(k).EncryptedValue = cp(&ev.EncryptedValue)
			}
		} else if e := c.byID[ev.EntityID]; e != nil {
			setEncryptedValue(e.msg, ev.EncryptedValue)
		}
	case *agui.RunStarted:
		c.runStarted(ev)
	case *agui.RunFinished:
		c.runFinished(ev)
	case *agui.RunError:
		c.outcome.Status = Failed
		c.outcome.Result, c.outcome.PendingToolCallIDs, c.outcome.Interrupts = nil, nil, nil
		runErr := *ev
		runErr.Code, runErr.Usage = cp(ev.Code), slices.Clone(ev.Usage)
		c.outcome.Error = &runErr
		c.outcome.Usage = runErr.Usage
	case *agui.TextMessageChunk, *agui.ToolCallChunk, *agui.ReasoningMessageChunk:
		return []agui.Warning{warning(UnexpandedChunk, string(ev.Type())+" must be transformed before being applied")}
	case *agui.Raw, *agui.Custom, *agui.StepStarted, *agui.StepFinished, *agui.ReasoningStart, *agui.ReasoningEnd,
		*agui.SubagentStarted, *agui.SubagentFinished, *agui.SubagentError:
		// No effect on messages or state. Subagent attribution lives on the
		// messages, from the subagentRunId of the events that create them.
	}
	return ws
}

// init makes the zero Conversation usable: empty, with state {}.
func (c *Conversation) init() {
	if c.byID != nil {
		return
	}
	c.byID = make(map[string]*entry)
	c.calls = make(map[string]*call)
	c.answered = make(map[string]struct{})
	if c.state == nil {
		c.state = json.RawMessage(`{}`)
	}
	if c.before == nil {
		c.before = c.ids()
	}
}

// push appends an entry and indexes it.
func (c *Conversation) push(e *entry) *entry {
	c.entries = append(c.entries, e)
	c.index(e)
	return e
}

func (c *Conversation) index(e *entry) {
	id := messageID(e.msg)
	if _, ok := c.byID[id]; !ok {
		c.byID[id] = e
	}
	if am, ok := e.msg.(*agui.AssistantMessage); ok {
		for i, tc := range am.ToolCalls {
			if _, ok := c.calls[tc.ID]; !ok {
				c.calls[tc.ID] = &call{e: e, i: i}
			}
		}
	}
}

// reindex rebuilds the indexes after messages were replaced or removed.
// Streamed tool-call arguments are flushed first, since their buffers live
// in the index.
func (c *Conversation) reindex() {
	c.flushCalls()
	clear(c.byID)
	clear(c.calls)
	for _, e := range c.entries {
		c.index(e)
	}
}

func (c *Conversation) toolCall(k *call) *agui.ToolCall {
	return &k.e.msg.(*agui.AssistantMessage).ToolCalls[k.i]
}

func (c *Conversation) appendText(ws []agui.Warning, t agui.EventType, id, delta string, md json.RawMessage, kind string) []agui.Warning {
	e := c.byID[id]
	if e == nil {
		return append(ws, warning(MissingMessage, fmt.Sprintf("%s: No message found with ID '%s'", t, id)))
	}
	if roleOf(e.msg) == agui.RoleActivity {
		return activityConflict(t, id, kind)
	}
	if !e.live {
		e.text = append(e.text[:0], text(e.msg)...)
		e.live = true
	}
	e.text = append(e.text, delta...)
	e.dirty = true
	if md != nil {
		ws = c.mergeInto(ws, metadataOf(e.msg), md)
	}
	return ws
}

func (c *Conversation) endText(ws []agui.Warning, t agui.EventType, id string, md json.RawMessage, kind string) []agui.Warning {
	e := c.byID[id]
	if e == nil {
		return append(ws, warning(MissingMessage, fmt.Sprintf("%s: No message found with ID '%s'", t, id)))
	}
	if roleOf(e.msg) == agui.RoleActivity {
		return activityConflict(t, id, kind)
	}
	return c.mergeInto(ws, metadataOf(e.msg), md)
}

func activityConflict(t agui.EventType, id, kind string) []agui.Warning {
	return []agui.Warning{warning(ActivityConflict, fmt.Sprintf("%s: Message '%s' is an activity message — message ids must be unique across activity and %s messages", t, id, kind))}
}

func missingToolCall(t agui.EventType, id string) []agui.Warning {
	return []agui.Warning{warning(MissingToolCall, fmt.Sprintf("%s: No message found containing tool call with ID '%s'", t, id))}
}

// mergeInto merges event metadata md into *dst (E.3).
func (c *Conversation) mergeInto(ws []agui.Warning, dst *json.RawMessage, md json.RawMessage) []agui.Warning {
	if md == nil || dst == nil {
		return ws
	}
	merged, err := mergeMetadata(*dst, md)
	if err != nil {
		return append(ws, warning(BadMetadata, "metadata not merged: "+err.Error()))
	}
	*dst = merged
	return ws
}

func (c *Conversation) startToolCall(ws []agui.Warning, ev *agui.ToolCallStart) []agui.Warning {
	if !slices.Contains(c.started, ev.ToolCallID) {
		c.started = append(c.started, ev.ToolCallID)
	}
	if k := c.calls[ev.ToolCallID]; k != nil {
		c.flushCall(k)
		tc := c.toolCall(k)
		if tc.Function.Name != ev.ToolCallName {
			ws = append(ws, warning(ToolCallRenamed, fmt.Sprintf("TOOL_CALL_START: tool call '%s' already exists with name '%s' — updating it to '%s'", ev.ToolCallID, tc.Function.Name, ev.ToolCallName)))
			tc.Function.Name = ev.ToolCallName
		}
		return c.mergeInto(ws, &tc.Metadata, ev.Metadata)
	}
	var parent *entry
	if pm := ev.ParentMessageID; pm != nil {
		if e := c.byID[*pm]; e != nil {
			if roleOf(e.msg) == agui.RoleAssistant {
				parent = e
			} else {
				ws = append(ws, warning(ParentNotAssistant, fmt.Sprintf("TOOL_CALL_START: parentMessageId '%s' matches a '%s' message, not assistant — falling back to toolCallId", *pm, roleOf(e.msg))))
				parent = c.newAssistant(ev.ToolCallID, ev.SubagentRunID)
			}
		} else {
			parent = c.newAssistant(*pm, ev.SubagentRunID)
		}
	} else {
		parent = c.newAssistant(ev.ToolCallID, ev.SubagentRunID)
	}
	am := parent.msg.(*agui.AssistantMessage)
	am.ToolCalls = append(am.ToolCalls, agui.ToolCall{ID: ev.ToolCallID, Function: agui.FunctionCall{Name: ev.ToolCallName}})
	k := &call{e: parent, i: len(am.ToolCalls) - 1}
	c.calls[ev.ToolCallID] = k
	return c.mergeInto(ws, &am.ToolCalls[k.i].Metadata, ev.Metadata)
}

// newAssistant adds the assistant message a tool call starts, with id. It
// is attributed to the subagent that started the call only when no message
// held the id before: a message under a clashing id is not the subagent's
// to claim (the reference's rule).
func (c *Conversation) newAssistant(id string, subagent *string) *entry {
	am := &agui.AssistantMessage{ID: id}
	if _, taken := c.byID[id]; !taken {
		am.SubagentRunID = cp(subagent)
	}
	return c.push(&entry{msg: am})
}

// toolResult mints the tool message and places it right after the assistant
// message that owns the call, after the tool messages already there; with
// no owner, at the end.
func (c *Conversation) toolResult(ws []agui.Warning, ev *agui.ToolCallResult) []agui.Warning {
	c.answered[ev.ToolCallID] = struct{}{}
	tm := &agui.ToolMessage{ID: ev.MessageID, ToolCallID: ev.ToolCallID, Content: cloneContent(ev.Content), Attribution: agui.Attribution{SubagentRunID: cp(ev.SubagentRunID)}}
	ws = c.mergeInto(ws, &tm.Metadata, ev.Metadata)
	e := &entry{msg: tm}
	k := c.calls[ev.ToolCallID]
	if k == nil {
		c.push(e)
		return ws
	}
	at := slices.Index(c.entries, k.e) + 1
	for at < len(c.entries) && roleOf(c.entries[at].msg) == agui.RoleTool {
		at++
	}
	c.entries = slices.Insert(c.entries, at, e)
	c.index(e)
	return ws
}

func (c *Conversation) runStarted(ev *agui.RunStarted) {
	c.started = c.started[:0]
	clear(c.answered)
	c.thread = ev.ThreadID
	c.outcome = Outcome{Status: Running, ThreadID: ev.ThreadID, RunID: ev.RunID}
	if ev.Input == nil {
		return
	}
	for _, m := range ev.Input.Messages {
		if m == nil {
			continue
		}
		if _, ok := c.byID[messageID(m)]; !ok {
			c.push(&entry{msg: cloneMessage(m)})
		}
	}
}

func (c *Conversation) runFinished(ev *agui.RunFinished) {
	o := Outcome{Status: Succeeded, ThreadID: ev.ThreadID, RunID: ev.RunID, Usage: slices.Clone(ev.Usage)}
	c.interrupts = nil
	switch out := ev.Outcome.(type) {
	case *agui.RunFinishedInterruptOutcome:
		o.Status = Interrupted
		o.Interrupts = cloneInterrupts(out.Interrupts)
		c.interrupts = cloneInterrupts(out.Interrupts)
		c.intThread = ev.ThreadID
	case *agui.RunFinishedCancelledOutcome:
		o.Status = Cancelled
	case *agui.RunFinishedSuccessOutcome:
		o.Result = bytes.Clone(ev.Result)
		o.PendingToolCallIDs = slices.Clone(out.PendingToolCallIDs)
	case nil:
		o.Result = bytes.Clone(ev.Result)
	}
	if o.Status == Succeeded && len(o.PendingToolCallIDs) == 0 {
		o.PendingToolCallIDs = nil
		for _, id := range c.started {
			if _, ok := c.answered[id]; !ok {
				o.PendingToolCallIDs = append(o.PendingToolCallIDs, id)
			}
		}
	}
	c.outcome = o
}

func indent(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

func patchJSON(p agui.JSONPatch) string {
	b, err := agui.NewStateDelta(p).AppendJSON(nil)
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	var ev struct{ Delta json.RawMessage }
	if json.Unmarshal(b, &ev) != nil {
		return string(b)
	}
	return indent(ev.Delta)
}

// cloneInterrupts copies interrupts, pointed-to strings and raw JSON
// included: the event they came from may be reused by its producer.
func cloneInterrupts(in []agui.Interrupt) []agui.Interrupt {
	if in == nil {
		return nil
	}
	out := make([]agui.Interrupt, len(in))
	for i, x := range in {
		x.Message, x.ToolCallID, x.ExpiresAt, x.SubagentRunID = cp(x.Message), cp(x.ToolCallID), cp(x.ExpiresAt), cp(x.SubagentRunID)
		x.ResponseSchema, x.Metadata = bytes.Clone(x.ResponseSchema), bytes.Clone(x.Metadata)
		out[i] = x
	}
	return out
}
