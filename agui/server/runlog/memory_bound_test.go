package runlog

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// floor is what a live run keeps however far over the bound the log is:
// the chunk it writes in and the block of spans that indexes it.
func (r *memRun) floor() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return cap(*r.store.chunks.at(r.store.chunks.len() - 1)) + blockBytes
}

func (r *memRun) held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.store.held
}

// Bytes is exactly what the runs hold, spares and span blocks included.
func checkAccounting(t *testing.T, m *Memory, runs []*memRun) {
	t.Helper()
	sum := 0
	for _, r := range runs {
		sum += r.held()
	}
	if int64(sum) != m.Bytes() {
		t.Fatalf("Bytes %d, the runs hold %d", m.Bytes(), sum)
	}
}

// 5,000 live runs on a log with room for a few hundred (issue 20: 1.22× the
// bound, undocumented): each run that grows past the bound drops its oldest
// events down to its floor, and the log holds no more than the bound and
// the runs' floors, as MaxTotalBytes documents.
func TestMemoryManyLiveRunsStopAtTheirFloor(t *testing.T) {
	const limit = 4 << 20
	m := NewMemory(MemoryOptions{MaxTotalBytes: limit})
	ev := bytes.Repeat([]byte("x"), 500) // 20 of them: 10 KB a run
	var runs []*memRun
	for i := range 5000 {
		w, err := m.Start(context.Background(), Info{ThreadID: "t", RunID: fmt.Sprint("r", i)})
		if err != nil {
			t.Fatal(err)
		}
		r := w.(*memRun)
		runs = append(runs, r)
		for range 20 {
			if _, err := w.Append(ev, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkAccounting(t, m, runs)
	floors := 0
	for _, r := range runs {
		floors += r.floor()
	}
	if got, want := m.Bytes(), int64(limit+floors); got > want {
		t.Fatalf("Bytes %d, over the bound %d and the runs' floors %d", got, limit, floors)
	}
	t.Logf("5,000 live runs: Bytes %d (the bound %d, their floors %d)", m.Bytes(), limit, floors)
	for _, r := range runs {
		if _, err := r.Append([]byte("{}"), true); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	checkAccounting(t, m, keptRuns(m))
	if m.Bytes() > limit {
		t.Fatalf("every run ended: Bytes %d, over the bound %d", m.Bytes(), limit)
	}
}

// Writers appending at once (issue 20: 2.42× the bound): Bytes never passes
// the bound by more than each live run's floor and the chunk each writer
// may be adding, and once the runs end the bound holds and the accounting
// is exact.
func TestMemoryBoundUnderConcurrentWriters(t *testing.T) {
	const limit, writers = 2 << 20, 16
	m := NewMemory(MemoryOptions{MaxTotalBytes: limit, MaxRuns: 8})
	var peak atomic.Int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if b := m.Bytes(); b > peak.Load() {
				peak.Store(b)
			}
		}
	})
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			ev := bytes.Repeat([]byte("y"), 512)
			for k := range 20 {
				w, err := m.Start(context.Background(), Info{ThreadID: "t", RunID: fmt.Sprint(g, "-", k)})
				if err != nil {
					t.Error(err)
					return
				}
				for i := range 1000 {
					if _, err := w.Append(ev, i == 999); err != nil {
						t.Error(err)
						return
					}
				}
				w.Close()
			}
		})
	}
	wg.Wait()
	close(stop)
	sampler.Wait()
	// A live run's floor is at most a 64 KiB chunk and a block; a writer
	// may hold one more chunk it is adding before it trims.
	slack := int64(writers * 2 * (chunkSize + blockBytes))
	t.Logf("%d writers: peak Bytes %d (the bound %d, with floors and chunks in flight %d)", writers, peak.Load(), limit, limit+slack)
	if peak.Load() > limit+slack {
		t.Fatalf("peak Bytes %d, over the bound %d with its slack %d", peak.Load(), limit, slack)
	}
	if m.Bytes() > limit {
		t.Fatalf("every run ended: Bytes %d, over the bound %d", m.Bytes(), limit)
	}
	checkAccounting(t, m, keptRuns(m))
}

// keptRuns is every run m still has.
func keptRuns(m *Memory) []*memRun {
	m.mu.Lock()
	defer m.mu.Unlock()
	var kept []*memRun
	for _, r := range m.runs {
		kept = append(kept, r)
	}
	return kept
}
