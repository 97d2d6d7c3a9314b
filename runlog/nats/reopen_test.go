package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// appendN appends events from..to (the last one terminal when end is set)
// and fails the test on any error.
func appendN(t *testing.T, w runlog.Writer, from, to int, end bool) {
	t.Helper()
	for i := from; i <= to; i++ {
		if _, err := w.Append(fmt.Appendf(nil, `{"n":%d}`, i), end && i == to); err != nil {
			t.Errorf("append %d: %v", i, err)
			return
		}
	}
}

// seqs is the numbers of entries, in order.
func seqs(entries []runlog.Entry) []uint64 {
	out := make([]uint64, len(entries))
	for i, e := range entries {
		out[i] = e.Seq
	}
	return out
}

// checkSeqs fails the test unless entries are numbered from..to, each once,
// in order, with only the last one terminal.
func checkSeqs(t *testing.T, entries []runlog.Entry, from, to uint64) {
	t.Helper()
	ok := len(entries) == int(to-from+1)
	for i, e := range entries {
		if e.Seq != from+uint64(i) || e.Terminal != (e.Seq == to) {
			ok = false
		}
	}
	if !ok {
		t.Fatalf("read events %v, want %d to %d", seqs(entries), from, to)
	}
}

// A read whose consumer could not be made follows again from where the run
// was when it asked. Events the writer appended between that question and
// the new consumer are read, not started past (CI once saw a run's stream
// skip eight events so, then end with its terminal event past the hole).
func TestReopenReadsWhatCameWhileItAsked(t *testing.T) {
	l, _ := newLog(t, startNATS(t), steadyLease)
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	appendN(t, w, 1, 15, false)
	var opens, behinds int
	natslog.SetReadHooks(l, natslog.ReadHooks{
		BeforeOpen: func(*uint64) error {
			if opens++; opens == 1 {
				return errors.New("a consumer request that timed out")
			}
			return nil
		},
		AfterBehind: func() {
			if behinds++; behinds == 1 {
				appendN(t, w, 16, 23, false) // while the read finds its place
			}
		},
		AfterOpen: func() {
			if opens == 2 {
				appendN(t, w, 24, 24, true) // once the new consumer follows
			}
		},
	})
	got, err := read(t, l, "r", 15)
	if err != nil {
		t.Fatal(err)
	}
	checkSeqs(t, got, 16, 24)
	if opens != 2 || behinds != 1 {
		t.Fatalf("%d opens and %d looks at the stream, want 2 and 1", opens, behinds)
	}
}

// A terminal event that arrives past a hole is believed only by a read of
// every message the run kept: a consumer that started too far on (here
// moved there on purpose) reads the run again from its first message and
// gets every event before the end.
func TestTerminalPastAHoleIsCheckedAgainstTheWholeRun(t *testing.T) {
	l, nc := newLog(t, startNATS(t), steadyLease)
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	appendN(t, w, 1, 10, true)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, "AGUI_RUNLOG")
	if err != nil {
		t.Fatal(err)
	}
	end, err := s.GetLastMsgForSubject(ctx, natslog.EventSubject("r"))
	if err != nil {
		t.Fatal(err)
	}
	var opens int
	natslog.SetReadHooks(l, natslog.ReadHooks{BeforeOpen: func(start *uint64) error {
		if opens++; opens == 1 {
			*start = end.Sequence // past events 4 to 9
		}
		return nil
	}})
	got, err := read(t, l, "r", 3)
	if err != nil {
		t.Fatal(err)
	}
	checkSeqs(t, got, 4, 10)
	if opens != 2 {
		t.Fatalf("%d consumers made, want 2 (the one misplaced, then one from the start)", opens)
	}
}

// A run whose owner went before it appended some of its events ends with a
// terminal event past the hole, appended by another replica; a read of the
// whole run takes that end, and does not wait for events that never come.
func TestTerminalPastARealHoleEndsTheRead(t *testing.T) {
	l, nc := newLog(t, startNATS(t), steadyLease)
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	appendN(t, w, 1, 3, false)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// The end as a replica writes it for a run it found lost, two events
	// on from the last the owner appended (as if 4 and 5 never landed).
	msg := nats.NewMsg(natslog.EventSubject("r"))
	msg.Header.Set("Agui-Seq", "6")
	msg.Header.Set("Agui-Terminal", "1")
	msg.Header.Set("Agui-Writer", "another-replica.1")
	msg.Data = []byte(`{"lost":true}`)
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, time.Minute) // a hang guard
	defer cancel()
	var got []runlog.Entry
	for e, err := range l.Read(rctx, "r", 1) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if fmt.Sprint(seqs(got)) != "[2 3 6]" || !got[2].Terminal {
		t.Fatalf("read %v, want 2, 3 and the terminal 6", seqs(got))
	}
}
