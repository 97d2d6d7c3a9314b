package conversation

import "github.com/agui-go/sdk/agui"

// The kinds of the reducer's warnings: an event that was delivered (it
// passed verification) but could not be folded in whole. Apply reports each
// as an [agui.Warning] whose Message is the reference client's text for the
// same case, so that expectations written against the reference (the
// conformance corpus) hold here too.
const (
	// MissingMessage: a text or reasoning content or end event names a
	// message the conversation does not hold.
	MissingMessage agui.WarningKind = "missing-message"
	// MissingToolCall: TOOL_CALL_ARGS or TOOL_CALL_END names a tool call no
	// message holds.
	MissingToolCall agui.WarningKind = "missing-tool-call"
	// ActivityConflict: a text or reasoning event names an activity
	// message; ids must be unique across kinds, so the event is ignored.
	ActivityConflict agui.WarningKind = "activity-conflict"
	// ToolCallRenamed: TOOL_CALL_START restarted a known tool call under
	// another name; the name is updated.
	ToolCallRenamed agui.WarningKind = "tool-call-renamed"
	// ParentNotAssistant: TOOL_CALL_START's parentMessageId names a message
	// that is not an assistant message; the call gets its own assistant
	// message, whose id is the tool call's id.
	ParentNotAssistant agui.WarningKind = "parent-not-assistant"
	// StatePatchFailed: a STATE_DELTA could not be applied; the state is
	// unchanged.
	StatePatchFailed agui.WarningKind = "state-patch-failed"
	// ActivityPatchFailed: an ACTIVITY_DELTA could not be applied; the
	// activity's content is unchanged (its metadata is merged).
	ActivityPatchFailed agui.WarningKind = "activity-patch-failed"
	// NotActivity: ACTIVITY_DELTA names a message that is not an activity.
	NotActivity agui.WarningKind = "not-activity"
	// UnexpandedChunk: a *_CHUNK event reached the reducer; chunks must be
	// expanded first (package chunks), and this one was ignored.
	UnexpandedChunk agui.WarningKind = "unexpanded-chunk"
	// BadMetadata: an event's metadata is not a JSON object and was not
	// merged.
	BadMetadata agui.WarningKind = "bad-metadata"
)

// warning is a reducer warning. Apply is given an event, not its place in a
// stream, so Index and Offset are -1; the client, which knows the frame,
// fills Index in.
func warning(kind agui.WarningKind, msg string) agui.Warning {
	return agui.Warning{Kind: kind, Index: -1, Offset: -1, Message: msg}
}
