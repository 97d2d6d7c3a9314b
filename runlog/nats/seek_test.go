package natslog_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// A resume reads from the event asked for, not from the run's start: after
// 10,000 events, a read after 9,990 receives 10 messages from JetStream.
// Another run appends between this run's events, so that the run's stream
// sequences have holes, as they do on a log many runs share.
func TestReadStartsAtCursor(t *testing.T) {
	const n = 10_000
	l, _ := newLog(t, startNATS(t), steadyLease)
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "long", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	other, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "other", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	buf := make([]byte, 0, 32)
	for i := 1; i <= n; i++ {
		buf = fmt.Appendf(buf[:0], `{"n":%d}`, i)
		if _, err := w.Append(buf, i == n); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 { // holes of irregular size
			for range i % 7 {
				if _, err := other.Append([]byte(`{}`), false); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, after := range []uint64{0, 1, 2, 5000, 9990, 9999} {
		t.Run(fmt.Sprint("after ", after), func(t *testing.T) {
			before, probes := l.Delivered(), l.Probes()
			got, err := read(t, l, "long", after)
			if err != nil {
				t.Fatal(err)
			}
			if want := n - int(after); len(got) != want {
				t.Fatalf("%d entries, want %d", len(got), want)
			}
			for i, e := range got {
				if want := after + uint64(i) + 1; e.Seq != want || string(e.Data) != fmt.Sprintf(`{"n":%d}`, want) {
					t.Fatalf("entry %d: seq %d %s, want %d", i, e.Seq, e.Data, want)
				}
			}
			if !got[len(got)-1].Terminal {
				t.Fatal("the last entry is not terminal")
			}
			if d := l.Delivered() - before; d != uint64(len(got)) {
				t.Fatalf("JetStream delivered %d messages for %d entries", d, len(got))
			}
			// The stream holds about 20,000 messages: a bisection needs 15.
			p := l.Probes() - probes
			t.Logf("%d probes to find where to start", p)
			if p > 16 {
				t.Fatalf("%d probes to find where to start", p)
			}
		})
	}
}

// A run that had the stream to itself is found by one probe, wherever the
// read starts.
func TestSeekAloneOneProbe(t *testing.T) {
	l, _ := newLog(t, startNATS(t), steadyLease)
	w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "alone", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 1; i <= 100; i++ {
		if _, err := w.Append(fmt.Appendf(nil, `{"n":%d}`, i), i == 100); err != nil {
			t.Fatal(err)
		}
	}
	for _, after := range []uint64{1, 50, 98} {
		probes := l.Probes()
		got, err := read(t, l, "alone", after)
		if err != nil || len(got) != int(100-after) || got[0].Seq != after+1 {
			t.Fatalf("after %d: %d entries, %v", after, len(got), err)
		}
		if p := l.Probes() - probes; p != 1 {
			t.Fatalf("after %d: %d probes", after, p)
		}
	}
}
