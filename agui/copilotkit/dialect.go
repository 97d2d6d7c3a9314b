package copilotkit

import (
	"bytes"
	"log/slog"
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
// error bodies). In an event stream, the few events the client's schema
// (@ag-ui/client 0.0.59) refuses, and a stopped run's ending, which it
// would report as a failure, are rewritten in words it knows (see
// rewrite); every other frame, keep-alives and SSE ids included, is passed
// byte for byte. For connect, the agent's "no such thread" (404, 410) is
// an empty stream instead.
type dialect struct {
	w       http.ResponseWriter
	logger  *slog.Logger
	connect bool
	wrote   bool
	sse     bool // the response is an event stream: frames are read
	empty   bool // connect to an unknown thread: the agent's answer is dropped
	buf     []byte
	out     []byte
	flush   func() error // w's flush
}

func newDialect(w http.ResponseWriter, connect bool, logger *slog.Logger) *dialect {
	d := &dialect{w: w, connect: connect, logger: logger}
	// Found once: a type switch to an interface looks the method up anew
	// on every call, and a stream flushes after every frame.
	switch f := w.(type) {
	case interface{ FlushError() error }:
		d.flush = f.FlushError
	case http.Flusher:
		d.flush = func() error { f.Flush(); return nil }
	default:
		rc := http.NewResponseController(w)
		d.flush = rc.Flush
	}
	return d
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
	if len(d.buf) == 0 && !mayRewrite(p) && bytes.HasSuffix(p, frameEnd) {
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
		d.out = d.appendFrame(d.out, d.buf[:i+len(frameEnd)])
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
	return d.flush()
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
	frameEnd   = []byte("\n\n")
	dataPrefix = []byte("data: ")
	typePrefix = []byte(`{"type":"`)
	// rewriteTypes are the events the dialect may rewrite, as their JSON
	// starts when "type" comes first (as the agent handler writes it),
	// each with the marks one it rewrites holds.
	rewriteTypes = []struct {
		prefix []byte
		marks  [][]byte
	}{
		{[]byte(`RUN_FINISHED"`), [][]byte{[]byte(`"cancelled"`), []byte(`"pendingToolCallIds"`)}},
		{[]byte(`RUN_ERROR"`), [][]byte{[]byte(`"CANCELLED"`)}},
		{[]byte(`TOOL_CALL_RESULT"`), [][]byte{[]byte(`"content":[`)}},
		{[]byte(`MESSAGES_SNAPSHOT"`), [][]byte{[]byte(`"content":[`)}},
	}
	// marks are what an event the dialect rewrites holds, for JSON that
	// does not start with its type: the cancelled outcome, the CANCELLED
	// code, a success outcome's pendingToolCallIds, content given as parts.
	marks = [][]byte{[]byte(`"cancelled"`), []byte(`"CANCELLED"`), []byte(`"pendingToolCallIds"`), []byte(`"content":[`)}
)

// mayRewrite reports whether p may hold an event the dialect rewrites: a
// quick test, so that the frames of a run's body (text and argument
// deltas, most of them) pass without being split or decoded. It reads the
// type at the start of each data line; searching every frame for the marks
// instead costs a microsecond a frame, JSON being full of the quotes they
// start with.
func mayRewrite(p []byte) bool {
	for len(p) > 0 {
		line := p
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			line, p = p[:i], p[i+1:]
		} else {
			p = nil
		}
		if len(line) == 0 || line[0] != 'd' { // a frame's end, an id, a comment
			continue
		}
		data, ok := bytes.CutPrefix(line, dataPrefix)
		if !ok {
			continue
		}
		ms := marks
		if rest, ok := bytes.CutPrefix(data, typePrefix); ok && len(rest) > 1 {
			ms = nil
			// The types rewritten start RU, TO and ME; most frames (TEXT_,
			// REASONING_, TOOL_CALL_ARGS) are told apart in a byte or two.
			if c := uint16(rest[0])<<8 | uint16(rest[1]); c == 'R'<<8|'U' || c == 'T'<<8|'O' || c == 'M'<<8|'E' {
				for _, t := range rewriteTypes {
					if bytes.HasPrefix(rest, t.prefix) {
						ms = t.marks
						break
					}
				}
			}
		}
		for _, m := range ms {
			if bytes.Contains(data, m) {
				return true
			}
		}
	}
	return false
}

// appendFrame appends one SSE frame, rewritten when the client's schema
// would refuse it.
func (d *dialect) appendFrame(dst, frame []byte) []byte {
	if !mayRewrite(frame) {
		return append(dst, frame...)
	}
	for line := range bytes.Lines(frame) {
		data, ok := bytes.CutPrefix(line, dataPrefix)
		if !ok {
			dst = append(dst, line...)
			continue
		}
		data = bytes.TrimRight(data, "\r\n")
		if ev, ok := d.rewrite(data); ok {
			dst = append(dst, dataPrefix...)
			dst = append(dst, ev...)
			dst = append(dst, '\n')
			continue
		}
		dst = append(dst, line...)
	}
	return dst
}

// rewrite returns an event as the client's schema (@ag-ui/client 0.0.59)
// takes it, or false when it takes the event as it is:
//
//   - a stopped run's ending (RUN_FINISHED cancelled, RUN_ERROR CANCELLED)
//     becomes RUN_ERROR "abort", the client's own word for a stop;
//   - a success outcome loses pendingToolCallIds, which the client's closed
//     success outcome refuses (it finds the calls to run in the messages);
//   - tool content given as parts (TOOL_CALL_RESULT, and tool messages in
//     MESSAGES_SNAPSHOT) becomes its text, which is all the client's string
//     content can hold; a media part dropped is logged.
func (d *dialect) rewrite(data []byte) ([]byte, bool) {
	ev, err := agui.DecodeEvent(data)
	if err != nil {
		return nil, false
	}
	var out agui.Event
	switch e := ev.(type) { //agui:nonexhaustive only the events the pinned client's schema rejects are rewritten
	case *agui.RunFinished:
		switch o := e.Outcome.(type) { //agui:nonexhaustive the interrupt outcome passes as it is
		case *agui.RunFinishedCancelledOutcome:
			out = stopError(e.EventBase, stoppedMessage, e.Usage)
		case *agui.RunFinishedSuccessOutcome:
			if o.PendingToolCallIDs == nil {
				return nil, false
			}
			o.PendingToolCallIDs = nil
			out = e
		default:
			return nil, false
		}
	case *agui.RunError:
		if e.Code == nil || *e.Code != string(agui.CodeCancelled) {
			return nil, false
		}
		msg := e.Message
		if msg == "" {
			msg = stoppedMessage
		}
		out = stopError(e.EventBase, msg, e.Usage)
	case *agui.ToolCallResult:
		if !e.Content.IsParts() {
			return nil, false
		}
		e.Content = d.text(e.Content, e.ToolCallID)
		out = e
	case *agui.MessagesSnapshot:
		changed := false
		for _, m := range e.Messages {
			if t, ok := m.(*agui.ToolMessage); ok && t.Content.IsParts() {
				t.Content = d.text(t.Content, t.ToolCallID)
				changed = true
			}
		}
		if !changed {
			return nil, false
		}
		out = e
	default:
		return nil, false
	}
	b, err := out.AppendJSON(nil)
	if err != nil {
		return nil, false
	}
	return b, true
}

func stopError(base agui.EventBase, message string, usage []agui.TokenUsage) *agui.RunError {
	code := codeAbort
	return &agui.RunError{EventBase: base, Message: message, Code: &code, Usage: usage}
}

// text is tool content as the string the client's schema holds: its text
// parts joined. Media parts have no place there; they are dropped, with a
// log line.
func (d *dialect) text(c agui.Content, toolCallID string) agui.Content {
	parts, _ := c.Parts()
	dropped := 0
	for _, p := range parts {
		if _, ok := p.(*agui.TextPart); !ok {
			dropped++
		}
	}
	if dropped > 0 && d.logger != nil {
		d.logger.Warn("agui/copilotkit: a tool result's media parts were dropped; CopilotKit's client takes text only",
			"tool_call_id", toolCallID, "dropped_parts", dropped)
	}
	return agui.TextContent(c.String())
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
