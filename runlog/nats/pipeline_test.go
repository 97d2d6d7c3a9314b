package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// newWindowLog is newLog with Options.Window.
func newWindowLog(t testing.TB, url string, window int) (*natslog.Log, *nats.Conn) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	// The tests here check what the window does, not how fast JetStream
	// answers: a generous request timeout keeps a thousand runs starting
	// at once on a starved machine from failing on an acknowledgement that
	// took more than the default 5s.
	l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: steadyLease, Memory: true, Window: window, RequestTimeout: steadyLease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); nc.Close() })
	return l, nc
}

// With a window, appends return before their batch is acknowledged, yet
// the log holds every event once, in order, numbered as Append said, and
// the terminal Append returns once all of it is in. The caller reuses its
// buffer between appends (Append copies). Two runs write at once, so that
// their batches interleave on the stream.
func TestWindowAppendRead(t *testing.T) {
	testWindowRuns(t, startNATS(t), 64, 2, 2000)
}

// 1,000 runs at once, each with a window out: no write is refused (issue
// 20: atomic batches, 50 in flight per stream by default, refused 5–15% of
// those of 100 runs), and every run lands whole, once, in order.
func TestWindowThousandRunsNoneRefused(t *testing.T) {
	testWindowRuns(t, startNATS(t), 64, 1000, 20)
}

// testWindowRuns writes runs runs of n events at once with the given
// window, then reads each back.
func testWindowRuns(t *testing.T, url string, window, runs, n int) {
	l, _ := newWindowLog(t, url, window)
	ctx := context.Background()
	var names []string
	for i := range runs {
		names = append(names, fmt.Sprint("w", i))
	}
	errs := make(chan error, runs)
	for _, run := range names {
		go func() {
			errs <- func() error {
				w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: run, Owner: "a"})
				if err != nil {
					return err
				}
				defer w.Close()
				if err := appendNumbered(w, run, n); err != nil {
					return err
				}
				if _, err := w.Append([]byte(`{}`), false); !errors.Is(err, runlog.ErrEnded) {
					return fmt.Errorf("%s: append after the end: %v", run, err)
				}
				return nil
			}()
		}()
	}
	for range runs {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		return
	}
	for _, run := range names {
		got, err := read(t, l, run, 0)
		if err != nil || len(got) != n {
			t.Fatalf("%s: %d entries, %v", run, len(got), err)
		}
		for i, e := range got {
			if e.Seq != uint64(i+1) || string(e.Data) != fmt.Sprintf(`{"n":%d}`, i+1) || e.Terminal != (i == n-1) {
				t.Fatalf("%s: entry %d: %d %s %v", run, i, e.Seq, e.Data, e.Terminal)
			}
		}
	}
}

// Another replica's end (here: the fence moved and a RUN_LOST published, as
// the lease watch does) makes the owner's next pipelined publish fail: its
// Append reports ErrLeaseLost, and nothing of the owner's lands after it.
func TestWindowLeaseLost(t *testing.T) {
	l, nc := newWindowLog(t, startNATS(t), 8)
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "taken", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Append([]byte(`{"n":1}`), false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, l, "taken", 1)
	info, err := l.Info(ctx, "taken")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	subject := natslog.EventSubject("taken")
	last, err := js.Stream(ctx, "AGUI_RUNLOG")
	if err != nil {
		t.Fatal(err)
	}
	lastMsg, err := last.GetLastMsgForSubject(ctx, subject)
	if err != nil {
		t.Fatal(err)
	}
	// As the lease watch does: the fence first, then the end.
	moveFence(t, nc, "taken")
	lost := nats.NewMsg(subject)
	lost.Header.Set("Agui-Seq", fmt.Sprint(info.Last+1))
	lost.Header.Set("Agui-Terminal", "1")
	lost.Data = runlog.LostEvent("taken over by the test")
	if _, err := js.PublishMsg(ctx, lost, jetstream.WithExpectLastSequencePerSubject(lastMsg.Sequence)); err != nil {
		t.Fatal(err)
	}
	var appendErr error
	for i := 2; i < 100 && appendErr == nil; i++ {
		_, appendErr = w.Append(fmt.Appendf(nil, `{"n":%d}`, i), i == 99)
	}
	if !errors.Is(appendErr, runlog.ErrLeaseLost) {
		t.Fatalf("the owner's appends after the takeover: %v", appendErr)
	}
	got, err := read(t, l, "taken", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got[1].Terminal || !strings.Contains(string(got[1].Data), "RUN_LOST") {
		t.Fatalf("the log after the takeover: %+v", got)
	}
}

// waitFor waits until the run's log holds seq (a queued append is in the
// log once its batch is acknowledged).
func waitFor(t *testing.T, l *natslog.Log, run string, seq uint64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) { // a hang guard
		if info, err := l.Info(context.Background(), run); err == nil && info.Last >= seq {
			return
		}
	}
	t.Fatalf("run %s never reached event %d", run, seq)
}

// A replica that takes a pipelined run moves the run's fence and then
// appends RUN_LOST; when it fails in between (a request timing out on a
// busy server), the owner, refused by the fence, must not delete its lease
// as it would for a run that ended: the lease expires and the lease watch
// ends the run. Deleting it left a run nobody ended and its readers
// waiting for good (the fault suite under -race).
func TestWindowTakenWithoutEndIsEnded(t *testing.T) {
	nc, err := nats.Connect(startNATS(t))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: 2 * time.Second, Memory: true, Window: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "half-taken", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append([]byte(`{"n":1}`), false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, l, "half-taken", 1)
	moveFence(t, nc, "half-taken") // and no end after it
	var appendErr error
	for i := 2; i < 100 && appendErr == nil; i++ {
		_, appendErr = w.Append(fmt.Appendf(nil, `{"n":%d}`, i), false)
	}
	if !errors.Is(appendErr, runlog.ErrLeaseLost) {
		t.Fatalf("the owner's appends after the fence moved: %v", appendErr)
	}
	w.Close()
	got, err := read(t, l, "half-taken", 0) // within its hang guard
	if err != nil {
		t.Fatalf("reading the run: %v (%d entries)", err, len(got))
	}
	if end := got[len(got)-1]; !end.Terminal || !strings.Contains(string(end.Data), "RUN_LOST") {
		t.Fatalf("the run ends %s", end.Data)
	}
}

// appendNumbered appends n events {"n":1} to {"n":n}, the last terminal,
// reusing one buffer (Append copies), and checks the numbers Append gives.
func appendNumbered(w runlog.Writer, run string, n int) error {
	buf := make([]byte, 0, 32)
	for i := 1; i <= n; i++ {
		buf = fmt.Appendf(buf[:0], `{"n":%d}`, i)
		if seq, err := w.Append(buf, i == n); err != nil || seq != uint64(i) {
			return fmt.Errorf("%s: append %d: seq %d, %v", run, i, seq, err)
		}
	}
	return nil
}

// moveFence moves a run's fence (default prefix), as a replica that takes
// the run does before it appends the run's end.
func moveFence(t *testing.T, nc *nats.Conn, run string) {
	t.Helper()
	ctx := context.Background()
	js, _ := jetstream.New(nc)
	st, err := js.Stream(ctx, "AGUI_RUNLOG")
	if err != nil {
		t.Fatal(err)
	}
	fence, err := st.GetLastMsgForSubject(ctx, natslog.FenceSubject(run))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, natslog.FenceSubject(run), nil, jetstream.WithExpectLastSequencePerSubject(fence.Sequence)); err != nil {
		t.Fatal(err)
	}
}
