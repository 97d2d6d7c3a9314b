package server

import (
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
// An idle writer waits on idleWriters for at most writerLinger, and at most
// maxIdleWriters wait at once, so a server that stops streaming is back to
// no writer goroutine within writerLinger, and a burst of streams ending
// together does not leave one per stream waiting.

// idleWriters is where a writer without work waits for a sink that has a
// batch for it; a handoff finds one only if one is waiting right then.
var idleWriters = make(chan *sseSink)

// idleCount is how many writers wait on idleWriters.
var idleCount atomic.Int32

const (
	// writerLinger is how long a writer waits for its next batch.
	writerLinger = 20 * time.Millisecond
	// maxIdleWriters bounds the writers waiting at once.
	maxIdleWriters = 16
)

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
	for {
		s.writeHandedOff()
		s = nil // an idle writer keeps no stream alive
		if idleCount.Add(1) > maxIdleWriters {
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
