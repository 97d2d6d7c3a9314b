package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
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
//
// With tee (the POST of a run on a log whose appends are visible at once),
// the stream is fed by the run's appends until the tee stops; then, if the
// run has not ended, it reads the log from where the tee stopped.
//
// With down (a reader that declared 1.0, readerVersion), each logged event
// is served as downgradeLogged makes it.
func (d *durableRuns) stream(w http.ResponseWriter, r *http.Request, enc encoding, runID string, after uint64, tee *logTee, down bool) (ended bool) {
	cfg := d.cfg
	ctx, stop := d.readContext(r, runID)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var out *streamWriter
	if tee != nil {
		out = tee.out
	} else {
		startStream(w, enc)
		// A write that fails stops the reader, which may be waiting for
		// an event of an idle run.
		out = newStreamWriter(w, cfg, keepAliveOf(enc, cfg), new(sync.Mutex), new(queue), cancel)
	}
	defer out.close()
	if tee != nil {
		select {
		case <-tee.done:
		case <-ctx.Done():
		}
		var gone error
		out.mu.Lock()
		tee.stopped = true // from here on the log feeds the stream
		ended, after, gone = tee.ended, tee.last, out.err
		out.mu.Unlock()
		if ended || gone != nil || ctx.Err() != nil {
			return ended
		}
	}
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
		data := e.Data
		if down {
			if data, err = d.downgrade(r, runID, e.Seq, data); err != nil {
				return false
			}
		}
		if enc == encodingProtobuf {
			if proto, err = protoFrame(proto[:0], data); err != nil {
				cfg.run.logger.Error("agui/server: a logged event does not frame as protobuf; the stream ends here",
					"run_id", runID, "seq", e.Seq, "error", err)
				return false
			}
			err = out.add(0, proto, e.Terminal)
		} else {
			err = out.add(e.Seq, data, e.Terminal)
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

// downgrade is downgradeLogged for event seq of run runID, served to the
// reader of r: what it drops is logged at level Warn, as the emitter logs
// what it drops for a 1.0 POST; an event that does not decode ends the
// stream, as one that does not frame as protobuf does.
func (d *durableRuns) downgrade(r *http.Request, runID string, seq uint64, data []byte) ([]byte, error) {
	out, lost, err := downgradeLogged(data)
	if err != nil {
		d.cfg.run.logger.ErrorContext(r.Context(), "agui/server: a logged event does not decode; the stream ends here",
			"run_id", runID, "seq", seq, "error", err)
		return nil, err
	}
	if lost != nil {
		d.cfg.run.logger.WarnContext(r.Context(), "agui/server: the reader speaks protocol 1.0; dropped what 1.1 added",
			"runId", runID, "seq", seq, "dropped", strings.Join(lost, ","))
	}
	return out, nil
}

// keepAliveOf is the keep-alive interval of a stream in enc: none in
// protobuf, whose framing has no comment frame to carry one.
func keepAliveOf(enc encoding, cfg *handlerConfig) time.Duration {
	if enc == encodingProtobuf {
		return 0
	}
	return cfg.keepAlive
}

// logTee is the stream of the POST that started a durable run, fed by the
// run's appends to a log whose appends are visible at once
// ([runlog.Visible]), rather than by reading each event back: what the
// client gets is still exactly what the log holds, without a reader
// woken for every event.
//
// A durable run has no backpressure: a client that falls behind must not
// slow the run down. So the tee never waits. Once its queue reaches the
// bound while the client reads, it stops, and the stream goes on from the
// log where the tee stopped (stream). Its fields are guarded by out.mu.
type logTee struct {
	out     *streamWriter
	enc     encoding
	last    uint64 // the sequence of the last event queued
	stopped bool   // no more events are queued
	ended   bool   // the terminal event was queued
	done    chan struct{}
}

// newLogTee starts the response's stream and returns its tee.
func newLogTee(w http.ResponseWriter, enc encoding, cfg *handlerConfig) *logTee {
	startStream(w, enc)
	t := &logTee{enc: enc, done: make(chan struct{})}
	t.out = newStreamWriter(w, cfg, keepAliveOf(enc, cfg), new(sync.Mutex), new(queue), func(error) { t.stop() })
	return t
}

// stop ends the tee. Called with out.mu held.
func (t *logTee) stop() {
	if !t.stopped {
		t.stopped = true
		close(t.done)
	}
}

// add queues event seq (ev, whose JSON is data) and writes it as the
// stream's policy says. Called from the run's emit path, after the append.
func (t *logTee) add(seq uint64, ev agui.Event, data []byte, terminal bool) {
	s := t.out
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.stopped {
		return
	}
	if s.closed || s.err != nil || (!terminal && len(s.q.out)+s.inflight >= s.maxBuffered) {
		t.stop()
		return
	}
	s.q.acquire()
	mark := len(s.q.out)
	if t.enc == encodingProtobuf {
		out, err := protoframe.AppendFrame(s.q.out, ev)
		if err != nil { // cannot be: the event was encoded as JSON already
			s.q.out = s.q.out[:mark]
			t.stop()
			return
		}
		s.q.out = out
	} else {
		s.q.out = appendSSE(s.q.out, seq, data)
	}
	t.last = seq
	if terminal {
		t.ended = true
	}
	_ = s.queued(true)
	if terminal {
		t.stop()
	}
}

// appendSSE appends the SSE frame of logged event seq, whose JSON is data.
func appendSSE(b []byte, seq uint64, data []byte) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
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
func (d *durableRuns) readContext(r *http.Request, runID string) (context.Context, func()) {
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
//
// It decodes the event's JSON to encode it again, for every event a
// protobuf reader reads from the log (a POST fed by its run's appends,
// logTee, frames the event itself). Framing without the decode needs the
// run log to keep the protobuf encoding beside the JSON
// (runlog.Writer.Append takes one), a change of the log's format left for
// when protobuf readers of durable runs are common enough to pay for it.
func protoFrame(dst, data []byte) ([]byte, error) {
	ev, err := agui.DecodeEvent(data)
	if err != nil {
		return dst, err
	}
	return protoframe.AppendFrame(dst, ev)
}

// add queues the frame of one logged event and writes it as the stream's
// policy says ([streamWriter]): with seq 0, data is the frame (protobuf);
// otherwise it is the event's JSON, framed as SSE with seq as its id.
func (s *streamWriter) add(seq uint64, data []byte, last bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.err != nil {
		return ErrClientDisconnected
	}
	s.q.acquire()
	if seq == 0 {
		s.q.out = append(s.q.out, data...)
	} else {
		s.q.out = appendSSE(s.q.out, seq, data)
	}
	return s.queued(last)
}
