package server

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Writer goroutines are kept for a moment after their batch, so that the
// next batch, of this stream or another, is handed to one of them instead
// of to a new goroutine. A new goroutine starts with a small stack, and
// net/http's write path is deep enough to make it grow two or three times,
// each time copying it: on a busy loopback stream that copying was about a
// twentieth of the server's time. A kept writer has its stack grown already.
//
// Only a writer that has written at least a batch (writeBatch) in its life
// waits: a new one that wrote a run's RUN_STARTED or a few deltas ends as
// before, so servers whose streams are idle or slow keep no writer. An idle
// writer waits on idleWriters for at most writerLinger, and at most one per
// processor (GOMAXPROCS) waits at once, so a server that stops
// streaming is back to no writer goroutine within writerLinger, and a burst
// of streams ending together does not leave one per stream waiting: what
// waits is a few stacks for the process, not memory per run.

// idleWriters is where a writer without work waits for a sink that has a
// batch for it; a handoff finds one only if one is waiting right then.
var idleWriters = make(chan *sseSink)

// idleCount is how many writers wait on idleWriters.
var idleCount atomic.Int32

// writerLinger is how long a writer waits for its next batch. A var only so
// that a test can lengthen it (export_test.go); nothing else changes it.
var writerLinger = 20 * time.Millisecond

// handOff gives s's taken batch to a waiting writer, or to a new one.
// Called with e.mu held and pending counted for the writer.
func (s *sseSink) handOff() {
	select {
	case idleWriters <- s:
	default:
		go s.startWriter()
	}
}

// writeLoop is a writer goroutine: it drains s, then waits for the next sink
// to drain, until none comes within writerLinger.
func (s *sseSink) writeLoop() {
	var linger *time.Timer
	written := 0
	for {
		written += s.writeHandedOff()
		s = nil // an idle writer keeps no stream alive
		if written < writeBatch {
			// All it wrote is less than a batch (RUN_STARTED of a run
			// that then waits, a few deltas within the latency budget):
			// its stack has not grown much, and keeping it is not
			// worth the memory.
			return
		}
		if idleCount.Add(1) > int32(runtime.GOMAXPROCS(0)) {
			idleCount.Add(-1)
			return
		}
		if linger == nil {
			linger = time.NewTimer(writerLinger)
		} else {
			linger.Reset(writerLinger)
		}
		select {
		case s = <-idleWriters:
			idleCount.Add(-1)
		case <-linger.C:
			idleCount.Add(-1)
			return
		}
	}
}
