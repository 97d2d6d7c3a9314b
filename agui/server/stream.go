package server

import (
	"errors"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agui-go/sdk/agui"
)

// streamWriter writes one HTTP event stream, of either binding: a run's
// stream (frames from its emitter) or a reader's stream of a durable run
// (frames from the run log). Every stream the handler serves goes through
// it, so every stream has the same policy:
//
//   - A frame goes to the socket as soon as the socket can take it: nothing
//     waits for a timer or for more frames to join it. Frames coalesce only
//     into a backlog, those queued while a write is in flight, which the
//     next write takes whole.
//   - When no write is in flight and the stream has paused (the last write
//     ended at least writerLinger ago), the goroutine that queued the frame
//     writes it itself and flushes: a stream at an LLM's pace costs what a
//     handler that writes and flushes each event costs, with no hand-off
//     to another goroutine.
//   - When frames follow each other closely, a writer goroutine of the
//     stream's own writes them, so the agent goes on encoding while the
//     socket is busy. It waits up to writerLinger for more after each
//     write, then ends: an idle stream holds no goroutine and no buffer.
//   - A write that took less than handoffCost (a writer in memory rather
//     than a socket) is written by the queuing goroutine whatever the pace:
//     waking a goroutine would cost more than the write.
//   - While a write is in flight, a queue that reaches maxBuffered makes the
//     queuing goroutine wait: a client that reads slowly slows its agent
//     down. The terminal frame never waits.
//   - Each piece handed to net/http renews the write deadline
//     ([WithWriteTimeout] bounds the time without progress, not the time a
//     large write takes a slow reader).
//   - In SSE a keep-alive comment goes out when nothing was written for the
//     keep-alive interval ([WithKeepAlive]).
//
// mu guards every field but those only the writing goroutine touches (it
// holds the write: writing is set). For a run's stream mu is the emitter's
// mutex and q the emitter's buffer, so an emit encodes straight into the
// queue under the one lock it takes anyway.
type streamWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	// flushErr or flushPlain is w's own flush, when w has one: the
	// response controller looks for it anew on every call (w may wrap
	// another writer, which it then unwraps). Two fields rather than an
	// adapter, so that each flush is one dynamic call
	// (BenchmarkEmitTextDelta writes to a writer with Flush alone).
	flushErr     interface{ FlushError() error }
	flushPlain   http.Flusher
	writeTimeout time.Duration
	keepAlive    time.Duration // zero: no keep-alives (always, in protobuf)
	maxBuffered  int

	mu *sync.Mutex
	q  *queue
	// fail is told, with mu held, why a write failed: the client is gone.
	fail func(error)

	writing  bool // a write is in flight: its goroutine alone touches w
	inflight int  // the size of the batch in flight
	running  bool // the stream's writer goroutine exists
	parked   bool // it waits for a batch (wake, or writerLinger)
	wake     chan struct{}
	room     sync.Cond // signalled when a write ends or the writer exits
	waiters  int       // goroutines waiting on room
	// cheap says writes take less than handoffCost: the last one did, and
	// fewer than slowWrites in a row took longer. One slow write (a
	// preemption, a collection) does not make an in-memory writer a
	// socket.
	cheap   bool
	slow    int
	lastEnd time.Duration // clock() when the last measured write ended
	writes  uint64        // writes so far (see measured)
	// keptWrites is writes when the keep-alive timer last looked.
	keptWrites uint64
	closed     bool
	err        error // the write error, once one failed
	keep       *time.Timer

	// trace is the run's observer (WithObserver), told of each write; nil
	// without one, and for the streams of durable runs.
	trace *RunTrace

	// The writing goroutine's own.
	noDeadline bool          // the writer does not support write deadlines
	renewed    time.Duration // clock() when the deadline was last set
}

// queue is a buffer of frames waiting for a write. Its buffer comes from
// bufferPool when it first holds something and goes back once written,
// so a stream that is not writing holds none.
type queue struct {
	out []byte
	box *[]byte // the pool's pointer to out while out is held; nil otherwise
}

