// Package logtest holds checks that every run log must pass, shared by the
// tests of the memory log and of the logs in other modules.
package logtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// AddSeeds adds the seed corpus of the fuzz targets built on IDAndCursor,
// whose arguments are (id string, n uint8, after uint64, size uint16): ids
// empty, of subject separators, of 4,200 bytes (the run id of the chunk
// allocator's crash) and not UTF-8; cursors at, past and far past the end;
// events around the chunk sizes.
func AddSeeds(f *testing.F) {
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
}

// IDAndCursor starts a run of id on l, appends n events of size bytes (the
// last one terminal; none: Close ends the run), and reads it after the
// cursor: the events after it in order, or ErrFuture past the end. An id
// the log refuses at Start (empty, not UTF-8) ends the check. It is the
// body of the fuzz targets of every log.
func IDAndCursor(t testing.TB, l runlog.Log, id string, n int, after uint64, size int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a hang guard
	defer cancel()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: id, Owner: "o"})
	if err != nil {
		if id == "" || errors.Is(err, runlog.ErrExists) {
			return
		}
		t.Logf("Start refused id %q: %v", id, err)
		return
	}
	data := make([]byte, size)
	for i := range n {
		copy(data, fmt.Sprint(i))
		if _, err := w.Append(data, i == n-1); err != nil {
			t.Fatalf("append %d of %d (%d bytes): %v", i+1, n, size, err)
		}
	}
	_ = w.Close() // n == 0: the log ends the run itself (RUN_LOST)
	info, err := l.Info(ctx, id)
	if err != nil || !info.Ended || info.RunID != id {
		t.Fatalf("info %+v, %v", info, err)
	}
	var got []runlog.Entry
	for e, err := range l.Read(ctx, id, after) {
		if err != nil {
			if after > info.Last && errors.Is(err, runlog.ErrFuture) {
				return
			}
			t.Fatalf("read after %d of %d: %v", after, info.Last, err)
		}
		e.Data = bytes.Clone(e.Data) // valid until the read goes on
		got = append(got, e)
	}
	if after > info.Last {
		t.Fatalf("read after %d of %d: no error", after, info.Last)
	}
	if want := int(info.Last - after); len(got) != want {
		t.Fatalf("read after %d: %d entries, want %d", after, len(got), want)
	}
	for i, e := range got {
		if e.Seq != after+uint64(i)+1 || e.Terminal != (e.Seq == info.Last) {
			t.Fatalf("entry %d: seq %d terminal %v (last %d)", i, e.Seq, e.Terminal, info.Last)
		}
	}
}
