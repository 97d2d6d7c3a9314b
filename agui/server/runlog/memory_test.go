package runlog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/internal/leakcheck"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// No goroutine a log or a test started may outlive the tests. They get ten
// seconds to end, not the half second goleak.VerifyTestMain would wait: on a
// loaded machine a goroutine can wait that long to run its last lines.
func TestMain(m *testing.M) { leakcheck.Main(m, 10*time.Second) }

// collect reads a run from after until the sequence ends.
func collect(t *testing.T, l runlog.Log, runID string, after uint64) ([]runlog.Entry, error) {
	t.Helper()
	var out []runlog.Entry
	for e, err := range l.Read(context.Background(), runID, after) {
		if err != nil {
			return out, err
		}
		e.Data = bytes.Clone(e.Data) // valid until the read goes on
		out = append(out, e)
	}
	return out, nil
}

func start(t *testing.T, l runlog.Log, runID string) runlog.Writer {
	t.Helper()
	w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: runID, Owner: "a"})
	noErr(t, err)
	return w
}

func TestMemoryAppendReadResume(t *testing.T) {
	l := runlog.NewMemory(runlog.MemoryOptions{})
	w := start(t, l, "r1")
	buf := []byte("x")
	for i := range 10 {
		buf = fmt.Appendf(buf[:0], `{"n":%d}`, i)
		seq, err := w.Append(buf, i == 9)
		noErr(t, err)
		equal(t, uint64(i+1), seq)
	}
	_, err := w.Append([]byte(`{}`), false)
	isErr(t, err, runlog.ErrEnded)

	all, err := collect(t, l, "r1", 0)
	noErr(t, err)
	equal(t, len(all), 10)
	for i, e := range all {
		equal(t, uint64(i+1), e.Seq)
		equal(t, fmt.Sprintf(`{"n":%d}`, i), string(e.Data), "the log copies; reusing the buffer changes nothing")
	}
	isTrue(t, all[9].Terminal)

	tail, err := collect(t, l, "r1", 7)
	noErr(t, err)
	equal(t, len(tail), 3)
	equal(t, uint64(8), tail[0].Seq)

	none, err := collect(t, l, "r1", 10)
	noErr(t, err)
	equal(t, len(none), 0)

	_, err = collect(t, l, "r1", 11)
	isErr(t, err, runlog.ErrFuture)
	noErr(t, w.Close())

	info, err := l.Info(context.Background(), "r1")
	noErr(t, err)
	isTrue(t, info.Ended)
	equal(t, uint64(10), info.Last)
}

func TestMemoryFollowLive(t *testing.T) {
	l := runlog.NewMemory(runlog.MemoryOptions{})
	w := start(t, l, "r")
	const n = 500
	var wg sync.WaitGroup
	results := make([][]runlog.Entry, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e, err := range l.Read(context.Background(), "r", 0) {
				if err != nil {
					t.Error(err)
					return
				}
				e.Data = bytes.Clone(e.Data) // valid until the read goes on
				results[i] = append(results[i], e)
			}
		}()
	}
	for i := range n {
		_, err := w.Append(fmt.Appendf(nil, "%d", i), i == n-1)
		noErr(t, err)
		if i%50 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	wg.Wait()
	for _, got := range results {
		equal(t, len(got), n)
		for i, e := range got {
			equal(t, uint64(i+1), e.Seq)
			equal(t, fmt.Sprint(i), string(e.Data))
		}
	}
	noErr(t, w.Close())
}

func TestMemoryReadStopsWithContext(t *testing.T) {
	l := runlog.NewMemory(runlog.MemoryOptions{})
	w := start(t, l, "r")
	_, _ = w.Append([]byte("a"), false)
	ctx, cancel := context.WithCancel(context.Background())
	var got []string
	var last error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e, err := range l.Read(ctx, "r", 0) {
			if err != nil {
				last = err
				return
			}
			got = append(got, string(e.Data))
			cancel()
		}
	}()
	<-done
	equal(t, strings.Join(got, ","), "a")
	isErr(t, last, context.Canceled)
	noErr(t, w.Close())
}

