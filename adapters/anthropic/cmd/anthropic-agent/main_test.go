package main

import (
	"context"
	"io"
	"testing"

	"github.com/agui-go/sdk/internal/adaptertest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestHTTPAgentInterop serves the example agent, as `go run` would, against
// the replay server, and has the reference TypeScript HttpAgent drive two
// runs through it: a frontend tool call left pending, then the run carrying
// its result. The client must warn about nothing.
func TestHTTPAgentInterop(t *testing.T) {
	adaptertest.HTTPAgentInterop(t, adaptertest.Interop{
		ErrBody: `{"type":"error","error":{"type":"api_error","message":"no more recorded streams"}}`,
		Files:   []string{"frontend_call.sse", "text.sse"},
		CallID:  "toolu_confirm_7",
		Run: func(ctx context.Context, providerURL string, out io.Writer) error {
			env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": providerURL}
			return run(ctx, []string{"--addr", "127.0.0.1:0", "--model", "claude-sonnet-4-5"}, func(k string) string { return env[k] }, out)
		},
	})
}
