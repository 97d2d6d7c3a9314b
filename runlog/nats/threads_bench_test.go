package natslog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/threads"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// BenchmarkThreads sets the NATS store's Update and Get beside the memory
// store's, in the same run, on a thread of 40 messages (about 8 KiB of
// JSON, a short conversation) and 20 runs: an Update appends a message
// (the oldest goes, MaxMessages 40) and records a run, as a run's end does;
// a Get reads the record. The ratio of nats to memory is the figure to
// read: the NATS store pays a round trip to nats-server per Get and two
// per Update (read, revision-checked write) and the record's JSON both
// ways, where the memory store copies slices under a mutex.
func BenchmarkThreads(b *testing.B) {
	url := startNATS(b)
	bounds := threads.Bounds{MaxMessages: 40, MaxRuns: 20}
	stores := []struct {
		name string
		s    threads.Store
	}{
		{"memory", threads.NewMemory(threads.MemoryOptions{MaxMessages: bounds.MaxMessages, MaxRuns: bounds.MaxRuns})},
		{"nats", newThreads(b, url, natslog.ThreadsOptions{Memory: true, Bounds: bounds})},
	}
	ctx := context.Background()
	reply := strings.Repeat("word ", 40)
	update := func(s threads.Store, i int) error {
		return s.Update(ctx, "t", func(r *threads.Record) {
			r.Messages = append(r.Messages, &agui.AssistantMessage{ID: fmt.Sprintf("m%d", i), Content: &reply})
			r.Runs = append(r.Runs, threads.Run{RunID: fmt.Sprintf("r%d", i), Outcome: threads.OutcomeSucceeded})
			r.Ended++
		})
	}
	for _, st := range stores {
		for i := range 60 { // past the bounds: the thread is full
			if err := update(st.s, -i); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(st.name+"/update", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := update(st.s, i); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(st.name+"/get", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := st.s.Get(ctx, "t"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
