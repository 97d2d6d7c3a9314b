package copilotkit

import (
	"bytes"
	"net/http"

	"github.com/agui-go/sdk/agui"
)

// codeAbort is the RUN_ERROR code CopilotKit's client takes as a stop: it
// ends the run without reporting an error.
const codeAbort = "abort"

// stoppedMessage is the message of a stop's RUN_ERROR when the run's own
// ending carried none.
const stoppedMessage = "Run stopped by user"

// dialect passes an agent handler's response to a CopilotKit client. A
// response other than an event stream goes through as it is (the JSON
// error bodies). In an event stream, a stopped run's ending is rewritten in
// the words the client knows: RUN_FINISHED with the cancelled outcome, which
// the client's schema (@ag-ui/client 0.0.59) does not have, and RUN_ERROR
// CANCELLED, which it would report as a failure, both become RUN_ERROR
// "abort". Every other frame, keep-alives and SSE ids included, is passed
// byte for byte. For connect, the agent's "no such thread" (404, 410) is an
// empty stream instead.
type dialect struct {
	w       http.ResponseWriter
	connect bool
	wrote   bool
	sse     bool // the response is an event stream: frames are read
	empty   bool // connect to an unknown thread: the agent's answer is dropped
	buf     []byte
	out     []byte
}

func newDialect(w http.ResponseWriter, connect bool) *dialect {
	return &dialect{w: w, connect: connect}
}

func (d *dialect) Header() http.Header { return d.w.Header() }

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (d *dialect) Unwrap() http.ResponseWriter { return d.w }

func (d *dialect) WriteHeader(code int) {
	if d.wrote {
		return
	}
	d.wrote = true
	h := d.w.Header()
	if d.connect && (code == http.StatusNotFound || code == http.StatusGone) {
		d.empty = true
		h.Del("X-Content-Type-Options")
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		d.w.WriteHeader(http.StatusOK)
		return
	}
	ct := h.Get("Content-Type")
	d.sse = code == http.StatusOK && len(ct) >= 17 && ct[:17] == "text/event-stream"
	d.w.WriteHeader(code)
}

func (d *dialect) Write(p []byte) (int, error) {
	if !d.wrote {
		d.WriteHeader(http.StatusOK)
	}
	switch {
	case d.empty:
		return len(p), nil
	case !d.sse:
		return d.w.Write(p)
	}
	if len(d.buf) == 0 && !mayStop(p) && bytes.HasSuffix(p, frameEnd) {
		// Whole frames, none of them a stopped run's ending: as they are.
		return d.w.Write(p)
	}
	d.buf = append(d.buf, p...)
	d.out = d.out[:0]
	for {
		i := bytes.Index(d.buf, frameEnd)
		if i < 0 {
			break
		}
		d.out = appendFrame(d.out, d.buf[:i+len(frameEnd)])
		d.buf = d.buf[i+len(frameEnd):]
	}
	if len(d.buf) == 0 {
		d.buf = nil
	}
	if len(d.out) > 0 {
		if _, err := d.w.Write(d.out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush passes the frames on; a frame not yet whole waits for its end.
func (d *dialect) Flush() { _ = d.FlushError() }

func (d *dialect) FlushError() error {
	if !d.wrote {
		d.WriteHeader(http.StatusOK)
	}
	return http.NewResponseController(d.w).Flush()
}

// finish sends what is left of a stream that did not end on a frame
// boundary (none does, from an agent's handler) and answers a handler that
// wrote nothing.
func (d *dialect) finish() {
	if !d.wrote {
		d.WriteHeader(http.StatusOK)
	}
	if len(d.buf) > 0 && !d.empty {
		_, _ = d.w.Write(d.buf)
		d.buf = nil
	}
}

var (
	frameEnd    = []byte("\n\n")
	dataPrefix  = []byte("data: ")
	markOutcome = []byte(`"cancelled"`)
	markCode    = []byte(`"CANCELLED"`)
)

// mayStop reports whether p may hold a stopped run's ending: a quick test,
// so that the frames of a run's body pass without being split.
func mayStop(p []byte) bool {
	return bytes.Contains(p, markOutcome) || bytes.Contains(p, markCode)
}

// appendFrame appends one SSE frame, rewritten when it is a stopped run's
// ending.
func appendFrame(dst, frame []byte) []byte {
	if !mayStop(frame) {
		return append(dst, frame...)
	}
	for line := range bytes.Lines(frame) {
		data, ok := bytes.CutPrefix(line, dataPrefix)
		if !ok {
			dst = append(dst, line...)
			continue
		}
		data = bytes.TrimRight(data, "\r\n")
		if ev, ok := rewriteStop(data); ok {
			dst = append(dst, dataPrefix...)
			dst = append(dst, ev...)
			dst = append(dst, '\n')
			continue
		}
		dst = append(dst, line...)
	}
	return dst
}

// rewriteStop returns the RUN_ERROR "abort" a stopped run's terminal event
// becomes, or false for any other event.
func rewriteStop(data []byte) ([]byte, bool) {
	ev, err := agui.DecodeEvent(data)
	if err != nil {
		return nil, false
	}
	out := &agui.RunError{Message: stoppedMessage}
	switch e := ev.(type) {
	case *agui.RunFinished:
		if _, ok := e.Outcome.(*agui.RunFinishedCancelledOutcome); !ok {
			return nil, false
		}
		out.EventBase = e.EventBase
		out.Usage = e.Usage
	case *agui.RunError:
		if e.Code == nil || *e.Code != string(agui.CodeCancelled) {
			return nil, false
		}
		out.EventBase = e.EventBase
		out.Usage = e.Usage
		if e.Message != "" {
			out.Message = e.Message
		}
	default:
		return nil, false
	}
	code := codeAbort
	out.Code = &code
	b, err := out.AppendJSON(nil)
	if err != nil {
		return nil, false
	}
	return b, true
}

// recorder keeps an agent handler's answer to a request the runtime makes
// on a client's behalf (the thread's record, a cancel).
type recorder struct {
	h    http.Header
	code int
	body bytes.Buffer
}

func newRecorder() *recorder { return &recorder{h: http.Header{}} }

func (r *recorder) Header() http.Header { return r.h }

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.body.Write(p)
}
