package verify

import (
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/interop"
)

// TestDeltaFacts holds the hand-written fast path to the generated tables.
func TestDeltaFacts(t *testing.T) {
	tag := "s1"
	events := []agui.Event{
		agui.NewTextMessageContent("m1", "x"),
		&agui.TextMessageContent{MessageID: "m1", SubagentRunID: &tag},
		agui.NewToolCallArgs("c1", "{}"),
		&agui.ToolCallArgs{ToolCallID: "c1", SubagentRunID: &tag},
		agui.NewReasoningMessageContent("z", "t"),
		&agui.ReasoningMessageContent{MessageID: "z", SubagentRunID: new("")},
	}
	for _, ev := range events {
		var got facts
		if !deltaFacts(ev, &got) {
			t.Fatalf("%T: not a delta", ev)
		}
		if want := factsOf(ev); got != want {
			t.Errorf("%T: deltaFacts %+v, factsOf %+v", ev, got, want)
		}
	}
	// Every other event type is left to the tables.
	for typ := range 32 {
		for _, ev := range interop.Events([]byte{byte(typ), 5, 1, 2, 3, 4, 5, 6, 7}) {
			var f facts
			isDelta := ev.Type() == agui.EventTypeTextMessageContent || ev.Type() == agui.EventTypeToolCallArgs || ev.Type() == agui.EventTypeReasoningMessageContent
			if deltaFacts(ev, &f) != isDelta {
				t.Errorf("%s: deltaFacts says %v", ev.Type(), !isDelta)
			}
		}
	}
}
