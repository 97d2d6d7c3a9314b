package runlog_test

import (
	"testing"

	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/internal/logtest"
)

// FuzzMemoryIDsAndCursors starts a run of any id, appends n events, and
// reads it from any cursor: the log answers with the events after the
// cursor in order, ErrFuture past the end, or refuses the id at Start,
// and never panics or hangs (issue 20's crash was one request away).
func FuzzMemoryIDsAndCursors(f *testing.F) {
	logtest.AddSeeds(f)
	f.Fuzz(func(t *testing.T, id string, n uint8, after uint64, size uint16) {
		logtest.IDAndCursor(t, runlog.NewMemory(runlog.MemoryOptions{}), id, int(n%16), after, int(size))
	})
}
