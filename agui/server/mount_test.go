package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// Mount serves the agent at its path and the run routes beside it, and
// nothing else under the path: a POST there does not run the agent.
func TestMount(t *testing.T) {
	var runs atomic.Int32
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		runs.Add(1)
		return server.Success(), nil
	})
	mux := http.NewServeMux()
	server.Mount(mux, "/agent/", server.NewHandler(agent, server.WithDurableRuns(server.DurableConfig{
		Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	do := func(method, path string) int {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(`{"threadId":"t","runId":"r1","messages":[]}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		// Read to the end: the run's stream ends after its terminal event is
		// in the log, so the cancel below finds the run ended. Closing the
		// body unread left the run going, detached, and the cancel was 202.
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"POST", "/agent", 200},
		{"GET", "/agent/runs/r1/events", 200},
		{"POST", "/agent/runs/r1/cancel", 409}, // it has ended
		{"GET", "/agent/runs/r1/cancel", 405},
		{"POST", "/agent/runs/r1/other", 404},
		{"POST", "/agent/other", 404},
	} {
		if got := do(c.method, c.path); got != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, got, c.status)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the agent ran %d times, want once", n)
	}
}
