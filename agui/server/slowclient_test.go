//go:build linux

package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server"
)

// A client that reads nothing holds the agent back: with the write outside
// the emitter's lock, what the agent can emit ahead of the client is still
// bounded by the handler's buffers and the kernel's, not by how much the
// agent has to say. The run ends when the write timeout cuts the client.
func TestStalledClientHoldsAgentBack(t *testing.T) {
	const (
		delta = "0123456789abcdef0123456789abcdef" // with framing, about 110 bytes a frame
		say   = 16 << 20                           // what the agent would emit unchecked
		bound = 128 << 10                          // of deltas: handler and kernel buffers, generously
	)
	type result struct {
		emitted int
		err     error
	}
	done := make(chan result, 1)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		emitted := 0
		for emitted < say {
			if err := m.Append(delta); err != nil {
				done <- result{emitted, err}
				return server.Outcome{}, err
			}
			emitted += len(delta)
		}
		done <- result{emitted, nil}
		return server.Success(), m.End()
	})
	srv := startSmall(t, server.NewHandler(agent, server.WithWriteTimeout(300*time.Millisecond)))
	dialSmall(t, srv) // and never read the body
	select {
	case r := <-done:
		if r.err == nil {
			t.Fatalf("the agent emitted all %d bytes to a client that read nothing", r.emitted)
		}
		if !errors.Is(r.err, server.ErrClientDisconnected) {
			t.Fatalf("emit failed with %v, want ErrClientDisconnected", r.err)
		}
		if r.emitted > bound {
			t.Fatalf("the agent emitted %d bytes of deltas before it was held back; the bound is %d", r.emitted, bound)
		}
		t.Logf("the agent emitted %d bytes of deltas before it was held back", r.emitted)
	case <-time.After(20 * time.Second):
		t.Fatal("the agent was neither held back nor cut")
	}
}