func TestMemoryRetention(t *testing.T) {
	t.Run("events", func(t *testing.T) {
		l := runlog.NewMemory(runlog.MemoryOptions{MaxEvents: 5})
		w := start(t, l, "r")
		for i := range 12 {
			_, err := w.Append([]byte{'a' + byte(i)}, i == 11)
			noErr(t, err)
		}
		info, err := l.Info(context.Background(), "r")
		noErr(t, err)
		equal(t, uint64(8), info.First)
		got, err := collect(t, l, "r", 7)
		noErr(t, err)
		equal(t, len(got), 5)
		equal(t, "h", string(got[0].Data))
		_, err = collect(t, l, "r", 6)
		isErr(t, err, runlog.ErrExpired)
	})
	t.Run("bytes", func(t *testing.T) {
		l := runlog.NewMemory(runlog.MemoryOptions{MaxBytes: 10})
		w := start(t, l, "r")
		for range 6 {
			_, err := w.Append([]byte("abcd"), false)
			noErr(t, err)
		}
		info, err := l.Info(context.Background(), "r")
		noErr(t, err)
		equal(t, uint64(5), info.First, "two 4-byte events fit in 10 bytes")
		noErr(t, w.Close())
	})
	t.Run("ttl", func(t *testing.T) {
		now := time.Unix(1000, 0)
		l := runlog.NewMemory(runlog.MemoryOptions{TTL: time.Minute, Now: func() time.Time { return now }})
		w := start(t, l, "r")
		_, err := w.Append([]byte("end"), true)
		noErr(t, err)
		now = now.Add(59 * time.Second)
		_, err = l.Info(context.Background(), "r")
		noErr(t, err)
		now = now.Add(2 * time.Second)
		_, err = l.Info(context.Background(), "r")
		isErr(t, err, runlog.ErrExpired)
		_, err = collect(t, l, "r", 0)
		isErr(t, err, runlog.ErrExpired)
		_, err = l.Info(context.Background(), "never")
		isErr(t, err, runlog.ErrNotFound)
	})
	t.Run("lru", func(t *testing.T) {
		l := runlog.NewMemory(runlog.MemoryOptions{MaxRuns: 2})
		live := start(t, l, "live")
		a := start(t, l, "a")
		_, _ = a.Append([]byte("x"), true)
		b := start(t, l, "b")
		_, _ = b.Append([]byte("x"), true)
		// Two ended runs: MaxRuns counts only those, so both stay until
		// a third ends (TestMemoryMaxRunsCountsEndedRuns).
		c := start(t, l, "c")
		_, _ = c.Append([]byte("x"), true)
		// a is the least recently used ended run; the live one stays.
		_, err := l.Info(context.Background(), "a")
		isErr(t, err, runlog.ErrExpired)
		_, err = l.Info(context.Background(), "live")
		noErr(t, err)
		_, err = l.Info(context.Background(), "b") // b is now more recent than live
		noErr(t, err)
		_, err = l.Start(context.Background(), runlog.Info{RunID: "b"})
		isErr(t, err, runlog.ErrExists)
		noErr(t, live.Close())
	})
}

func TestMemoryCancel(t *testing.T) {
	l := runlog.NewMemory(runlog.MemoryOptions{})
	w := start(t, l, "r")
	select {
	case <-w.Cancelled():
		t.Fatal("cancelled before anyone asked")
	default:
	}
	noErr(t, l.Cancel(context.Background(), "r", "stop"))
	noErr(t, l.Cancel(context.Background(), "r", "again"), "a second request is harmless")
	<-w.Cancelled()
	equal(t, "stop", w.CancelReason())
	_, _ = w.Append([]byte("end"), true)
	isErr(t, l.Cancel(context.Background(), "r", "late"), runlog.ErrEnded)
	isErr(t, l.Cancel(context.Background(), "nope", "x"), runlog.ErrNotFound)
}

func TestMemoryCloseWithoutTerminalEndsLost(t *testing.T) {
	l := runlog.NewMemory(runlog.MemoryOptions{})
	w := start(t, l, "r")
	_, _ = w.Append([]byte(`{"type":"RUN_STARTED"}`), false)
	noErr(t, w.Close())
	got, err := collect(t, l, "r", 0)
	noErr(t, err)
	equal(t, len(got), 2)
	isTrue(t, got[1].Terminal)
	isTrue(t, strings.Contains(string(got[1].Data), `"code":"RUN_LOST"`), string(got[1].Data))
	_, err = w.Append([]byte("x"), false)
	isTrue(t, errors.Is(err, runlog.ErrEnded))
}

