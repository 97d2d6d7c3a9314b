//go:build !agui_noverify

package server_test

import (
	"context"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// TestProtobufStreamIsVerified checks that the server verifier guards a
// protobuf stream as it guards SSE: a content event for a message that was
// never opened is not sent, and the run ends in PROTOCOL_VIOLATION.
func TestProtobufStreamIsVerified(t *testing.T) {
	bad := server.AgentFunc[struct{}](func(ctx context.Context, rc *server.RunContext[struct{}]) (server.Outcome, error) {
		return server.Success(), rc.Emit(agui.NewTextMessageContent("never-opened", "x"))
	})
	w := post(server.NewHandler(bad), validBody, map[string]string{"Accept": server.MediaTypeProtobuf})
	evs := readProto(t, w.Body.Bytes())
	last, ok := evs[len(evs)-1].(*agui.RunError)
	if !ok || last.Code == nil || *last.Code != string(agui.CodeProtocolViolation) {
		t.Fatalf("last event %#v, want RUN_ERROR PROTOCOL_VIOLATION", evs[len(evs)-1])
	}
	for _, ev := range evs {
		if ev.Type() == agui.EventTypeTextMessageContent {
			t.Fatal("the rejected event was sent")
		}
	}
}
