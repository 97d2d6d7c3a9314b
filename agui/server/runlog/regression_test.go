package runlog_test

import (
	"context"
	"testing"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// Events between a chunk's first size and its largest that do not fit the
// current chunk once made the allocator ask its pools for a size class of
// -1: a panic in the run goroutine, and the process gone (issue 20). Every
// size around the class boundaries, twice and after a small one, must be
// stored and read back whole.
func TestAppendEventsOfEverySizeAroundTheChunkClasses(t *testing.T) {
	sizes := []int{1, 100, 4095, 4096, 4097, 4200, 8191, 8192, 8193, 9000, 16 << 10, 16<<10 + 1, 32<<10 - 1, 32 << 10, 40 << 10, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200 << 10}
	for _, first := range sizes {
		for _, second := range sizes {
			l := runlog.NewMemory(runlog.MemoryOptions{})
			w, err := l.Start(context.Background(), runlog.Info{RunID: "r"})
			if err != nil {
				t.Fatal(err)
			}
			events := [][]byte{make([]byte, 10), make([]byte, first), make([]byte, second), make([]byte, second), make([]byte, first)}
			for i, ev := range events {
				for j := range ev {
					ev[j] = byte(i + j)
				}
				if _, err := w.Append(ev, false); err != nil {
					t.Fatalf("%d then %d: append %d: %v", first, second, i, err)
				}
			}
			got, err := readN(l, "r", 0, len(events))
			if err != nil || len(got) != len(events) {
				t.Fatalf("%d then %d: read %d events: %v", first, second, len(got), err)
			}
			for i, e := range got {
				if e.Seq != uint64(i+1) || string(e.Data) != string(events[i]) {
					t.Fatalf("%d then %d: event %d came back as seq %d, %d bytes; want %d bytes", first, second, i, e.Seq, len(e.Data), len(events[i]))
				}
			}
			w.Close()
		}
	}
}