// writerLinger is how long a writer goroutine waits for the next batch
// before it ends, and how long a stream must have paused for the next
// frame to be written by its emitting goroutine: 500µs, so that a stream
// paced at a millisecond or slower (fast inference providers stream that
// fast) writes every frame itself. A variable only so that a test can
// lengthen it (export_test.go), atomic so that it may while streams run.
var writerLinger atomic.Int64

func init() { writerLinger.Store(int64(500 * time.Microsecond)) }

func linger() time.Duration { return time.Duration(writerLinger.Load()) }

// handoffCost is about what waking another goroutine for a write costs. A
// write that took less is cheaper done by the goroutine that queued it: a
// writer in memory. A write to a socket is a system call, which takes
// longer even on a fast machine, so a socket's writes are handed off when
// frames follow each other closely, and coalesce.
const handoffCost = time.Microsecond

// slowWrites is how many writes in a row must take longer than handoffCost
// for writes to count as costly again.
const slowWrites = 4

// writePiece is the most handed to net/http at a time. net/http holds up to
// 4 KiB of the connection in its own buffer, so a write deadline renewed
// before every piece covers at most 36 KiB the client has to take: the
// figure WithWriteTimeout documents. A piece larger than that buffer goes to
// the socket mostly in one system call, so a backlog costs a system call per
// 32 KiB rather than per 4 KiB.
const writePiece = 32 << 10

// newStreamWriter is the writer of the response w, queuing into q under mu.
// It starts the stream's keep-alives (keepAlive > 0).
func newStreamWriter(w http.ResponseWriter, cfg *handlerConfig, keepAlive time.Duration, mu *sync.Mutex, q *queue, fail func(error)) *streamWriter {
	s := &streamWriter{
		w:            w,
		rc:           http.NewResponseController(w),
		writeTimeout: cfg.writeTimeout,
		keepAlive:    keepAlive,
		maxBuffered:  cfg.maxBuffered,
		mu:           mu,
		q:            q,
		fail:         fail,
		lastEnd:      math.MinInt64 / 2, // a new stream has paused for ever
		renewed:      math.MinInt64 / 2,
	}
	s.room.L = mu
	switch f := w.(type) {
	case interface{ FlushError() error }:
		s.flushErr = f
	case http.Flusher:
		s.flushPlain = f
	}
	if keepAlive > 0 {
		// Under mu: the timer's function reads s.keep, and a short interval
		// can fire it before the assignment.
		mu.Lock()
		s.keep = time.AfterFunc(keepAlive, s.onKeepAlive)
		mu.Unlock()
	}
	return s
}

// queued is told, with mu held, that frames were appended to q. It writes
// them, wakes the writer or starts it, and, unless nowait (the terminal
// frame, which is the last anyone queues), waits while the queue is past
// its bound. A non-nil error means the client is gone (or the stream was
// closed).
func (s *streamWriter) queued(nowait bool) error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return ErrClientDisconnected
	}
	switch {
	case s.writing:
		// The write in flight takes the queue when it ends. Past the
		// bound the queuing goroutine waits for that.
		for !nowait && s.writing && s.err == nil && len(s.q.out)+s.inflight >= s.maxBuffered {
			s.await()
		}
	case s.cheap || !s.running && clock()-s.lastEnd >= linger():
		s.writeNow()
	case s.running:
		s.wakeWriter()
		// The writer is on its way: past the bound, wait for it to take
		// the queue, as while it writes.
		for !nowait && s.running && !s.writing && s.err == nil && len(s.q.out) >= s.maxBuffered {
			s.await()
		}
	default:
		s.running = true
		if s.wake == nil {
			s.wake = make(chan struct{}, 1)
		}
		go s.loop()
	}
	return s.err
}

// writeNow writes what is queued, with mu held throughout, on the calling
// goroutine.
func (s *streamWriter) writeNow() {
	data := s.q.out // mu is held: nothing queues during the write
	began := s.began()
	if began < 0 && s.trace == nil {
		// A cheap write that is not timed (most of an in-memory writer's):
		// with mu held throughout and nobody to tell, only a failure needs
		// ended's bookkeeping. BenchmarkEmitTextDelta shows what this saves.
		if err := s.write(data, began); err != nil {
			s.ended(began, len(data), err)
		}
	} else {
		s.writing = true
		err := s.write(data, began)
		s.ended(began, len(data), err)
	}
	if s.cheap && !s.closed {
		// A writer in memory: the buffer is the next one, as it is for a
		// busy writer goroutine. Such a stream keeps its buffer while it
		// is open; a stream to a socket gives it back after each write.
		s.q.out = data[:0]
		return
	}
	s.q.release()
}

