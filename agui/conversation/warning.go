package conversation

import "strconv"

// WarningKind classifies a warning of the reducer: an event that was
// delivered (it passed verification) but could not be folded in whole.
type WarningKind uint8

const (
	// MissingMessage: a text or reasoning content or end event names a
	// message the conversation does not hold.
	MissingMessage WarningKind = iota + 1
	// MissingToolCall: TOOL_CALL_ARGS or TOOL_CALL_END names a tool call no
	// message holds.
	MissingToolCall
	// ActivityConflict: a text or reasoning event names an activity
	// message; ids must be unique across kinds, so the event is ignored.
	ActivityConflict
	// ToolCallRenamed: TOOL_CALL_START restarted a known tool call under
	// another name; the name is updated.
	ToolCallRenamed
	// ParentNotAssistant: TOOL_CALL_START's parentMessageId names a message
	// that is not an assistant message; the call gets its own assistant
	// message, whose id is the tool call's id.
	ParentNotAssistant
	// StatePatchFailed: a STATE_DELTA could not be applied; the state is
	// unchanged.
	StatePatchFailed
	// ActivityPatchFailed: an ACTIVITY_DELTA could not be applied; the
	// activity's content is unchanged (its metadata is merged).
	ActivityPatchFailed
	// NotActivity: ACTIVITY_DELTA names a message that is not an activity.
	NotActivity
	// UnexpandedChunk: a *_CHUNK event reached the reducer; chunks must be
	// expanded first (package chunks), and this one was ignored.
	UnexpandedChunk
	// BadMetadata: an event's metadata is not a JSON object and was not
	// merged.
	BadMetadata
)

var warningNames = [...]string{
	MissingMessage:      "missing-message",
	MissingToolCall:     "missing-tool-call",
	ActivityConflict:    "activity-conflict",
	ToolCallRenamed:     "tool-call-renamed",
	ParentNotAssistant:  "parent-not-assistant",
	StatePatchFailed:    "state-patch-failed",
	ActivityPatchFailed: "activity-patch-failed",
	NotActivity:         "not-activity",
	UnexpandedChunk:     "unexpanded-chunk",
	BadMetadata:         "bad-metadata",
}

// String returns the kind's kebab-case name, such as "state-patch-failed".
func (k WarningKind) String() string {
	if int(k) < len(warningNames) && warningNames[k] != "" {
		return warningNames[k]
	}
	return "warning(" + strconv.Itoa(int(k)) + ")"
}

// Warning is something the reducer could not do with a delivered event. The
// Message is the reference client's text for the same case, so that
// expectations written against it (the conformance corpus) hold here too.
type Warning struct {
	Kind    WarningKind
	Message string
}

func (w Warning) String() string { return w.Kind.String() + ": " + w.Message }
