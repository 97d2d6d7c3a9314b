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
}

func (s *logSink) deliver(e *emitter, ev agui.Event) error {
	t := ev.Type()
	_, err := s.w.Append(e.out[e.frame:], t == agui.EventTypeRunFinished || t == agui.EventTypeRunError)
	e.out = e.out[:0]
	return err
}

// streamToLog drives r with every event going to w.
func (r *Runner[S]) streamToLog(w runlog.Writer) error {
	if err := r.begin(); err != nil {
		return err
	}
	e := r.newEmitter(&logSink{w: w}, false)
	// Every logged event goes out as an SSE frame to some reader: one the
	// reader's frame limit refuses would break every stream of the run, so
	// it fails at its emit, as without durable runs.
	e.maxEvent = agui.DefaultMaxFrame
	r.drive(e)
	return nil
}