// await waits for room to be signalled. Called with mu held.
func (s *streamWriter) await() {
	s.waiters++
	s.room.Wait()
	s.waiters--
}

// signal wakes every goroutine waiting in await, if there is one: most
// writes end with nobody waiting.
func (s *streamWriter) signal() {
	if s.waiters > 0 {
		s.room.Broadcast()
	}
}

// clock is a monotonic reading of the time: one call to the runtime's
// clock, where time.Now makes two (wall and monotonic), and every write
// reads it.
func clock() time.Duration { return time.Since(epoch) }

var epoch = time.Now()

// measured is how often a write is timed when writes are cheap: timing
// every one would cost an in-memory writer more than its writes (a clock
// reading took about 35 ns on the machines here, the write itself a few).
// Costly writes are all timed. BenchmarkEmitTextDelta shows what timing
// fewer of them saves.
const measured = 256

// began counts a write and returns when it begins, or -1 when it is not
// timed. Called by the writing goroutine with mu held.
func (s *streamWriter) began() time.Duration {
	s.writes++
	if s.cheap && s.writes%measured != 0 {
		return -1
	}
	return clock()
}

// ended records the end of a write of n bytes that began at began (-1:
// not timed). Called with mu held.
func (s *streamWriter) ended(began time.Duration, n int, err error) {
	if t := s.trace; t != nil && t.Flush != nil {
		t.Flush(n, err)
	}
	if began >= 0 {
		s.lastEnd = clock()
		if s.lastEnd-began < handoffCost {
			s.slow, s.cheap = 0, true
		} else if s.slow++; s.slow >= slowWrites {
			s.cheap = false
		}
	}
	s.writing, s.inflight = false, 0
	if err != nil && s.err == nil {
		s.err = errors.Join(ErrClientDisconnected, err)
		s.fail(s.err)
	}
	s.signal()
}

// loop is the stream's writer goroutine: it writes each batch with mu
// released, and ends when no batch came within writerLinger, or once the
// stream is closed and its queue written.
func (s *streamWriter) loop() {
	var wait *time.Timer
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.q.out) == 0 && !s.closed && s.err == nil {
			s.parked = true
			s.mu.Unlock()
			if wait == nil {
				wait = time.NewTimer(linger())
			} else {
				wait.Reset(linger())
			}
			timedOut := false
			select {
			case <-s.wake:
			case <-wait.C:
				timedOut = true
			}
			s.mu.Lock()
			s.parked = false
			if timedOut && len(s.q.out) == 0 {
				s.exit()
				return
			}
		}
		if len(s.q.out) == 0 || s.err != nil {
			s.exit()
			return
		}
		data, box := s.q.out, s.q.box
		s.q.out, s.q.box = nil, nil
		s.writing, s.inflight = true, len(data)
		s.signal() // the queue is empty again
		began := s.began()
		s.mu.Unlock()
		err := s.write(data, began)
		s.mu.Lock()
		s.ended(began, len(data), err)
		if s.q.box == nil && len(s.q.out) == 0 && !s.closed {
			// The agent goes on: the written buffer is the next one, and
			// a busy stream passes two buffers back and forth.
			s.q.out, s.q.box = data[:0], box
		} else {
			putBuffer(box, data)
		}
	}
}

// wakeWriter wakes the writer goroutine if it waits for a batch. Called
// with mu held.
func (s *streamWriter) wakeWriter() {
	if s.parked {
		s.parked = false
		select {
		case s.wake <- struct{}{}:
		default: // already woken
		}
	}
}

// exit ends the writer goroutine. Called with mu held.
func (s *streamWriter) exit() {
	s.running, s.parked = false, false
	if len(s.q.out) == 0 {
		s.q.release() // an idle stream holds no buffer
	}
	s.signal()
}

