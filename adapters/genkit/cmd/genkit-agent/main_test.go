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
	for _, mode := range []string{"generate", "flow"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"--addr", "127.0.0.1:0", "--model", "gpt-4.1-mini"}
			if mode == "flow" {
				args = append(args, "--flow")
			}
			adaptertest.HTTPAgentInterop(t, adaptertest.Interop{
				ErrBody: `{"error":{"message":"no more recorded streams","type":"server_error"}}`,
				Files:   []string{"chat_frontend_call.sse", "chat_text.sse"},
				CallID:  "call_confirm_7",
				Run: func(ctx context.Context, providerURL string, out io.Writer) error {
					env := map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": providerURL + "/v1/"}
					return run(ctx, args, func(k string) string { return env[k] }, out)
				},
			})
		})
	}
}
