package server

import (
	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// logSink appends every event of a durable run to the run log: the log, not
// a connection, is what the run writes to, and every HTTP stream of the run
// (the POST that started it, or a reattached GET) is a reader of the log.
// That is what lets a run outlive its connection.
type logSink struct {
	w runlog.Writer
	// tee, when set, is the stream of the POST that started the run, fed
	// from the appends (see logTee).
	tee *logTee
	// rec, when set, records the run in its thread (WithThreads); it is
	// nudged every recordBatch events, and reads them from the log itself.
	rec *threadRecorder
}

func (s *logSink) deliver(e *emitter, ev agui.Event) error {
	t := ev.Type()
	terminal := t == agui.EventTypeRunFinished || t == agui.EventTypeRunError
	data := e.out[e.frame:]
	seq, err := s.w.Append(data, terminal)
	if err == nil && s.tee != nil {
		s.tee.add(seq, ev, data, terminal)
	}
	if s.rec != nil && seq%recordBatch == 0 {
		s.rec.nudge()
	}
	e.out = e.out[:0]
	return err
}

// streamToLog drives r with every event going to w, and to tee if set.
func (r *Runner[S]) streamToLog(w runlog.Writer, tee *logTee, rec *threadRecorder) error {
	if err := r.begin(); err != nil {
		return err
	}
	e := r.newEmitter(&logSink{w: w, tee: tee, rec: rec}, false)
	// Every logged event goes out as an SSE frame to some reader: one the
	// reader's frame limit refuses would break every stream of the run, so
	// it fails at its emit, as without durable runs.
	e.maxEvent = agui.DefaultMaxFrame
	r.drive(e)
	return nil
}
