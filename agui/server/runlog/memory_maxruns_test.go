package runlog_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// MaxRuns bounds the ended runs kept, not the live ones: with more runs in
// flight than MaxRuns, a run that just ended stays readable (its client
// reattaches to read the tail it missed) instead of being the one ended run
// the next Start forgets at once (issue 20: 28 of 372 cut runs lost their
// tail with 1,024 runs in flight). Past MaxRuns ended runs, the least
// recently used are forgotten as before.
func TestMemoryMaxRunsCountsEndedRuns(t *testing.T) {
	const maxRuns = 4
	l := runlog.NewMemory(runlog.MemoryOptions{MaxRuns: maxRuns})
	ctx := context.Background()
	var live []runlog.Writer
	for i := range 3 * maxRuns {
		w, err := l.Start(ctx, runlog.Info{RunID: fmt.Sprint("live", i)})
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, w)
	}
	end := func(w runlog.Writer) {
		t.Helper()
		if _, err := w.Append([]byte(`{"type":"RUN_FINISHED"}`), true); err != nil {
			t.Fatal(err)
		}
	}
	end(live[0])
	// Another run starts: the one that ended is still there.
	if _, err := l.Start(ctx, runlog.Info{RunID: "next"}); err != nil {
		t.Fatal(err)
	}
	if got, err := readN(l, "live0", 0, 1); err != nil || len(got) != 1 || !got[0].Terminal {
		t.Fatalf("the run that just ended, among %d live ones: %v %v", len(live)-1, got, err)
	}
	// End them all: MaxRuns ended runs stay, the oldest go.
	for _, w := range live[1:] {
		end(w)
	}
	if _, err := l.Start(ctx, runlog.Info{RunID: "last"}); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for i := range live {
		_, err := l.Info(ctx, fmt.Sprint("live", i))
		switch {
		case err == nil:
			kept++
		case !errors.Is(err, runlog.ErrExpired):
			t.Fatalf("live%d: %v", i, err)
		}
	}
	if kept != maxRuns {
		t.Fatalf("%d ended runs kept, want MaxRuns = %d", kept, maxRuns)
	}
	for _, i := range []int{len(live) - 1, len(live) - 2} { // the most recent
		if _, err := l.Info(ctx, fmt.Sprint("live", i)); err != nil {
			t.Fatalf("live%d, among the last to end, was forgotten: %v", i, err)
		}
	}
}
