package natslog_test

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// steadyLease is the lease of tests in which no owner dies: it only has to
// outlast any stall of a loaded machine, so that no run is ended as lost
// while its owner is alive but was not scheduled. It costs nothing: a run
// that ends releases its lease at once.
const steadyLease = 30 * time.Second

// scaled runs attempt, as a subtest, with the test's durations (leases,
// TTLs) multiplied by k = 1, then 4, then 16 while the attempt reports that
// the machine was too slow for them: a lease lapsed, or a TTL passed, because
// the test itself was not scheduled in time, which no duration can rule out
// on a loaded machine. A real failure fails the attempt (and the test) at
// once; a slow report is only logged, unless the largest scale is slow too.
// On an idle machine the first attempt is the only one, so the test takes
// no longer than it did with fixed durations.
func scaled(t *testing.T, attempt func(t *testing.T, k time.Duration) (slow string)) {
	t.Helper()
	for _, k := range []time.Duration{1, 4, 16} {
		var slow string
		if !t.Run(fmt.Sprintf("x%d", k), func(t *testing.T) { slow = attempt(t, k) }) {
			return
		}
		if slow == "" {
			return
		}
		t.Logf("at %d× its durations: %s; again at a larger scale", k, slow)
	}
	t.Fatal("the machine was too slow for the test even at 16× its durations")
}

// stallProbe measures, from its start until its stop function is called,
// how long this process was kept from running: a goroutine sleeps a
// millisecond at a time, and what it oversleeps beyond a small margin is
// time nothing of the process could run (a loaded machine) or every P was
// busy. A test that bounds a latency subtracts it: an idle wait in the code
// under test (the bug such a bound catches) does not stall the probe.
func stallProbe() (stop func() time.Duration) {
	const tick, margin = time.Millisecond, 2 * time.Millisecond
	done := make(chan struct{})
	type span struct{ from, to time.Time }
	var stalls []span
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(tick)
			if t1 := time.Now(); t1.Sub(t0)-tick > margin {
				stalls = append(stalls, span{t0.Add(tick), t1})
			}
		}
	})
	return func() time.Duration {
		end := time.Now()
		close(done)
		wg.Wait()
		var stalled time.Duration
		for _, s := range stalls { // the last may run past the end
			if s.to.After(end) {
				s.to = end
			}
			stalled += max(s.to.Sub(s.from), 0)
		}
		return stalled
	}
}
