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
	for _, s := range []struct {
		id    string
		n     uint8
		after uint64
		size  uint16
	}{
		{"r", 3, 0, 10}, {"", 1, 0, 0}, {"a.b.*>", 5, 2, 4200}, {string(make([]byte, 4200)), 2, 1, 4200},
		{"\xff\xfe", 1, 1, 1}, {"r", 0, 0, 0}, {"r", 4, 5, 33000}, {"r", 4, 1<<64 - 1, 1},
	} {
		f.Add(s.id, s.n, s.after, s.size)
	}
	f.Fuzz(func(t *testing.T, id string, n uint8, after uint64, size uint16) {
		logtest.IDAndCursor(t, runlog.NewMemory(runlog.MemoryOptions{}), id, int(n%16), after, int(size))
	})
}
