package runlog_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// fill appends n events of size bytes to w, the last one terminal if end.
func fill(t *testing.T, w runlog.Writer, n, size int, end bool) {
	t.Helper()
	ev := bytes.Repeat([]byte("x"), size)
	for i := range n {
		_, err := w.Append(ev, end && i == n-1)
		noErr(t, err)
	}
}

// The memory of the whole log is bounded, not only each run's: past
// MaxTotalBytes the least recently used ended runs go first, and a live
// run that needs more memory than is left drops its own oldest events.
func TestMemoryTotalBytes(t *testing.T) {
	const limit = 1 << 20
	l := runlog.NewMemory(runlog.MemoryOptions{MaxTotalBytes: limit})

	// Eight ended runs of 192 KiB each: 1.5 MiB of events offered.
	for _, id := range []string{"e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"} {
		w := start(t, l, id)
		fill(t, w, 192, 1<<10, true)
		noErr(t, w.Close())
		isTrue(t, l.Bytes() <= limit, "after", id, l.Bytes())
	}
	// The oldest went first; the newest is whole.
	_, err := collect(t, l, "e1", 0)
	isErr(t, err, runlog.ErrExpired)
	got, err := collect(t, l, "e8", 0)
	noErr(t, err)
	equal(t, 192, len(got))

	// A run read recently is used recently: it outlives older ones. (Three
	// runs of 258 KiB fit: e6, e7 and e8 are kept.)
	_, err = collect(t, l, "e6", 0)
	noErr(t, err)

	// Two live runs, 768 KiB each: every ended run but what fits goes,
	// e6 after e7 and e8 (it was read after them), then the live runs
	// trim themselves.
	a, b := start(t, l, "a"), start(t, l, "b")
	for range 6 {
		fill(t, a, 128, 1<<10, false)
		fill(t, b, 128, 1<<10, false)
		isTrue(t, l.Bytes() <= limit, "live runs", l.Bytes())
	}
	for _, id := range []string{"e4", "e5", "e7", "e8", "e6"} {
		_, err := collect(t, l, id, 0)
		isErr(t, err, runlog.ErrExpired)
	}
	for _, w := range []runlog.Writer{a, b} {
		_, err := w.Append([]byte(`{"end":true}`), true)
		noErr(t, err)
	}
	for _, id := range []string{"a", "b"} {
		// The beginning is gone, the end is there.
		_, err := collect(t, l, id, 0)
		isErr(t, err, runlog.ErrExpired)
		info, err := l.Info(context.Background(), id)
		noErr(t, err)
		isTrue(t, info.First > 1, id, "dropped nothing")
		tail, err := collect(t, l, id, info.First-1)
		noErr(t, err)
		equal(t, `{"end":true}`, string(tail[len(tail)-1].Data))
	}
	isTrue(t, l.Bytes() <= limit, "at the end", l.Bytes())
}

// A run alone on a log too small for it keeps at least the chunk it writes
// in and the block of spans that indexes it (its floor): its newest events
// stay readable.
func TestMemoryTotalBytesSmallerThanOneRun(t *testing.T) {
	l := runlog.NewMemory(runlog.MemoryOptions{MaxTotalBytes: 1})
	w := start(t, l, "r")
	fill(t, w, 1000, 100, true)
	info, err := l.Info(context.Background(), "r")
	noErr(t, err)
	equal(t, uint64(1000), info.Last)
	tail, err := collect(t, l, "r", info.First-1)
	noErr(t, err)
	isTrue(t, len(tail) > 0 && len(tail) < 1000, len(tail))
	isTrue(t, l.Bytes() <= 64<<10+6<<10, "one chunk and one block at most", l.Bytes())
}

// Many runs growing at once stay within the bound, and the accounting
// returns to zero once every run is forgotten.
func TestMemoryTotalBytesConcurrent(t *testing.T) {
	const limit = 2 << 20
	l := runlog.NewMemory(runlog.MemoryOptions{MaxTotalBytes: limit, MaxRuns: 4})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for r := range 10 {
				w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: string(rune('a'+g)) + string(rune('0'+r)), Owner: "o"})
				if err != nil {
					t.Error(err)
					return
				}
				ev := bytes.Repeat([]byte("y"), 512)
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
	// Live runs can each be one chunk over while they trim themselves;
	// once they ended, the bound holds.
	isTrue(t, l.Bytes() <= limit, l.Bytes())
	// Starting MaxRuns fresh runs forgets every ended one.
	for _, id := range []string{"z1", "z2", "z3", "z4", "z5"} {
		w := start(t, l, id)
		_, err := w.Append([]byte("{}"), true)
		noErr(t, err)
	}
	isTrue(t, l.Bytes() <= 4*(4<<10+6<<10), "only the four small runs, a chunk and a block each", l.Bytes())
}
