package threads_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/threads"
	"github.com/agui-go/sdk/agui/server/threads/threadstest"
)

// TestMemoryBounds: 1,000 threads of 10 runs each stay within every bound
// the store was given, after every run; a trimmed thread keeps its newest
// messages and counts what it dropped; the forgotten threads answer
// ErrExpired, others ErrNotFound.
func TestMemoryBounds(t *testing.T) {
	opts := threads.MemoryOptions{MaxThreads: 100, MaxMessages: 8, MaxBytes: 1200, MaxRuns: 5}
	s := threads.NewMemory(opts)
	for i := range 1000 {
		thread := fmt.Sprintf("t%04d", i)
		for n := range 10 {
			threadstest.RecordRun(t, s, thread, n, strings.Repeat("x", 10*n))
			st := s.Stats()
			if st.Threads > opts.MaxThreads || st.MaxMessages > opts.MaxMessages || st.MaxBytes > opts.MaxBytes {
				t.Fatalf("thread %s run %d: %+v is over the bounds %+v", thread, n, st, opts)
			}
		}
	}
	ctx := context.Background()
	for i := range 1000 {
		thread := fmt.Sprintf("t%04d", i)
		rec, err := s.Get(ctx, thread)
		if i < 900 {
			if !errors.Is(err, threads.ErrExpired) {
				t.Fatalf("%s: got %v, want ErrExpired", thread, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", thread, err)
		}
		if got, want := rec.Messages[len(rec.Messages)-1].MessageID(), thread+"-a9"; got != want {
			t.Errorf("%s: the newest message is %s, want %s", thread, got, want)
		}
		if rec.Messages[0].Role() == agui.RoleTool {
			t.Errorf("%s: a tool message leads", thread)
		}
		if rec.DroppedMessages+len(rec.Messages) != 20 || rec.DroppedMessages == 0 {
			t.Errorf("%s: %d kept and %d dropped of 20 messages", thread, len(rec.Messages), rec.DroppedMessages)
		}
		if len(rec.Runs) != 5 || rec.DroppedRuns != 5 || rec.Runs[4].RunID != thread+"-run-9" || rec.Ended != 10 {
			t.Errorf("%s: runs %d kept, %d dropped, %d ended", thread, len(rec.Runs), rec.DroppedRuns, rec.Ended)
		}
	}
	if _, err := s.Get(ctx, "never"); !errors.Is(err, threads.ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
}

// TestMemoryTTL: a thread nobody used for its TTL expires, unless it has a
// live run; using it keeps it.
func TestMemoryTTL(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	s := threads.NewMemory(threads.MemoryOptions{TTL: time.Hour, Now: func() time.Time { return now }})
	ctx := context.Background()
	threadstest.RecordRun(t, s, "idle", 0, "a")
	threadstest.RecordRun(t, s, "used", 0, "a")
	if err := s.Update(ctx, "live", func(r *threads.Record) { r.LiveRunID = "r" }); err != nil {
		t.Fatal(err)
	}
	now = now.Add(40 * time.Minute)
	if _, err := s.Get(ctx, "used"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(40 * time.Minute)
	if _, err := s.Get(ctx, "idle"); !errors.Is(err, threads.ErrExpired) {
		t.Fatalf("idle: got %v, want ErrExpired", err)
	}
	for _, id := range []string{"used", "live"} {
		if _, err := s.Get(ctx, id); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	// An expired thread that runs again starts afresh.
	threadstest.RecordRun(t, s, "idle", 1, "b")
	rec, err := s.Get(ctx, "idle")
	if err != nil || len(rec.Messages) != 2 || rec.Ended != 1 {
		t.Fatalf("got %+v, %v", rec, err)
	}
}

// TestMemoryRecordIsACopy: what Get returns does not change with the store,
// nor the store with it.
func TestMemoryRecordIsACopy(t *testing.T) {
	s := threads.NewMemory(threads.MemoryOptions{})
	ctx := context.Background()
	threadstest.RecordRun(t, s, "t", 0, "a")
	rec, _ := s.Get(ctx, "t")
	rec.Messages[0] = nil
	rec.Runs[0].RunID = "changed"
	threadstest.RecordRun(t, s, "t", 1, "b")
	again, _ := s.Get(ctx, "t")
	if again.Messages[0] == nil || again.Runs[0].RunID != "t-run-0" || len(rec.Messages) != 2 {
		t.Fatalf("the store and its records share: %+v", again)
	}
}
