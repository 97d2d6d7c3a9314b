//go:build !agui_noverify

package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// An agent that leaves 3×10^4 tool calls open gets a RUN_ERROR naming a few of
// them and counting the rest: a frame of a few hundred bytes, not megabytes.
func TestRunErrorListsFewOpenIDs(t *testing.T) {
	const n = 30_000
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		for i := range n {
			if _, err := rc.StartToolCall("search", server.WithID(fmt.Sprintf("call-%06d", i))); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), nil
	})
	evs := readStream(t, server.NewHandler(agent), validBody)
	if len(evs) != n+2 {
		t.Fatalf("%d events, want %d", len(evs), n+2)
	}
	re := runError(t, evs)
	if re.Code == nil || *re.Code != string(agui.CodeProtocolViolation) {
		t.Fatalf("code %v, want PROTOCOL_VIOLATION", re.Code)
	}
	if len(re.Message) > 1024 || !strings.Contains(re.Message, fmt.Sprintf("and %d more", n-5)) {
		t.Fatalf("message (%d bytes) is not the capped list: %.400s", len(re.Message), re.Message)
	}
}
