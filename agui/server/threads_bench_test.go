package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// BenchmarkThreadConnect is the cost of one connect to a thread of ten runs
// (twenty messages) that has no live run, in process (no socket): the
// store's read, the replayed run's four events encoded and written. "json"
// beside it is GET {path}/threads/{id}, the record as JSON; "run", the
// yardstick, is one POST of the same agent's run on a plain handler (no
// durable runs, no threads), measured the same way.
func BenchmarkThreadConnect(b *testing.B) {
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say("A reply of a few words, as a model gives one.")
	})
	h := server.NewHandler(agent,
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll}),
		server.WithLogger(nil))
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", h)
	for i := range 10 {
		n := strconv.Itoa(i)
		req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(
			`{"threadId":"th","runId":"r`+n+`","messages":[{"id":"u`+n+`","role":"user","content":"question number `+n+`"}]}`))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("run %d: %d %s", i, w.Code, w.Body)
		}
	}
	plain := server.NewHandler(agent, server.WithLogger(nil))
	body := `{"threadId":"th","runId":"r","messages":[{"id":"u","role":"user","content":"question"}]}`
	for _, tc := range []struct {
		name, path string
		h          http.Handler
	}{{"connect", "/agent/threads/th/events", mux}, {"json", "/agent/threads/th", mux}, {"run", "", plain}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				var req *http.Request
				if tc.path != "" {
					req = httptest.NewRequest(http.MethodGet, tc.path, nil)
				} else {
					req = httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
				}
				w := httptest.NewRecorder()
				tc.h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size), "bytes/op")
		})
	}
}