func TestNewRunIDUnguessable(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := runlog.NewRunID()
		equal(t, len(id), 22) // 128 bits, base64url
		isTrue(t, !(seen[id]))
		seen[id] = true
	}
}

func noErr(t *testing.T, err error, msg ...any) {
	t.Helper()
	if err != nil {
		t.Fatal(append([]any{err}, msg...)...)
	}
}

func isErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error %v, want %v", err, want)
	}
}

func equal[T comparable](t *testing.T, want, got T, msg ...any) {
	t.Helper()
	if want != got {
		t.Fatalf("got %v, want %v %v", got, want, fmt.Sprint(msg...))
	}
}

func isTrue(t *testing.T, ok bool, msg ...any) {
	t.Helper()
	if !ok {
		t.Fatal(append([]any{"condition failed"}, msg...)...)
	}
}

// TestMemoryRetentionModel appends events of random sizes, some larger than
// a chunk, under bounds small enough that chunks and span blocks are dropped
// and reused many times, and checks after every few appends that the log
// keeps exactly the newest events the bounds allow, byte for byte.
func TestMemoryRetentionModel(t *testing.T) {
	for _, bounds := range []runlog.MemoryOptions{
		{MaxEvents: 700, MaxBytes: 1 << 30},
		{MaxEvents: 1 << 30, MaxBytes: 300 << 10},
		{MaxEvents: 1500, MaxBytes: 200 << 10},
	} {
		t.Run(fmt.Sprintf("events=%d,bytes=%d", bounds.MaxEvents, bounds.MaxBytes), func(t *testing.T) {
			l := runlog.NewMemory(bounds)
			w := start(t, l, "r")
			rng := rand.New(rand.NewPCG(1, 2))
			var all [][]byte
			for i := range 6000 {
				n := 1 + rng.IntN(300)
				if rng.IntN(500) == 0 {
					n = 70<<10 + rng.IntN(10<<10) // larger than a chunk
				}
				data := make([]byte, n)
				for j := range data {
					data[j] = byte(i + j)
				}
				seq, err := w.Append(data, false)
				noErr(t, err)
				equal(t, uint64(i+1), seq)
				all = append(all, data)
				if i%97 != 0 {
					continue
				}
				// The model: the newest events within both bounds, at least one.
				first, size := len(all), 0
				for first > 0 && len(all)-first < bounds.MaxEvents && (len(all)-first == 0 || size+len(all[first-1]) <= bounds.MaxBytes) {
					first--
					size += len(all[first])
				}
				info, err := l.Info(context.Background(), "r")
				noErr(t, err)
				equal(t, uint64(first+1), info.First, "after ", i+1, " events")
				got, err := readN(l, "r", info.First-1, len(all)-first)
				noErr(t, err)
				for k, e := range got {
					equal(t, info.First+uint64(k), e.Seq)
					isTrue(t, bytes.Equal(all[first+k], e.Data), "event ", e.Seq, " differs")
				}
			}
			noErr(t, w.Close())
		})
	}
}

// readN reads n entries of a live run after `after`.
func readN(l runlog.Log, runID string, after uint64, n int) ([]runlog.Entry, error) {
	var out []runlog.Entry
	for e, err := range l.Read(context.Background(), runID, after) {
		if err != nil {
			return out, err
		}
		if out = append(out, runlog.Entry{Seq: e.Seq, Data: bytes.Clone(e.Data), Terminal: e.Terminal}); len(out) == n {
			break
		}
	}
	return out, nil
}

// TestMemoryAppendAllocatesNothing: once a bounded run is full, appending
// reuses what retention freed.
func TestMemoryAppendAllocatesNothing(t *testing.T) {
	l := runlog.NewMemory(runlog.MemoryOptions{MaxEvents: 5000})
	w := start(t, l, "r")
	data := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hello, wor"}`)
	for range 20000 { // past the bound: chunks and blocks are being recycled
		_, _ = w.Append(data, false)
	}
	allocs := testing.AllocsPerRun(20000, func() { _, _ = w.Append(data, false) })
	equal(t, 0.0, allocs)
	noErr(t, w.Close())
}

