package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// A run id of several KiB makes RUN_STARTED and RUN_FINISHED events of
// several KiB: with the memory log they once crashed the process (a chunk
// class of -1, issue 20). The run streams to its end, and a reattach by the
// long id replays it.
func TestDurableLongRunIDs(t *testing.T) {
	for _, n := range []int{4200, 9000, 40 << 10} {
		runID := strings.Repeat("r", n-1) + "é" // and not only ASCII
		srv := durableServer(t, deltaAgent(3, -1, nil), server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll}))
		resp := postRun(t, srv.URL, "t", runID)
		if resp.StatusCode != http.StatusOK {
			errorBody(t, resp, http.StatusOK)
		}
		first := checkStream(t, readSSE(t, resp.Body, -1), 1)
		resp.Body.Close()
		if last := first[len(first)-1]; !strings.Contains(last, `"RUN_FINISHED"`) || !strings.Contains(last, runID) {
			t.Fatalf("run id of %d bytes: the stream ends with %.80q", len(runID), last)
		}
		again := getEvents(t, srv.URL, url.PathEscape(runID), nil, "")
		if again.StatusCode != http.StatusOK {
			errorBody(t, again, http.StatusOK)
		}
		replay := checkStream(t, readSSE(t, again.Body, -1), 1)
		again.Body.Close()
		if strings.Join(replay, "\n") != strings.Join(first, "\n") {
			t.Fatalf("run id of %d bytes: the replay differs from the stream", len(runID))
		}
	}
}

// A durable run needs an id to be reattached and cancelled by: an empty one
// is the client's mistake (400 with a JSON body), not the log's (503).
func TestDurableEmptyRunIDIsRefused(t *testing.T) {
	started := make(chan struct{}, 1)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		started <- struct{}{}
		return server.Success(), nil
	})
	srv := durableServer(t, agent, server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll}))
	code, msg := errorBody(t, postRun(t, srv.URL, "t", ""), http.StatusBadRequest)
	if code != agui.HTTPCodeInvalidInput || !strings.Contains(msg, "runId") {
		t.Fatalf("code %q message %q, want %s naming the runId", code, msg, agui.HTTPCodeInvalidInput)
	}
	select {
	case <-started:
		t.Fatal("the agent ran for a refused request")
	default:
	}
}
