package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
)

// stream writes the run's log after `after` until the terminal event or
// until the client leaves, and reports whether the client got the terminal
// event. In SSE each frame carries its sequence as id. In protobuf (only
// the POST that started the run asks for it) each logged event is decoded
// and framed as the binding frames it, which has no place for a sequence:
// the bytes are those of the same run without durable runs.
func (d *durableConfig) stream(w http.ResponseWriter, r *http.Request, enc encoding, runID string, after uint64, cfg *handlerConfig) (ended bool) {
	hdr := w.Header()
	hdr.Set("Content-Type", MediaTypeSSE)
	if enc == encodingProtobuf {
		hdr.Set("Content-Type", MediaTypeProtobuf)
	}
	if r.Method == http.MethodPost {
		hdr.Add("Vary", "Accept") // as without durable runs: the encoding depends on it
	}
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
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
	buf := make([]byte, 0, 4<<10)
	for e, err := range d.log.Read(ctx, runID, after) {
		if err != nil {
			return false // the client left, or the log dropped what it needed next
		}
		if enc == encodingProtobuf {
			if buf, err = protoFrame(buf[:0], e.Data); err != nil {
				cfg.run.logger.Error("agui/server: a logged event does not frame as protobuf; the stream ends here",
					"run_id", runID, "seq", e.Seq, "error", err)
				return false
			}
		} else {
			buf = append(buf[:0], "id: "...)
			buf = strconv.AppendUint(buf, e.Seq, 10)
			buf = append(buf, "\ndata: "...)
			buf = append(buf, e.Data...)
			buf = append(buf, "\n\n"...)
		}
		if err := out.write(buf, e.Terminal); err != nil {
			return false
		}
		if e.Terminal {
			return true
		}
	}
	return false
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
// Frames are flushed as the handler's other streams flush them
// ([WithFlushLatency]): the first after a pause at once, later ones within
// the latency budget, together; the terminal frame at once. A reader that
// flushed every frame made a write to the socket per event, which cost a
// fast run more than ten times what the same run costs without durable runs.
// Timers flush and write the keep-alives, so mu serialises the writes; once
// closed, nothing more is written.
type streamWriter struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	writeTimeout time.Duration
	flushLatency time.Duration
	keepAlive    time.Duration
	gone         context.CancelCauseFunc // stops the reader when a timer finds the client gone

	mu         sync.Mutex
	closed     bool
	last       time.Time // when bytes last went to the client
	dirty      bool      // bytes written and not yet flushed
	flushArmed bool
	flushTimer *time.Timer
	keepTimer  *time.Timer
}

var keepAliveFrame = []byte(": keep-alive\n\n")

// write writes a frame and flushes it now or within the latency budget;
// now when it is the last.
func (s *streamWriter) write(b []byte, last bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClientDisconnected
	}
	s.deadline()
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	s.dirty = true
	wait := s.flushLatency - time.Since(s.last)
	if last || wait <= 0 {
		return s.flushLocked()
	}
	if !s.flushArmed {
		s.flushArmed = true
		s.flushTimer.Reset(wait)
	}
	return nil
}

func (s *streamWriter) deadline() {
	if s.writeTimeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
}

func (s *streamWriter) flushLocked() error {
	s.deadline()
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	s.dirty = false
	s.last = time.Now()
	return nil
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
	if s.closed || !s.dirty {
		return
	}
	if err := s.flushLocked(); err != nil {
		s.failLocked()
	}
}

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
		s.deadline()
		_, err := s.w.Write(keepAliveFrame)
		if err == nil {
			err = s.flushLocked()
		}
		if err != nil {
			s.failLocked()
			return
		}
	}
	s.keepTimer.Reset(next)
}

// close flushes what is left and ends the writing: a timer that fires
// later writes nothing.
func (s *streamWriter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed && s.dirty {
		_ = s.flushLocked()
	}
	s.closed = true
	s.flushTimer.Stop()
	if s.keepTimer != nil {
		s.keepTimer.Stop()
	}
}
