package natslog_test

import (
	"fmt"
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
