package runlog

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestMemoryReadersGivingUp: readers that give up waiting on an idle run
// take themselves off its waiting list, however many come and go, and a
// reader that stays is signalled by the next append.
func TestMemoryReadersGivingUp(t *testing.T) {
	l := NewMemory(MemoryOptions{})
	w, err := l.Start(context.Background(), Info{ThreadID: "t", RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	r := w.(*memRun)
	waiting := func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.waiters)
	}
	for range 50 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			for _, err := range l.Read(ctx, "r", 0) {
				done <- err
				return
			}
		}()
		for waiting() == 0 {
			time.Sleep(50 * time.Microsecond)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		if n := waiting(); n != 0 {
			t.Fatalf("%d waiters left behind by a reader that gave up", n)
		}
	}
	got := make(chan Entry, 1)
	go func() {
		for e := range l.Read(context.Background(), "r", 0) {
			got <- e
			return
		}
	}()
	for waiting() == 0 {
		time.Sleep(50 * time.Microsecond)
	}
	if _, err := w.Append([]byte("x"), false); err != nil {
		t.Fatal(err)
	}
	if e := <-got; string(e.Data) != "x" || e.Seq != 1 {
		t.Fatalf("got %+v", e)
	}
	if n := waiting(); n != 0 {
		t.Fatalf("%d waiters left after the append signalled them", n)
	}
	_ = w.Close()
}
