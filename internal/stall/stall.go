// Package stall lets a test that bounds a latency tell a slow program from
// a busy machine: on a loaded two-core machine every goroutine can wait
// hundreds of milliseconds for a processor, and such a wait is not the
// latency the bound is there to catch.
package stall

import (
	"sync"
	"time"
)

// Probe measures, from its start until its stop function is called, how
// long this process was kept from running: a goroutine sleeps a millisecond
// at a time, and what it oversleeps beyond a small margin is time nothing of
// the process could run (a loaded machine) or every P was busy. A latency
// bound subtracts it: an idle wait in the code under test (what such a bound
// is there to catch) does not stall the probe.
func Probe() (stop func() time.Duration) {
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
