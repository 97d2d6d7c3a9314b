package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
)

// stream writes the run's log after `after` until the terminal event or
// until the client leaves, and reports whether the client got the terminal
// event. In SSE each frame carries its sequence as id. In protobuf each
// logged event is decoded and framed as the binding frames it, which has no
// place for a sequence: the bytes are those of the same run without durable
// runs.
func (d *durableConfig) stream(w http.ResponseWriter, r *http.Request, enc encoding, runID string, after uint64, cfg *handlerConfig) (ended bool) {
	startStream(w, enc)
	out := &streamWriter{w: w, rc: http.NewResponseController(w), writeTimeout: cfg.writeTimeout,
		flushLatency: cfg.flushLatency, last: time.Now()}
	ctx, stop := d.readContext(r, runID)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out.gone = cancel
	out.mu.Lock()
	out.flushTimer = time.AfterFunc(time.Hour, out.onFlushTimer)
	out.flushTimer.Stop()
	if enc == encodingSSE && cfg.keepAlive > 0 {
		out.keepAlive = cfg.keepAlive
		out.keepTimer = time.AfterFunc(cfg.keepAlive, out.onKeepAlive)
	}
	out.mu.Unlock()
	defer out.close()
	var proto []byte
	for e, err := range d.log.Read(ctx, runID, after) {
		if err != nil {
			if ctx.Err() == nil {
				// The log failed this reader, not the client: the stream
				// still ends with a terminal event, so that the client
				// learns why, rather than a cut it cannot tell from a
				// network fault.
				endUnfollowed(out, enc, runID, after, err, cfg)
			}
			return false
		}
		after = e.Seq
		if enc == encodingProtobuf {
			if proto, err = protoFrame(proto[:0], e.Data); err != nil {
				cfg.run.logger.Error("agui/server: a logged event does not frame as protobuf; the stream ends here",
					"run_id", runID, "seq", e.Seq, "error", err)
				return false
			}
			err = out.add(0, proto, e.Terminal)
		} else {
			err = out.add(e.Seq, e.Data, e.Terminal)
		}
		if err != nil {
			return false
		}
		if e.Terminal {
			return true
		}
	}
	return false
}

// endUnfollowed ends a reader's stream whose log read failed with RUN_ERROR
// code RUN_LOG_UNAVAILABLE. The event is not in the log (in SSE it carries
// no id): the run may still be going on, and its message says from which
// event to reattach.
func endUnfollowed(out *streamWriter, enc encoding, runID string, after uint64, err error, cfg *handlerConfig) {
	cfg.run.logger.Warn("agui/server: the run log failed a reader; its stream ends with RUN_LOG_UNAVAILABLE",
		"run_id", runID, "after", after, "error", err)
	ev := agui.NewRunError(fmt.Sprintf("this stream stopped following the run: %v; the run may go on: reattach after event %d (Last-Event-ID: %d)", err, after, after))
	code := string(agui.CodeRunLogUnavailable)
	ev.Code = &code
	data, _ := ev.AppendJSON(nil)
	if enc == encodingProtobuf {
		frame, ferr := protoFrame(nil, data)
		if ferr != nil {
			return
		}
		data = frame
	} else {
		data = append(append([]byte("data: "), data...), "\n\n"...)
	}
	_ = out.add(0, data, true)
}

// readContext is the context a reader of run runID follows the log under:
// its request's, except while an [HTTPServer] shuts down. Its Shutdown
// cancels every request, but it also cancels this replica's runs, whose
// terminal events are then on their way; a reader of such a run keeps
// following until it has written that event, so that its client learns how
// the run ended, as a client without durable runs does. A reader of a run
// of another replica stops at once: that run goes on, and its client can
// reattach elsewhere.
func (d *durableConfig) readContext(r *http.Request, runID string) (context.Context, func()) {
	life := lifetimeOf(r.Context())
	d.mu.Lock()
	_, local := d.live[runID]
	d.mu.Unlock()
	if life == nil || !local {
		return r.Context(), func() {}
	}
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(r.Context()))
	stop := context.AfterFunc(r.Context(), func() {
		// The server's context is cancelled before the requests derived
		// from it, so a shutdown is already visible here.
		if life.ctx.Err() == nil {
			cancel(context.Cause(r.Context()))
		}
	})
	return ctx, func() { stop(); cancel(nil) }
}

// protoFrame appends the protobuf frame of a logged event (its JSON).
func protoFrame(dst, data []byte) ([]byte, error) {
	ev, err := agui.DecodeEvent(data)
	if err != nil {
		return dst, err
	}
	return protoframe.AppendFrame(dst, ev)
}

