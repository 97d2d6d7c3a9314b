package server_test

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// A test that bounds a latency (a cancellation reaching the agent within
// 100ms, say) cannot tell a slow server from a machine too busy to run it:
// on a loaded two-core machine every goroutine can wait hundreds of
// milliseconds for a processor. schedProbe measures that wait, so that such
// a test fails only on the time the scheduler does not account for.
//
// The probe is a goroutine that sleeps a millisecond at a time and records
// each sleep: what a sleep lasted beyond its millisecond is time the process
// could not run a goroutine that was ready. A server whose latency comes from
// its own logic (a poll, a forgotten wake-up, a timer it waits for) loses
// that time with an idle probe beside it, and still fails.
type schedProbe struct {
	mu    sync.Mutex
	ticks []probeTick
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// probeTick is one sleep of the probe, from before it to after it.
type probeTick struct{ from, to time.Time }

const probeSleep = time.Millisecond

// startProbe starts a probe, stopped when t ends.
func startProbe(t testing.TB) *schedProbe {
	p := &schedProbe{stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	t.Cleanup(p.end)
	return p
}

func (p *schedProbe) run() {
	defer close(p.done)
	timer := time.NewTimer(probeSleep)
	defer timer.Stop()
	for {
		from := time.Now()
		timer.Reset(probeSleep)
		select {
		case <-p.stop:
			return
		case <-timer.C:
		}
		to := time.Now()
		p.mu.Lock()
		p.ticks = append(p.ticks, probeTick{from, to})
		p.mu.Unlock()
	}
}

func (p *schedProbe) end() {
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

// lost is how long the scheduler kept the probe from running during the
// window [from, to]: the sum of its sleeps' overruns, over every sleep that
// overlaps the window. It waits for the sleep under way at to to end, so
// that a stall the window ends in counts whole.
func (p *schedProbe) lost(from, to time.Time) time.Duration {
	for deadline := time.Now().Add(giveUp); ; time.Sleep(probeSleep) {
		p.mu.Lock()
		n := len(p.ticks)
		caughtUp := n > 0 && !p.ticks[n-1].to.Before(to)
		p.mu.Unlock()
		if caughtUp || time.Now().After(deadline) {
			break
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var lost time.Duration
	for _, tk := range p.ticks {
		if tk.to.Before(from) || tk.from.After(to) {
			continue
		}
		if over := tk.to.Sub(tk.from) - probeSleep; over > 0 {
			lost += over
		}
	}
	return lost
}

// withinBound checks that what, which took took from from, came within
// bound once the time the probe lost meanwhile is taken off; it reports the
// excuse in the log when only the lost time put it over.
func (p *schedProbe) withinBound(t testing.TB, what string, from time.Time, took, bound time.Duration) {
	t.Helper()
	p.withinBoundDuring(t, what, took, bound, from, from.Add(took))
}

// withinBoundDuring is withinBound for a took measured somewhere in the
// window [from, to] (the worst of many, say): the time the probe lost
// over the whole window is taken off.
func (p *schedProbe) withinBoundDuring(t testing.TB, what string, took, bound time.Duration, from, to time.Time) {
	t.Helper()
	if took <= bound {
		return
	}
	lost := p.lost(from, to)
	if took-lost > bound {
		t.Errorf("%s took %v, over the %v bound, and the scheduler accounts for only %v of it", what, took, bound, lost)
		return
	}
	t.Logf("%s took %v, over the %v bound, but the machine was busy: the scheduler kept a ready goroutine waiting %v meanwhile", what, took, bound, lost)
}

// settle waits until every goroutine but the ones ignore names has ended,
// for up to within and then giveUp more, and fails the test if some are left.
// goleak.VerifyNone alone waits about half a second, less than some tests'
// goroutines are meant to live (writers lingering for a batch) and less
// than a loaded machine may take to let goroutines run their last lines.
func settle(t testing.TB, within time.Duration, ignore ...goleak.Option) {
	t.Helper()
	deadline := time.Now().Add(within + giveUp)
	for {
		err := goleak.Find(ignore...)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines still running %v after they should have ended: %v", within+giveUp, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