// write hands b to the response in pieces of at most writePiece bytes,
// renewing the write deadline before each, then flushes: a client that
// keeps reading, however slowly, keeps the stream; one that reads nothing
// for the write timeout loses it. now is when the write began, if it was
// timed (otherwise -1).
func (s *streamWriter) write(b []byte, now time.Duration) error {
	if len(b) <= writePiece && !s.deadlines() {
		// One piece and no deadline to renew: a writer in memory, or a
		// server with WithWriteTimeout(0).
		if _, err := s.w.Write(b); err != nil {
			return err
		}
		return s.flush()
	}
	pieces := 0
	for len(b) > 0 {
		n := min(len(b), writePiece)
		if s.deadlines() {
			if pieces > 0 || now < 0 {
				now = clock()
			}
			s.renewDeadline(now)
		}
		if _, err := s.w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
		pieces++
	}
	if pieces > 1 && s.deadlines() {
		s.renewDeadline(clock())
	}
	return s.flush()
}

// flush pushes what net/http buffers to the client.
func (s *streamWriter) flush() error {
	switch {
	case s.flushErr != nil:
		return s.flushErr.FlushError()
	case s.flushPlain != nil:
		s.flushPlain.Flush()
		return nil
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// deadlineSlack is how stale, as a part of the write timeout, a write
// deadline may be before it is set again. A deadline is set for the timeout
// plus the slack, so every piece written until the slack has passed still
// has the whole timeout ahead of it, and a burst of pieces costs one
// renewal instead of one each; a client that reads nothing is cut after the
// timeout and at most a 64th of it more.
const deadlineSlack = 64

// deadlines says whether writes renew a write deadline: there is a write
// timeout and the writer supports deadlines.
func (s *streamWriter) deadlines() bool { return s.writeTimeout > 0 && !s.noDeadline }

// renewDeadline gives the connection a write deadline of at least the write
// timeout from now (a clock reading). Only when deadlines().
func (s *streamWriter) renewDeadline(now time.Duration) {
	slack := s.writeTimeout / deadlineSlack
	if now-s.renewed < slack {
		return
	}
	s.renewed = now
	if err := s.rc.SetWriteDeadline(epoch.Add(now + s.writeTimeout + slack)); errors.Is(err, http.ErrNotSupported) {
		s.noDeadline = true // nothing to extend, now or later
	}
}

var keepAliveFrame = []byte(": keep-alive\n\n")

// onKeepAlive writes a keep-alive comment if nothing has been written for
// the keep-alive interval, and sets itself again for when the next one may
// be due. A busy stream never gets one.
func (s *streamWriter) onKeepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.err != nil {
		return
	}
	next := s.keepAlive
	idle := clock() - s.lastEnd
	if s.writes != s.keptWrites && s.cheap {
		idle = 0 // written since the last look, at a time not measured
	}
	s.keptWrites = s.writes
	switch {
	case s.writing || s.running || len(s.q.out) > 0:
	case idle < s.keepAlive:
		next = s.keepAlive - idle
	default:
		s.q.acquire()
		s.q.out = append(s.q.out, keepAliveFrame...)
		s.writeNow()
		if s.err != nil {
			return
		}
	}
	s.keep.Reset(next)
}

// close writes what is queued and waits for the writer goroutine: once it
// returns, nothing touches the response any more. Called without mu.
func (s *streamWriter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.keep != nil {
		s.keep.Stop() // a call already started sees closed
	}
	for s.running {
		s.wakeWriter()
		s.await()
	}
	if len(s.q.out) > 0 && s.err == nil {
		s.writeNow()
	}
	s.q.release()
}

// deliver is the sink of a run's stream: the frame is in the queue already
// (q is the emitter's buffer), so what is left is to write it. The
// terminal event (sent once the emitter is finishing) does not wait.
func (s *streamWriter) deliver(e *emitter, _ agui.Event) error {
	return s.queued(e.finishing)
}

// acquire gives q a buffer from the pool, unless it holds one.
func (q *queue) acquire() {
	if q.box != nil {
		return
	}
	q.box = bufferPool.Get().(*[]byte)
	q.out = (*q.box)[:0]
}

// release gives q's buffer back to the pool; its content is dropped.
func (q *queue) release() {
	putBuffer(q.box, q.out)
	q.box, q.out = nil, nil
}
