package server

import (
	"context"
	"sync"
)

// bodyBudget bounds the bytes of request bodies that a handler reads and
// decodes at the same time. A body is held twice while it is decoded (the
// bytes and the decoded input), so without a bound sixteen 10 MiB bodies
// arriving together take over 300 MB at once, whatever the run cap. A body
// takes its announced size (Content-Length, or the body limit when it
// announced none) from the budget before it is read and gives it back once it
// is decoded; a body that does not fit waits, in arrival order, until enough
// comes back.
//
// It is a weighted semaphore with first-come, first-served waiting, so a large
// body is not starved by a stream of small ones.
type bodyBudget struct {
	mu      sync.Mutex
	size    int64 // the whole budget
	avail   int64
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed when the bytes are granted
}

func newBodyBudget(size int64) *bodyBudget {
	return &bodyBudget{size: size, avail: size}
}

// acquire takes n bytes, waiting until they are free or ctx is done. n is cut
// to the whole budget, so a body larger than the budget still runs (alone).
// It returns the bytes taken, to give back with release, or ctx's error.
func (b *bodyBudget) acquire(ctx context.Context, n int64) (int64, error) {
	n = min(n, b.size)
	b.mu.Lock()
	if len(b.waiters) == 0 && b.avail >= n {
		b.avail -= n
		b.mu.Unlock()
		return n, nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()

	select {
	case <-w.ready:
		return n, nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	select {
	case <-w.ready:
		// Granted while ctx ended: hand the bytes on.
		b.avail += n
	default:
		for i, x := range b.waiters {
			if x == w {
				b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
				break
			}
		}
	}
	// Leaving (or giving back) may let the waiters behind this one in.
	b.grant()
	b.mu.Unlock()
	return 0, context.Cause(ctx)
}

// release gives back n bytes taken by acquire.
func (b *bodyBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.avail += n
	b.grant()
	b.mu.Unlock()
}

// grant wakes the waiters at the head of the queue that now fit. Called with
// mu held.
func (b *bodyBudget) grant() {
	for len(b.waiters) > 0 && b.waiters[0].n <= b.avail {
		w := b.waiters[0]
		b.waiters[0] = nil
		b.waiters = b.waiters[1:]
		b.avail -= w.n
		close(w.ready)
	}
}
