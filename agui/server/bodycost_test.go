package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// largeBody is a valid RunAgentInput of about size bytes: one user message
// whose content fills it.
func largeBody(size int) string {
	head := `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"`
	tail := `"}]}`
	return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
}

// BenchmarkLargeBody measures what it costs to read and decode a 10 MiB body,
// in bytes allocated per byte of body (alloc-B/body-B; 1.0 is one copy): the
// handler, next to io.ReadAll followed by agui.DecodeRunAgentInput (what the
// handler did before it read bodies by their announced size) as the baseline.
func BenchmarkLargeBody(b *testing.B) {
	const size = 10<<20 - 64
	body := largeBody(size)
	measure := func(b *testing.B, f func()) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for b.Loop() {
			f()
		}
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(size), "alloc-B/body-B")
	}
	b.Run("handler", func(b *testing.B) {
		h := server.NewHandler(server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return server.Success(), nil
		}))
		measure(b, func() {
			req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
		})
	})
	b.Run("baseline=ReadAll+Decode", func(b *testing.B) {
		measure(b, func() {
			data, err := io.ReadAll(strings.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := agui.DecodeRunAgentInput(data); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// The body is read whole whether its announced size is right, absent, too
// small or too large, and the size limit holds in every case.
func TestBodyReadBySize(t *testing.T) {
	const content = 200 << 10 // past the first 64 KiB read
	body := largeBody(content + 200)
	for _, tc := range []struct {
		name   string
		length int64
		limit  int64
		want   int
	}{
		{"announced", int64(len(body)), 0, http.StatusOK},
		{"not announced", -1, 0, http.StatusOK},
		{"announced too small", 100, 0, http.StatusOK},
		{"announced too large", int64(len(body)) * 3, 0, http.StatusOK},
		{"over the limit", int64(len(body)), 100 << 10, http.StatusRequestEntityTooLarge},
		{"over the limit, not announced", -1, 100 << 10, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []server.HandlerOption
			if tc.limit > 0 {
				opts = append(opts, server.WithMaxBodyBytes(tc.limit))
			}
			var got int
			h := server.NewHandler(server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
				got = len(rc.LastUserText())
				return server.Success(), nil
			}), opts...)
			req := httptest.NewRequest(http.MethodPost, "/agent", io.MultiReader(strings.NewReader(body)))
			req.ContentLength = tc.length
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != tc.want {
				t.Fatalf("status %d, want %d: %.200s", w.Code, tc.want, w.Body)
			}
			if tc.want == http.StatusOK && got != strings.Count(body, "x") {
				t.Fatalf("the agent saw %d bytes of content", got)
			}
		})
	}
}
