package server

import (
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/protover"
)

// TestDeltasCarryNothingToStrip holds what sendAsIs relies on: the three
// deltas the hot paths send, every member set, come out of the 1.0
// downgrade unchanged. A protocol version that adds a member to one of
// them fails here, and its hot path must then downgrade again.
func TestDeltasCarryNothingToStrip(t *testing.T) {
	sub := "sub"
	attr := agui.Attribution{SubagentRunID: &sub}
	ts := int64(1)
	base := agui.EventBase{Timestamp: &ts, RawEvent: []byte(`{"a":1}`), Metadata: []byte(`{"b":2}`)}
	for _, ev := range []agui.Event{
		&agui.TextMessageContent{EventBase: base, MessageID: "m", Delta: "d", Attribution: attr},
		&agui.ToolCallArgs{EventBase: base, ToolCallID: "c", Delta: "d", Attribution: attr},
		&agui.ReasoningMessageContent{EventBase: base, MessageID: "m", Delta: "d", Attribution: attr},
	} {
		out, lost := protover.StripEvent(ev)
		if lost != nil || out != ev {
			t.Errorf("%s: the 1.0 downgrade changes it (drops %v); its hot path must not skip the downgrade", ev.Type(), lost)
		}
	}
}
