package agentcmd_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/agentcmd"
	"github.com/agui-go/sdk/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.Main(m, 0) }

// TestServe: Serve says where it serves, the agent answers a run at
// /agent there, and Serve returns nil once its context is done.
func TestServe(t *testing.T) {
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say("hello")
	})
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- agentcmd.Serve(ctx, "127.0.0.1:0", "test agent", pw, agent) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "AG-UI agent (test agent): ")
	if !ok || !strings.HasSuffix(url, "/agent") {
		t.Fatalf("Serve wrote %q", line)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"RUN_FINISHED"`) || !strings.Contains(string(body), "hello") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	http.DefaultClient.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve returned %v after its context was done", err)
	}
	pw.Close()
}

// TestServeRefusesABadAddress: an address it cannot listen on is an error,
// not a panic or a hang.
func TestServeRefusesABadAddress(t *testing.T) {
	if err := agentcmd.Serve(t.Context(), "256.0.0.1:99999", "x", io.Discard, server.Func(func(context.Context, *server.Stateless) (server.Outcome, error) {
		return server.Success(), nil
	})); err == nil {
		t.Fatal("no error")
	}
}
