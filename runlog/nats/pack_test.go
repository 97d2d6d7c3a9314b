package natslog_test

import (
	"context"
	"fmt"
	"math/bits"
	"testing"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// A pipelined run emitted faster than the log takes it is packed, several
// events a message (group commit), and a read from any cursor, one inside
// a packed message included, gets each event once, in order, numbered as
// Append said, from the message that holds it: the probes to find it stay
// within twice log2 of the stream's length. Another pipelined run writes
// at the same time, so that both runs' messages interleave on the stream.
func TestPackedRunReadFromAnywhere(t *testing.T) {
	const n = 5000
	l, _ := newWindowLog(t, startNATS(t), 512)
	ctx := context.Background()
	write := func(run string, n int) error {
		w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: run, Owner: "a"})
		if err != nil {
			return err
		}
		defer w.Close()
		return appendNumbered(w, run, n)
	}
	other := make(chan error, 1)
	go func() { other <- write("other", n) }()
	if err := write("packed", n); err != nil {
		t.Fatal(err)
	}
	if err := <-other; err != nil {
		t.Fatal(err)
	}

	before := l.Delivered()
	all, err := read(t, l, "packed", 0)
	if err != nil || len(all) != n {
		t.Fatalf("%d entries, %v", len(all), err)
	}
	messages := l.Delivered() - before
	t.Logf("%d events in %d messages", n, messages)
	if messages >= n {
		t.Fatalf("%d events in %d messages: nothing was packed", n, messages)
	}
	for _, after := range []uint64{0, 1, 2, 17, 999, 2500, 4001, n - 2, n - 1} {
		t.Run(fmt.Sprint("after ", after), func(t *testing.T) {
			probes := l.Probes()
			got, err := read(t, l, "packed", after)
			if err != nil {
				t.Fatal(err)
			}
			if want := n - int(after); len(got) != want {
				t.Fatalf("%d entries, want %d", len(got), want)
			}
			for i, e := range got {
				want := after + uint64(i) + 1
				if e.Seq != want || string(e.Data) != fmt.Sprintf(`{"n":%d}`, want) || e.Terminal != (want == n) {
					t.Fatalf("entry %d: seq %d %s %v, want %d", i, e.Seq, e.Data, e.Terminal, want)
				}
			}
			p := l.Probes() - probes
			if bound := uint64(2 * bits.Len64(2*messages)); p > bound {
				t.Fatalf("%d probes to find where to start in a stream of about %d messages (bound %d)", p, 2*messages, bound)
			}
		})
	}
}
