package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// An outage longer than MaxOutage: the owner's Append fails with
// ErrUnavailable once MaxOutage is over, and Close returns at once; once
// NATS is back, the owner itself ends the run with RUN_LOG_UNAVAILABLE (not
// a lease story: the owner was alive all along), numbered after the last
// event, and a read then gets the whole log and that end. The append given
// up on sat in nats.go's reconnect buffer and lands when the connection is
// back, numbered as the end would have been: the end goes after it (it
// once took that append for its own end, and the run never ended).
func TestOutageLongerThanMaxOutage(t *testing.T) {
	const maxOutage = time.Second
	r, l, w := outageRun(t, natslog.Options{Lease: time.Second, MaxOutage: maxOutage, Window: -1})
	nc := r.nc
	for range 3 {
		if _, err := w.Append([]byte(`{"type":"X"}`), false); err != nil {
			t.Fatal(err)
		}
	}
	r.stop()
	waitUntil(t, func() bool { return nc.Status() == nats.RECONNECTING })
	t0 := time.Now()
	_, err := w.Append([]byte(`{"type":"X"}`), false)
	if !errors.Is(err, runlog.ErrUnavailable) {
		t.Fatalf("an append through an outage: %v, want ErrUnavailable", err)
	}
	if took := time.Since(t0); took < maxOutage {
		t.Fatalf("the append gave up after %v, before MaxOutage %v", took, maxOutage)
	}
	closed := make(chan struct{})
	go func() { w.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("Close waits for the log")
	}
	time.Sleep(3 * maxOutage) // the outage goes on
	r.start()
	waitUntil(t, nc.IsConnected)
	var all []runlog.Entry
	waitUntil(t, func() bool {
		info, err := l.Info(context.Background(), "r")
		return err == nil && info.Ended
	})
	all, err = read(t, l, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	last := all[len(all)-1]
	if n := len(all); !last.Terminal || last.Seq != uint64(n) || !strings.Contains(string(last.Data), `"code":"RUN_LOG_UNAVAILABLE"`) {
		t.Fatalf("%d entries, the last %d %s", n, last.Seq, last.Data)
	}
	if n := len(all); n != 5 || all[3].Terminal || string(all[3].Data) != `{"type":"X"}` {
		t.Fatalf("%d entries, want the three, the one given up on and the end", n)
	}
}

// Pipelined appends (Options.Window) through an outage shorter than
// MaxOutage: publishes fail or go unanswered while NATS is away, the pipe
// publishes again from the first that failed, in order, and the log may
// then hold some events twice, or one out of place; readers, the one that
// follows the run through the outage and one from the start after it, still
// get every event once, in order, and the one end.
func TestWindowOutageRepaired(t *testing.T) {
	r, l, w := outageRun(t, natslog.Options{Lease: steadyLease, Window: 16})
	const n = 3000
	appended := make(chan error, 1)
	half := make(chan struct{})
	go func() {
		appended <- func() error {
			defer w.Close()
			for i := 1; i <= n; i++ {
				if i == n/2 {
					close(half)
				}
				if _, err := w.Append(fmt.Appendf(nil, `{"n":%d}`, i), i == n); err != nil {
					return fmt.Errorf("append %d: %w", i, err)
				}
			}
			return nil
		}()
	}()
	followed := make(chan []runlog.Entry, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
		defer cancel()
		var got []runlog.Entry
		for e, err := range l.Read(ctx, "r", 0) {
			if err != nil {
				break
			}
			got = append(got, e)
		}
		followed <- got
	}()
	<-half
	r.stop()
	// Longer than an acknowledgement is waited for (5s): the publishes
	// out fail, and the pipe repairs.
	time.Sleep(6 * time.Second)
	r.start()
	if err := <-appended; err != nil {
		t.Fatal(err)
	}
	check := func(who string, got []runlog.Entry) {
		t.Helper()
		if len(got) != n {
			t.Fatalf("%s got %d events, want %d", who, len(got), n)
		}
		for i, e := range got {
			if e.Seq != uint64(i+1) || string(e.Data) != fmt.Sprintf(`{"n":%d}`, i+1) || e.Terminal != (i == n-1) {
				t.Fatalf("%s: entry %d is %d %s %v", who, i, e.Seq, e.Data, e.Terminal)
			}
		}
	}
	check("the follower", <-followed)
	all, err := read(t, l, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	check("a read after", all)
	t.Logf("the two reads received %d messages for their 2×%d events (more: repairs)", l.Delivered(), n)
}

// A pipelined run (Options.Window) through an outage longer than MaxOutage:
// its appends fail with ErrUnavailable, and once NATS is back its owner
// ends it with RUN_LOG_UNAVAILABLE, after every event that landed. Copies
// of earlier events that nats.go still held (in its reconnect buffer, or
// to send again on "no responders") once landed after that end, and the run
// looked live for good; the owner now moves the run's fence before its
// end, so they are refused.
func TestWindowOutageLongerThanMaxOutage(t *testing.T) {
	r, l, w := outageRun(t, natslog.Options{Lease: time.Second, MaxOutage: 2 * time.Second, Window: 16})
	nc := r.nc
	stopped := make(chan error, 1)
	go func() {
		var err error
		for i := 1; err == nil; i++ {
			_, err = w.Append(fmt.Appendf(nil, `{"n":%d}`, i), false)
			time.Sleep(100 * time.Microsecond)
		}
		w.Close()
		stopped <- err
	}()
	time.Sleep(300 * time.Millisecond)
	r.stop()
	if err := <-stopped; !errors.Is(err, runlog.ErrUnavailable) {
		t.Fatalf("appends through the outage ended with %v, want ErrUnavailable", err)
	}
	time.Sleep(2 * time.Second) // the outage goes on
	r.start()
	waitUntil(t, nc.IsConnected)
	waitUntil(t, func() bool {
		info, err := l.Info(context.Background(), "r")
		return err == nil && info.Ended
	})
	all, err := read(t, l, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range all {
		if e.Seq != uint64(i+1) || e.Terminal != (i == len(all)-1) {
			t.Fatalf("entry %d of %d: seq %d terminal %v", i, len(all), e.Seq, e.Terminal)
		}
	}
	if last := all[len(all)-1]; !strings.Contains(string(last.Data), `"code":"RUN_LOG_UNAVAILABLE"`) {
		t.Fatalf("the end: %s", last.Data)
	}
	if info, err := l.Info(context.Background(), "r"); err != nil || info.Last != uint64(len(all)) {
		t.Fatalf("info %+v, %v; %d entries", info, err, len(all))
	}
}

// outageRun opens a log with opts on a NATS server the test can stop and
// start again (newRestartable), and starts run "r" on it; the log closes
// when the test ends.
func outageRun(t *testing.T, opts natslog.Options) (*restartable, *natslog.Log, runlog.Writer) {
	t.Helper()
	r := newRestartable(t)
	l, err := natslog.New(context.Background(), r.nc, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	return r, l, w
}
