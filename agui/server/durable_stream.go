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
	out := &streamWriter{w: w, rc: http.NewResponseController(w), writeTimeout: cfg.writeTimeout, last: time.Now()}
	ctx, stop := d.readContext(r, runID)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if enc == encodingSSE && cfg.keepAlive > 0 {
		out.keepAlive, out.gone = cfg.keepAlive, cancel
		out.mu.Lock()
		out.timer = time.AfterFunc(cfg.keepAlive, out.onKeepAlive)
		out.mu.Unlock()
	}
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
		if err := out.write(buf); err != nil {
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
// not cut a reader that follows a run while its agent thinks. A timer writes
// the keep-alives, so mu serialises the writes; once closed, nothing more is
// written.
type streamWriter struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	writeTimeout time.Duration
	keepAlive    time.Duration
	gone         context.CancelCauseFunc // stops the reader when a keep-alive finds the client gone

	mu     sync.Mutex
	closed bool
	last   time.Time // when bytes last went out
	timer  *time.Timer
}

var keepAliveFrame = []byte(": keep-alive\n\n")

func (s *streamWriter) write(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(b)
}

func (s *streamWriter) writeLocked(b []byte) error {
	if s.closed {
		return ErrClientDisconnected
	}
	if s.writeTimeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	s.last = time.Now()
	return nil
}

// onKeepAlive writes a keep-alive if the stream has been idle for the
// interval, and sets the timer for when the next one may be due. A client
// that cannot take it is gone: the reader, which may be waiting for an
// event of an idle run, is stopped.
func (s *streamWriter) onKeepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	next := s.keepAlive
	if idle := time.Since(s.last); idle < s.keepAlive {
		next = s.keepAlive - idle
	} else if err := s.writeLocked(keepAliveFrame); err != nil {
		s.closed = true
		s.gone(ErrClientDisconnected)
		return
	}
	s.timer.Reset(next)
}

// close ends the writing: a keep-alive that fires later writes nothing.
func (s *streamWriter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
}