// TestMemoryConcurrentReadersUnderRetention runs readers against a writer
// that keeps dropping and reusing chunks and span blocks: whatever a reader
// gets is the event of that sequence, byte for byte, in order with no gap,
// and a reader that fell behind retention gets ErrExpired and resumes from
// the oldest kept event. Run it with -race: appends write without the lock.
func TestMemoryConcurrentReadersUnderRetention(t *testing.T) {
	gen := func(seq uint64) []byte {
		b := make([]byte, 1+int(seq*7919%400))
		for i := range b {
			b[i] = byte(seq) + byte(i)
		}
		return b
	}
	const n = 20000
	l := runlog.NewMemory(runlog.MemoryOptions{MaxEvents: 600, MaxBytes: 100 << 10})
	w := start(t, l, "r")
	var wg sync.WaitGroup
	for k := range 6 {
		wg.Go(func() {
			after := uint64(0)
			if k%2 == 1 {
				info, err := l.Info(context.Background(), "r")
				if err != nil {
					t.Error(err)
					return
				}
				after = info.Last
			}
			for {
				next := after + 1
				for e, err := range l.Read(context.Background(), "r", after) {
					if errors.Is(err, runlog.ErrExpired) {
						info, ierr := l.Info(context.Background(), "r")
						if ierr != nil {
							t.Error(ierr)
							return
						}
						after = info.First - 1
						break
					}
					if err != nil {
						t.Error(err)
						return
					}
					if e.Seq != next || !bytes.Equal(e.Data, gen(e.Seq)) {
						t.Errorf("reader %d: got seq %d (%d bytes), want %d", k, e.Seq, len(e.Data), next)
						return
					}
					if e.Terminal {
						return
					}
					next, after = next+1, e.Seq
				}
			}
		})
	}
	// Probers read the oldest kept event over and over: the one a drop is
	// about to take away, where the layout and first must agree.
	written := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-written:
					return
				default:
				}
				info, err := l.Info(context.Background(), "r")
				if err != nil || info.Last == 0 {
					continue
				}
				for e, err := range l.Read(context.Background(), "r", info.First-1) {
					if err == nil && !bytes.Equal(e.Data, gen(e.Seq)) {
						t.Errorf("prober: seq %d has the wrong bytes", e.Seq)
					}
					break
				}
			}
		})
	}
	for seq := uint64(1); seq <= n; seq++ {
		if _, err := w.Append(gen(seq), seq == n); err != nil {
			t.Fatal(err)
		}
		if seq%1000 == 0 {
			time.Sleep(time.Millisecond) // let the readers catch up now and then
		}
	}
	close(written)
	wg.Wait()
	noErr(t, w.Close())
}

// A forgotten run's memory serves the runs that follow, and a reader still
// in the middle of the forgotten run never sees their bytes: it gets what it
// had already copied, then ErrExpired.
func TestMemoryForgottenRunReleasesItsMemory(t *testing.T) {
	l := runlog.NewMemory(runlog.MemoryOptions{MaxRuns: 1})
	write := func(runID, tag string, n int) {
		w := start(t, l, runID)
		for i := range n {
			_, err := w.Append(fmt.Appendf(nil, `{"run":%q,"n":%d}`, tag, i), i == n-1)
			noErr(t, err)
		}
		noErr(t, w.Close())
	}
	write("a", "a", 5000)

	next, stop := iter.Pull2(l.Read(context.Background(), "a", 0))
	defer stop()
	e, err, ok := next()
	isTrue(t, ok)
	noErr(t, err)
	equal(t, `{"run":"a","n":0}`, string(e.Data))

	write("b", "b", 5000) // its end evicts a: a's chunks go to the pools
	read := 1
	for {
		e, err, ok := next()
		isTrue(t, ok, "the read of a forgotten run ends with an error")
		if err != nil {
			isErr(t, err, runlog.ErrExpired)
			break
		}
		equal(t, fmt.Sprintf(`{"run":"a","n":%d}`, read), string(e.Data), "a reader of a forgotten run sees only its own bytes")
		read++
	}
	isTrue(t, read < 5000)
	_, err = collect(t, l, "a", 0)
	isErr(t, err, runlog.ErrExpired)

	all, err := collect(t, l, "b", 0)
	noErr(t, err)
	equal(t, len(all), 5000)
	for i, e := range all {
		equal(t, fmt.Sprintf(`{"run":"b","n":%d}`, i), string(e.Data))
	}
}
