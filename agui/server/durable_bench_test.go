package server

import (
	"context"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// benchDeltaAgent appends n text deltas, timing only the deltas.
func benchDeltaAgent(b *testing.B) Agent[NoState] {
	return Func(func(ctx context.Context, rc *Stateless) (Outcome, error) {
		m, err := rc.StartTextMessage(WithID("msg-1"))
		if err != nil {
			return Outcome{}, err
		}
		b.ResetTimer()
		for range b.N {
			if err := m.Append("Hello, wor"); err != nil {
				return Outcome{}, err
			}
		}
		b.StopTimer()
		return Success(), m.End()
	})
}

// BenchmarkEmitRunLog is the cost the memory run log adds to the emit path
// of a text delta: "plain" streams each encoded event to a function that
// drops it (the baseline), "memorylog" appends it to a memory run log with
// its default bounds instead (past 100 000 events the oldest are dropped,
// so a long benchmark measures the steady state). The difference of the two, from the same run, is the log's cost.
func BenchmarkEmitRunLog(b *testing.B) {
	input := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		err := NewRunner(context.Background(), benchDeltaAgent(b), input).
			Stream(func(_ agui.Event, data []byte) error { n += len(data); return nil })
		if err != nil {
			b.Fatal(err)
		}
	})
	b.Run("memorylog", func(b *testing.B) {
		b.ReportAllocs()
		l := runlog.NewMemory(runlog.MemoryOptions{})
		w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r"})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		if err := NewRunner(context.Background(), benchDeltaAgent(b), input).streamToLog(w); err != nil {
			b.Fatal(err)
		}
	})
}
