package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// discardWriter is an http.ResponseWriter (and Flusher) that drops the body.
type discardWriter struct {
	h http.Header
	n int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Flush()                      {}

const benchDelta = "Hello, wor"

// streamDeltas serves one run through the HTTP handler whose agent appends n
// text deltas, calling mark just before the first and after the last.
func streamDeltas(tb testing.TB, n int, start, stop func(), opts ...server.HandlerOption) *discardWriter {
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage(server.WithID("msg-1"))
		if err != nil {
			return server.Outcome{}, err
		}
		start()
		for range n {
			if err := m.Append(benchDelta); err != nil {
				return server.Outcome{}, err
			}
		}
		stop()
		return server.Success(), m.End()
	})
	w := &discardWriter{h: http.Header{}}
	req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	server.NewHandler(agent, opts...).ServeHTTP(w, req)
	return w
}

// BenchmarkEmitTextDelta measures the emit path of one text delta as the
// HTTP handler runs it: the helper builds TEXT_MESSAGE_CONTENT, the verifier
// observes it, and it is encoded as an SSE frame into the reused buffer that
// the flusher drains (to a writer that discards, so no syscall is counted).
func BenchmarkEmitTextDelta(b *testing.B) {
	b.ReportAllocs()
	w := streamDeltas(b, b.N, b.ResetTimer, b.StopTimer)
	b.SetBytes(int64(w.n / max(b.N, 1)))
}

// BenchmarkEmitTextDeltaObserved is BenchmarkEmitTextDelta with an
// observer (WithObserver) whose trace counts every event and write: what
// the hook costs when it is set, beside the hook left unset above.
func BenchmarkEmitTextDeltaObserved(b *testing.B) {
	b.ReportAllocs()
	var events, bytes, flushed int
	o := server.Observer{StartRun: func(ctx context.Context, _ server.RunInfo) (context.Context, *server.RunTrace) {
		return ctx, &server.RunTrace{
			Event: func(_ agui.Event, size int) { events++; bytes += size },
			Flush: func(size int, _ error) { flushed += size },
		}
	}}
	w := streamDeltas(b, b.N, b.ResetTimer, b.StopTimer, server.WithObserver(o))
	b.SetBytes(int64(w.n / max(b.N, 1)))
	if flushed != w.n || events < b.N {
		b.Fatalf("observed %d events, %d bytes flushed of %d", events, flushed, w.n)
	}
}

// BenchmarkEncodingJSONBaseline is the same frame produced the usual way: a
// struct with json tags through encoding/json, framed into a reused buffer.
// No verification, no locking: only the encoding.
func BenchmarkEncodingJSONBaseline(b *testing.B) {
	type textMessageContent struct {
		Type          string  `json:"type"`
		MessageID     string  `json:"messageId"`
		Delta         string  `json:"delta"`
		SubagentRunID *string `json:"subagentRunId,omitempty"`
	}
	b.ReportAllocs()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		data, err := json.Marshal(textMessageContent{Type: "TEXT_MESSAGE_CONTENT", MessageID: "msg-1", Delta: benchDelta})
		if err != nil {
			b.Fatal(err)
		}
		buf.WriteString("data: ")
		buf.Write(data)
		buf.WriteString("\n\n")
	}
}

// BenchmarkRunIteratorDelta is the same delta through Run, the pull
// iterator: the agent hands each event to the consumer's goroutine over an
// unbuffered channel, which is what bounds it, and what it costs.
func BenchmarkRunIteratorDelta(b *testing.B) {
	b.ReportAllocs()
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		b.ResetTimer()
		for range b.N {
			if err := m.Append(benchDelta); err != nil {
				return server.Outcome{}, err
			}
		}
		b.StopTimer()
		return server.Success(), m.End()
	})
	for ev, err := range server.Run(context.Background(), agent, &agui.RunAgentInput{ThreadID: "t", RunID: "r"}) {
		if err != nil {
			b.Fatal(err)
		}
		_ = ev
	}
}

// The handler's delta path allocates nothing per delta, with an observer
// (WithObserver) or without.
func TestEmitTextDeltaAllocatesNothing(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts need a plain, full build")
	}
	observed := server.WithObserver(server.Observer{StartRun: func(ctx context.Context, _ server.RunInfo) (context.Context, *server.RunTrace) {
		n := 0
		return ctx, &server.RunTrace{Event: func(agui.Event, int) { n++ }, Flush: func(int, error) { n++ }}
	}})
	for _, tt := range []struct {
		name string
		opts []server.HandlerOption
	}{{"unobserved", nil}, {"observed", []server.HandlerOption{observed}}} {
		t.Run(tt.name, func(t *testing.T) { emitAllocatesNothing(t, tt.opts...) })
	}
}

func emitAllocatesNothing(t *testing.T, opts ...server.HandlerOption) {
	const n = 2000
	// The count is the process's: a goroutine left by an earlier test, or
	// the runtime's own, allocating meanwhile adds to it. Such noise only
	// adds, and an allocation per delta would be there every time (2000 of
	// them): the fewest of three runs is judged.
	fewest := uint64(math.MaxUint64)
	for range 3 {
		var before, after testingMemStats
		w := streamDeltas(t, n, before.read, after.read, opts...)
		if w.n < n*len(benchDelta) {
			t.Fatalf("only %d bytes written", w.n)
		}
		allocs := after.mallocs - before.mallocs
		if allocs <= n/100 { // slack for the runtime's own
			return
		}
		fewest = min(fewest, allocs)
		t.Logf("%d allocations for %d deltas", allocs, n)
	}
	t.Fatalf("%d allocations for %d deltas, at the fewest of three runs", fewest, n)
}

type testingMemStats struct{ mallocs uint64 }

func (m *testingMemStats) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.mallocs = s.Mallocs
}
