package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// BenchmarkThreadConnect is what a reader connecting to a thread costs the
// server when no run is live: the record read from the memory store, the
// replayed run encoded and written. The thread holds 10 runs of a user
// message and a 200-byte reply each (20 messages); "get" is the JSON route
// for the same thread.
func BenchmarkThreadConnect(b *testing.B) {
	say := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say(strings.Repeat("word ", 40))
	})
	h := server.NewHandler(say,
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll}))
	for i := range 10 {
		id := strconv.Itoa(i)
		req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(`{"threadId":"t","runId":"r`+id+`","messages":[{"id":"u`+id+`","role":"user","content":"question"}]}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
	for _, route := range []string{"connect", "get"} {
		path := "/agent/threads/t"
		if route == "connect" {
			path += "/events"
		}
		b.Run(route, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}
