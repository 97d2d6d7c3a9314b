package bench

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// durableSides are the two handlers of the durable rows: agui-go's as it
// ships ("off") and with durable runs on the memory run log ("memorylog").
// With durable runs on, the POST does not get the agent's events directly:
// the agent writes to the log, and the POST's stream is a reader of the
// run, as every reattaching client is, so the row counts the log's writer
// and its reader together. The log keeps 8 ended runs, so that a long
// benchmark runs in the steady state of a server whose log is full (each
// run takes the memory an evicted one gave back), not in an ever-growing
// heap.
var durableSides = []struct {
	name string
	opts func() []server.HandlerOption
}{
	{"off", func() []server.HandlerOption { return nil }},
	{"memorylog", func() []server.HandlerOption {
		return []server.HandlerOption{server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{MaxRuns: 8}), Authorize: server.AllowAll})}
	}},
}

// BenchmarkDurableEmit1000 is a whole 1,000-delta run emitted through
// agui-go's handler into a writer that drops the bytes (as in EmitDelta):
// one op = one run, each with a run id of its own, since a durable log
// refuses a second run under an id it knows. The whole run is timed, so
// that all the reader's work is in it (timing the agent's deltas alone
// would leave out what the reader had not yet written when the last delta
// was emitted); what a run costs once (the log's Start, the reader's
// setup) is therefore spread over its 1,000 deltas. cpu-ns/delta and
// ns/delta are per delta; B/op and allocs/op per run. The difference of the
// two sides, per delta, is what a durable run adds to each event.
func BenchmarkDurableEmit1000(b *testing.B) { benchDurable(b, runDeltas) }

// BenchmarkDurableEmit100 is the same with runs of 100 deltas: beside
// the 1,000-delta runs it tells what a durable run costs per event from
// what it costs once per run (the difference of the two per-run figures
// is 900 deltas' worth), which matters for a goal of no allocation per
// event, since a run's setup allocates whatever the events do.
func BenchmarkDurableEmit100(b *testing.B) { benchDurable(b, 100) }

func benchDurable(b *testing.B, deltas int) {
	for _, side := range durableSides {
		b.Run(side.name, func(b *testing.B) {
			h := server.NewHandler(oursAgent(deltas, delta, nil), side.opts()...)
			w := newFrameCounter()
			b.ReportAllocs()
			cpu := cpuNow()
			run := 0
			for b.Loop() {
				run++
				req := httptest.NewRequest(http.MethodPost, "/",
					strings.NewReader(fmt.Sprintf(`{"threadId":"t","runId":"r%d","messages":[],"tools":[],"context":[]}`, run)))
				req.Header.Set("Content-Type", "application/json")
				w.reset()
				h.ServeHTTP(w, req)
				if err := w.check(deltas + 4); err != nil {
					b.Fatalf("run %d: %v", run, err)
				}
			}
			reportCPU(b, cpu, deltas, "delta")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(deltas), "ns/delta")
		})
	}
}

// frameCounter is an http.ResponseWriter and http.Flusher that drops the
// body but counts its frames and keeps its end, so that a benchmark can
// check the run it streamed. The writes of a durable stream come from the
// request's goroutine and from its flush timer, hence the lock.
type frameCounter struct {
	mu     sync.Mutex
	h      http.Header
	status int
	frames int
	tail   []byte // the last bytes written, with one byte before them
}

func newFrameCounter() *frameCounter { return &frameCounter{h: http.Header{}} }

func (w *frameCounter) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.h)
	w.status, w.frames, w.tail = 0, 0, w.tail[:0]
}

func (w *frameCounter) Header() http.Header { return w.h }
func (w *frameCounter) Flush()              {}

func (w *frameCounter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		w.status = code
	}
}

func (w *frameCounter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		w.status = http.StatusOK
	}
	// A frame ends with a blank line; the one byte kept from the last
	// write finds an end cut between two writes.
	if len(w.tail) > 0 && w.tail[len(w.tail)-1] == '\n' && len(p) > 0 && p[0] == '\n' {
		w.frames++
	}
	w.frames += bytes.Count(p, []byte("\n\n"))
	w.tail = append(w.tail, p[max(0, len(p)-256):]...)
	if len(w.tail) > 256 {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-256:]...)
	}
	return len(p), nil
}

// check fails unless the run was a 200 of want frames ending with
// RUN_FINISHED.
func (w *frameCounter) check(want int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status != http.StatusOK {
		return fmt.Errorf("status %d", w.status)
	}
	if w.frames != want {
		return fmt.Errorf("%d frames, want %d", w.frames, want)
	}
	if !bytes.Contains(w.tail, []byte(`"RUN_FINISHED"`)) {
		return fmt.Errorf("the run ended with %q", w.tail)
	}
	return nil
}

// Both durable sides stream the whole run, and durable runs on the memory
// log do carry their sequence numbers (the row measures the feature, not a
// handler that left it off).
func TestDurableSidesStreamTheRun(t *testing.T) {
	for _, side := range durableSides {
		h := server.NewHandler(oursAgent(runDeltas, delta, nil), side.opts()...)
		w := newFrameCounter()
		for run := range 3 {
			req := httptest.NewRequest(http.MethodPost, "/",
				strings.NewReader(fmt.Sprintf(`{"threadId":"t","runId":"r%d","messages":[],"tools":[],"context":[]}`, run)))
			req.Header.Set("Content-Type", "application/json")
			w.reset()
			h.ServeHTTP(w, req)
			if err := w.check(runDeltas + 4); err != nil {
				t.Fatalf("%s run %d: %v", side.name, run, err)
			}
		}
		body := serve(t, h)
		if got := strings.HasPrefix(body, "id: 1\n"); got != (side.name == "memorylog") {
			t.Errorf("%s: sequence numbers %v in %.80q…", side.name, got, body)
		}
	}
}
