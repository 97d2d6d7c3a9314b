package verify

import (
	"testing"

	"github.com/agui-go/sdk/agui"
)

// TestFactsOf pins what the generated tables read from events: the action,
// the entity and its id, and attribution (a tag, its absence, or identity).
func TestFactsOf(t *testing.T) {
	tag := "s1"
	tests := []struct {
		name string
		ev   agui.Event
		want facts
	}{
		{"untagged delta", agui.NewTextMessageContent("m1", "x"),
			facts{action: actionContinue, entity: entityMessage, id: "m1"}},
		{"tagged delta", &agui.ToolCallArgs{ToolCallID: "c1", Attribution: agui.Attribution{SubagentRunID: &tag}},
			facts{action: actionContinue, entity: entityToolCall, id: "c1", tag: "s1", tagged: true}},
		{"empty tag is a tag", &agui.ReasoningMessageContent{MessageID: "z", Attribution: agui.Attribution{SubagentRunID: new("")}},
			facts{action: actionContinue, entity: entityReasoningMessage, id: "z", tagged: true}},
		{"chunk without id", &agui.TextMessageChunk{},
			facts{action: actionChunk, entity: entityMessage}},
		{"chunk with id", &agui.ToolCallChunk{ToolCallID: new("c2")},
			facts{action: actionChunk, entity: entityToolCall, id: "c2"}},
		{"identity", agui.NewSubagentStarted("s9", "researcher"),
			facts{action: actionOpen, entity: entitySubagent, id: "s9", tag: "s9", tagged: true}},
		{"run scoped", agui.NewRunError("boom"),
			facts{action: actionFail, entity: entityRun}},
		{"no lifecycle", agui.NewCustom("n", nil),
			facts{action: actionNone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got facts
			if factsOf(tt.ev, &got); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