// streamWriter writes one reader's stream to its response: the frames of
// the log, and in SSE a keep-alive comment whenever nothing was written for
// the handler's keep-alive interval ([WithKeepAlive]), so that a proxy does
// not cut a reader that follows a run while its agent thinks.
//
// Frames are gathered and written as the handler's other streams write
// them ([WithFlushLatency]): the first after a pause at once, later ones
// within the latency budget or once writeBatch bytes wait, together; the
// terminal frame at once. A reader that wrote and flushed every frame
// made a write to the socket per event, which cost a fast run more than ten
// times what the same run costs without durable runs. The gathering buffer
// comes from a pool and goes back after each write, so an idle stream holds
// none. Timers flush and write the keep-alives, so mu serialises the
// writes; once closed, nothing more is written.
type streamWriter struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	writeTimeout time.Duration
	flushLatency time.Duration
	keepAlive    time.Duration
	gone         context.CancelCauseFunc // stops the reader when a timer finds the client gone

	mu         sync.Mutex
	closed     bool
	pending    *[]byte   // frames not yet written (nil: none, and no buffer held)
	last       time.Time // when bytes last went to the client
	flushArmed bool
	flushTimer *time.Timer
	keepTimer  *time.Timer
}

var streamBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// add gathers the frame of one event: with seq 0, data is the frame
// (protobuf); otherwise it is the event's JSON, framed as SSE with seq as
// its id. It writes now or within the latency budget; now when last.
func (s *streamWriter) add(seq uint64, data []byte, last bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClientDisconnected
	}
	if s.pending == nil {
		s.pending = streamBuffers.Get().(*[]byte)
	}
	b := *s.pending
	if seq == 0 {
		b = append(b, data...)
	} else {
		b = append(b, "id: "...)
		b = strconv.AppendUint(b, seq, 10)
		b = append(b, "\ndata: "...)
		b = append(b, data...)
		b = append(b, "\n\n"...)
	}
	*s.pending = b
	wait := s.flushLatency - time.Since(s.last)
	if last || wait <= 0 || len(b) >= writeBatch {
		return s.flushLocked()
	}
	if !s.flushArmed {
		s.flushArmed = true
		s.flushTimer.Reset(wait)
	}
	return nil
}

// flushLocked writes what is gathered and flushes the response. It hands
// net/http pieces of writePiece bytes, each under a renewed write deadline
// ([WithWriteTimeout] bounds the time without progress, not the time a
// large write takes a slow reader), and flushes once at the end: net/http's
// connection buffer fills before each system call, as for the handler's
// other streams.
func (s *streamWriter) flushLocked() error {
	if s.pending == nil {
		return nil
	}
	b := *s.pending
	var err error
	for len(b) > 0 && err == nil {
		n := min(len(b), writePiece)
		s.deadline()
		_, err = s.w.Write(b[:n])
		b = b[n:]
	}
	if err == nil {
		s.deadline()
		if err = s.rc.Flush(); errors.Is(err, http.ErrNotSupported) {
			err = nil
		}
	}
	*s.pending = (*s.pending)[:0]
	streamBuffers.Put(s.pending)
	s.pending = nil
	s.last = time.Now()
	return err
}

func (s *streamWriter) deadline() {
	if s.writeTimeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
}

// failLocked is a write from a timer that failed: the client is gone, and
// the reader, which may be waiting for an event of an idle run, stops.
func (s *streamWriter) failLocked() {
	s.closed = true
	s.gone(ErrClientDisconnected)
}

func (s *streamWriter) onFlushTimer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushArmed = false
	if s.closed {
		return
	}
	if err := s.flushLocked(); err != nil {
		s.failLocked()
	}
}

var keepAliveFrame = []byte(": keep-alive\n\n")

// onKeepAlive writes a keep-alive if the stream has been idle for the
// interval, and sets the timer for when the next one may be due.
func (s *streamWriter) onKeepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	next := s.keepAlive
	if idle := time.Since(s.last); idle < s.keepAlive {
		next = s.keepAlive - idle
	} else {
		if s.pending == nil {
			s.pending = streamBuffers.Get().(*[]byte)
		}
		*s.pending = append(*s.pending, keepAliveFrame...)
		if err := s.flushLocked(); err != nil {
			s.failLocked()
			return
		}
	}
	s.keepTimer.Reset(next)
}

// close writes what is left and ends the writing: a timer that fires later
// writes nothing.
func (s *streamWriter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		_ = s.flushLocked()
	}
	s.closed = true
	s.flushTimer.Stop()
	if s.keepTimer != nil {
		s.keepTimer.Stop()
	}
	if s.pending != nil {
		*s.pending = (*s.pending)[:0]
		streamBuffers.Put(s.pending)
		s.pending = nil
	}
}
