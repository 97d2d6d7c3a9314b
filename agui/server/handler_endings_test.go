package server_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/testlog"
)

// methodAgent is an Agent that is not an AgentFunc, so the handler calls it
// through the interface.
type methodAgent struct{}

func (methodAgent) Run(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
	return server.Success().WithResult("by method"), rc.Say("hi")
}

// TestHandlerAgentEndings runs, through the HTTP handler, an agent leaving
// in every way it can: each stream ends with exactly one terminal event of
// the right kind, and the run's place under WithMaxConcurrentRuns (one place)
// is free again for the next request, whichever way the last one ended.
func TestHandlerAgentEndings(t *testing.T) {
	base := server.Success()
	for _, tc := range []struct {
		name  string
		agent server.Agent[server.NoState]
		want  string // the terminal frame holds this
	}{
		{"success", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return base.WithResult(map[string]int{"n": 1}).WithUsage(agui.TokenUsage{}), nil
		}), `"result":{"n":1}`},
		{"base untouched", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return base, nil
		}), `"runId":"r","outcome":{"type":"success"}}`},
		{"zero outcome", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return server.Outcome{}, nil
		}), `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
		{"method agent", methodAgent{}, `"result":"by method"`},
		{"error", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return server.Success(), errors.New("model down")
		}), `"code":"AGENT_ERROR"`},
		{"panic", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			panic("boom")
		}), `"code":"AGENT_PANIC"`},
		{"goexit", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			runtime.Goexit()
			return server.Outcome{}, nil
		}), `"code":"AGENT_PANIC"`},
		{"nil func", server.Func(nil), `"code":"AGENT_PANIC"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The panicking agents' stacks go to the test's log, not the suite's.
			h := server.NewHandler(tc.agent, server.WithMaxConcurrentRuns(1), server.WithLogger(testlog.New(t)))
			for i := range 2 { // the second finds the place given back
				w := httptest.NewRecorder()
				done := make(chan struct{})
				go func() { // a Goexit ends this goroutine, not the test's
					defer close(done)
					req := httptest.NewRequest("POST", "/agent", strings.NewReader(validBody))
					req.Header.Set("Content-Type", "application/json")
					h.ServeHTTP(w, req)
				}()
				<-done
				if w.Code != 200 {
					t.Fatalf("request %d: status %d: %s", i, w.Code, w.Body)
				}
				frames := strings.Split(strings.TrimSuffix(w.Body.String(), "\n\n"), "\n\n")
				ends := 0
				for _, f := range frames {
					if strings.Contains(f, `"type":"RUN_FINISHED"`) || strings.Contains(f, `"type":"RUN_ERROR"`) {
						ends++
					}
				}
				if last := frames[len(frames)-1]; ends != 1 || !strings.Contains(last, tc.want) {
					t.Fatalf("request %d: %d terminal events, last frame %s, want %s", i, ends, last, tc.want)
				}
			}
		})
	}
}
