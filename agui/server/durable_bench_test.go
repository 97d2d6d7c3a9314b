package server

import (
	"context"
	"io"
	"math"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/server/threads"
)

// cpuNow is the process's CPU time (user and system, GC and every goroutine
// included). On a shared machine wall time also counts the time the
// benchmark waited for a core; CPU time per op, reported beside ns/op as
// cpu-ns/op, is the work done.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchDeltaAgent appends b.N text deltas, timing only the deltas.
func benchDeltaAgent(b *testing.B) Agent[NoState] {
	return Func(func(ctx context.Context, rc *Stateless) (Outcome, error) {
		m, err := rc.StartTextMessage(WithID("msg-1"))
		if err != nil {
			return Outcome{}, err
		}
		b.ResetTimer()
		cpu := cpuNow()
		for range b.N {
			if err := m.Append("Hello, wor"); err != nil {
				return Outcome{}, err
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
		return Success(), m.End()
	})
}

// BenchmarkEmitRunLog is the cost the memory run log adds to the emit path
// of a text delta: "plain" streams each encoded event to a function that
// drops it (the baseline), "memorylog" appends it to a memory run log with
// its default bounds instead (past 100 000 events the oldest are dropped,
// so a long benchmark measures the steady state). The difference of the two,
// from the same run, is the log's cost. "memorylog-follow" adds a reader
// following the run live, as the POST that started a durable run is: what a
// follower costs the emitter is the signal that wakes it.
func BenchmarkEmitRunLog(b *testing.B) {
	input := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		err := NewRunner(context.Background(), benchDeltaAgent(b), input).
			Stream(func(_ agui.Event, data []byte) error { n += len(data); return nil })
		if err != nil {
			b.Fatal(err)
		}
	})
	b.Run("memorylog", func(b *testing.B) {
		b.ReportAllocs()
		l := runlog.NewMemory(runlog.MemoryOptions{})
		w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r"})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		if err := NewRunner(context.Background(), benchDeltaAgent(b), input).streamToLog(w, nil, nil); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("memorylog-steady", func(b *testing.B) {
		// A server's steady state: runs of 1,000 deltas back to back in
		// one log that keeps 8 runs, so each new run writes into memory
		// the runs it evicted gave back (the single long run above pays
		// the first touch of every page it writes instead).
		b.ReportAllocs()
		l := runlog.NewMemory(runlog.MemoryOptions{MaxRuns: 8})
		var cpu time.Duration
		b.StopTimer()
		for done, run := 0, 0; done < b.N; run++ {
			k := min(1000, b.N-done)
			id := "r" + strconv.Itoa(run)
			w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: id})
			if err != nil {
				b.Fatal(err)
			}
			agent := Func(func(ctx context.Context, rc *Stateless) (Outcome, error) {
				m, err := rc.StartTextMessage(WithID("msg-1"))
				if err != nil {
					return Outcome{}, err
				}
				b.StartTimer()
				c0 := cpuNow()
				for range k {
					if err := m.Append("Hello, wor"); err != nil {
						return Outcome{}, err
					}
				}
				cpu += cpuNow() - c0
				b.StopTimer()
				return Success(), m.End()
			})
			if err := NewRunner(context.Background(), agent, &agui.RunAgentInput{ThreadID: "t", RunID: id}).streamToLog(w, nil, nil); err != nil {
				b.Fatal(err)
			}
			w.Close()
			done += k
		}
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("memorylog-threads", func(b *testing.B) {
		// The emit path with a thread recorder attached, its reading held
		// back: what the store adds on the emitting goroutine alone (a
		// remainder and a compare per event, a nudge per recordBatch).
		b.ReportAllocs()
		l := runlog.NewMemory(runlog.MemoryOptions{})
		w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r"})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		rec := &threadRecorder{kick: make(chan struct{}, 1)}
		if err := NewRunner(context.Background(), benchDeltaAgent(b), input).streamToLog(w, nil, rec); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("memorylog-threads-live", func(b *testing.B) {
		// The same with the recorder live, reading and reducing the events
		// on its own goroutine as a server does: its allocations (decoding
		// each event) and its CPU (cpu-ns/op counts every goroutine) are
		// off the emit path but counted here.
		b.ReportAllocs()
		l := runlog.NewMemory(runlog.MemoryOptions{})
		cfg := newHandlerConfig(nil)
		d := newDurableRuns(DurableConfig{Log: l, Authorize: AllowAll}, &cfg, new(atomic.Int64))
		tr := newThreadRuns(ThreadConfig{Store: threads.NewMemory(threads.MemoryOptions{})}, d, &cfg)
		w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r"})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		rec := tr.begin(context.Background(), input)
		if err := NewRunner(context.Background(), benchDeltaAgent(b), input).streamToLog(w, nil, rec); err != nil {
			b.Fatal(err)
		}
		rec.end()
	})
	b.Run("memorylog-follow", func(b *testing.B) {
		b.ReportAllocs()
		l := runlog.NewMemory(runlog.MemoryOptions{})
		w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r"})
		if err != nil {
			b.Fatal(err)
		}
		read := make(chan int)
		go func() {
			n := 0
			for _, err := range l.Read(context.Background(), "r", 0) {
				if err != nil {
					break // retention outran the reader: the benchmark still measures the writer
				}
				n++
			}
			read <- n
		}()
		if err := NewRunner(context.Background(), benchDeltaAgent(b), input).streamToLog(w, nil, nil); err != nil {
			b.Fatal(err)
		}
		w.Close()
		<-read
	})
}

// BenchmarkDurableStream is a whole run over a loopback connection, timed
// from the agent's first delta until the client has read the last frame:
// "plain" without durable runs, "durable" with the memory log, where the
// POST is a reader of the log. The ratio of the two is what durable runs
// cost end to end, the reader's writes included.
func BenchmarkDurableStream(b *testing.B) {
	for _, mode := range []string{"plain", "durable"} {
		b.Run(mode, func(b *testing.B) {
			var cpu time.Duration
			agent := Func(func(ctx context.Context, rc *Stateless) (Outcome, error) {
				m, err := rc.StartTextMessage(WithID("msg-1"))
				if err != nil {
					return Outcome{}, err
				}
				b.ResetTimer()
				cpu = cpuNow()
				for range b.N {
					if err := m.Append("Hello, wor"); err != nil {
						return Outcome{}, err
					}
				}
				return Success(), m.End()
			})
			var opts []HandlerOption
			if mode == "durable" {
				// The log keeps the whole run: a durable run has no
				// backpressure, so at b.N past the default retention the
				// agent outruns the reader, which then loses the stream.
				log := runlog.NewMemory(runlog.MemoryOptions{MaxEvents: b.N + 16, MaxBytes: math.MaxInt})
				opts = append(opts, WithDurableRuns(DurableConfig{Log: log, Authorize: AllowAll}))
			}
			srv := httptest.NewServer(NewHandler(agent, opts...))
			defer srv.Close()
			b.ReportAllocs()
			resp, err := srv.Client().Post(srv.URL, "application/json",
				strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
			if err != nil {
				b.Fatal(err)
			}
			tail := &tailWriter{}
			_, err = io.Copy(tail, resp.Body)
			b.StopTimer()
			b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
			resp.Body.Close()
			if err != nil || !strings.Contains(string(tail.b), "RUN_FINISHED") {
				b.Fatalf("the stream ended with %q (%v)", tail.b, err)
			}
		})
	}
}

// tailWriter keeps the last bytes written to it.
type tailWriter struct{ b []byte }

func (w *tailWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	if len(w.b) > 256 {
		w.b = append(w.b[:0], w.b[len(w.b)-256:]...)
	}
	return len(p), nil
}
