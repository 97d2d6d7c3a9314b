package verify

import "github.com/agui-go/sdk/agui"

// The generated tables (tables_gen.go) say, for every event, what it does to
// which entity, under which id and attribution. The few facts below are
// relations between entities that the schema's lifecycle annotations do not
// carry yet; they are read here, by event type, and only on the events that
// have them. Every function returns "nothing" for an event it does not know,
// so a new event with a plain lifecycle role needs no change in this file.

// parentOf names the entity an opener nests in: a tool call's parent
// message (TOOL_CALL_START.parentMessageId), a subagent's parent subagent
// (SUBAGENT_STARTED.parentSubagentRunId).
func parentOf(ev agui.Event) (entity, string, bool) {
	switch e := ev.(type) { //agui:nonexhaustive a relation only some events have
	case *agui.ToolCallStart:
		if e.ParentMessageID != nil {
			return entityMessage, *e.ParentMessageID, true
		}
	case *agui.SubagentStarted:
		if e.ParentSubagentRunID != nil {
			return entitySubagent, *e.ParentSubagentRunID, true
		}
	}
	return entityNone, "", false
}

// mintOf names the entity an event creates besides the one it acts on:
// TOOL_CALL_RESULT answers a tool call and mints the tool message
// TOOL_CALL_RESULT.messageId, owned by the result's own attribution.
func mintOf(ev agui.Event) (entity, string, bool) {
	if e, ok := ev.(*agui.ToolCallResult); ok {
		return entityMessage, e.MessageID, true
	}
	return entityNone, "", false
}

// keepsOwner reports whether an upsert leaves a known entity's owner alone:
// ACTIVITY_SNAPSHOT with replace:false does not re-mint the activity.
func keepsOwner(ev agui.Event) bool {
	e, ok := ev.(*agui.ActivitySnapshot)
	return ok && e.Replace != nil && !*e.Replace
}

// annotated lists, in lookup order, the entity kinds an annotation may name:
// REASONING_ENCRYPTED_VALUE's subtype "tool-call" names a tool call,
// "message" a text message or else a reasoning message.
func annotated(ev agui.Event) (kinds [2]entity, label entity) {
	e, ok := ev.(*agui.ReasoningEncryptedValue)
	if !ok {
		return
	}
	switch e.Subtype {
	case agui.ReasoningEncryptedValueSubtypeToolCall:
		return [2]entity{entityToolCall}, entityToolCall
	case agui.ReasoningEncryptedValueSubtypeMessage:
		return [2]entity{entityMessage, entityReasoningMessage}, entityMessage
	}
	return [2]entity{entityReasoningMessage}, entityReasoningMessage
}

// historyOf returns the messages an event replays: MESSAGES_SNAPSHOT
// restates the conversation (authoritative: its owners replace recorded
// ones), RUN_STARTED.input echoes the run's history (recorded only for ids
// not yet known).
func historyOf(ev agui.Event) (msgs []agui.Message, authoritative bool) {
	switch e := ev.(type) { //agui:nonexhaustive a relation only some events have
	case *agui.MessagesSnapshot:
		return e.Messages, true
	case *agui.RunStarted:
		if e.Input != nil {
			return e.Input.Messages, false
		}
	}
	return nil, false
}

// messageFacts reads what seeding needs from one message: its id, its
// owner, the entity kind its continuations stream through, and the tool
// calls it carries.
func messageFacts(m agui.Message) (id string, tag *string, kind entity, calls []agui.ToolCall) {
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		return m.ID, m.SubagentRunID, entityMessage, nil
	case *agui.SystemMessage:
		return m.ID, m.SubagentRunID, entityMessage, nil
	case *agui.AssistantMessage:
		return m.ID, m.SubagentRunID, entityMessage, m.ToolCalls
	case *agui.UserMessage:
		return m.ID, m.SubagentRunID, entityMessage, nil
	case *agui.ToolMessage:
		return m.ID, m.SubagentRunID, entityMessage, nil
	case *agui.ActivityMessage:
		return m.ID, m.SubagentRunID, entityActivity, nil
	case *agui.ReasoningMessage:
		return m.ID, m.SubagentRunID, entityReasoningMessage, nil
	}
	return "", nil, entityNone, nil
}
