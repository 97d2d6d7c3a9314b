package server

import "github.com/agui-go/sdk/agui"

// attribute gives ev the subagent attribution tag when ev can carry one and
// has none. The SUBAGENT_* events name their subagent in a required member of
// their own, and the run's lifecycle events and MESSAGES_SNAPSHOT are never
// attributed, so those are left alone.
func attribute(ev agui.Event, tag *string) {
	var slot **string
	switch e := ev.(type) {
	case *agui.TextMessageStart:
		slot = &e.SubagentRunID
	case *agui.TextMessageContent:
		slot = &e.SubagentRunID
	case *agui.TextMessageEnd:
		slot = &e.SubagentRunID
	case *agui.TextMessageChunk:
		slot = &e.SubagentRunID
	case *agui.ToolCallStart:
		slot = &e.SubagentRunID
	case *agui.ToolCallArgs:
		slot = &e.SubagentRunID
	case *agui.ToolCallEnd:
		slot = &e.SubagentRunID
	case *agui.ToolCallChunk:
		slot = &e.SubagentRunID
	case *agui.ToolCallResult:
		slot = &e.SubagentRunID
	case *agui.StateSnapshot:
		slot = &e.SubagentRunID
	case *agui.StateDelta:
		slot = &e.SubagentRunID
	case *agui.ActivitySnapshot:
		slot = &e.SubagentRunID
	case *agui.ActivityDelta:
		slot = &e.SubagentRunID
	case *agui.Raw:
		slot = &e.SubagentRunID
	case *agui.Custom:
		slot = &e.SubagentRunID
	case *agui.StepStarted:
		slot = &e.SubagentRunID
	case *agui.StepFinished:
		slot = &e.SubagentRunID
	case *agui.ReasoningStart:
		slot = &e.SubagentRunID
	case *agui.ReasoningMessageStart:
		slot = &e.SubagentRunID
	case *agui.ReasoningMessageContent:
		slot = &e.SubagentRunID
	case *agui.ReasoningMessageEnd:
		slot = &e.SubagentRunID
	case *agui.ReasoningMessageChunk:
		slot = &e.SubagentRunID
	case *agui.ReasoningEnd:
		slot = &e.SubagentRunID
	case *agui.ReasoningEncryptedValue:
		slot = &e.SubagentRunID
	case *agui.MessagesSnapshot, *agui.RunStarted, *agui.RunFinished, *agui.RunError, *agui.SubagentStarted, *agui.SubagentFinished, *agui.SubagentError:
		return
	}
	if slot != nil && *slot == nil {
		*slot = tag
	}
}
