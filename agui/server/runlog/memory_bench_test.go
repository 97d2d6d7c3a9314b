package runlog_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// BenchmarkMemoryAppend is the memory log's own cost per event on the emit
// path, at steady state: a run past its retention bound, so every append
// also drops the oldest event and reuses what it freed. "mutex" is one
// sync.Mutex lock and unlock, the floor of any append a reader can see
// concurrently; what is above it is the copy and the bookkeeping.
func BenchmarkMemoryAppend(b *testing.B) {
	data := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello, wor"}`)
	b.Run("append", func(b *testing.B) {
		l := runlog.NewMemory(runlog.MemoryOptions{MaxEvents: 10_000})
		w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r"})
		if err != nil {
			b.Fatal(err)
		}
		for range 20_000 {
			_, _ = w.Append(data, false)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := w.Append(data, false); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		_ = w.Close()
	})
	b.Run("mutex", func(b *testing.B) {
		var mu sync.Mutex
		n := 0
		for range b.N {
			mu.Lock()
			n++
			mu.Unlock()
		}
		_ = n
	})
}
