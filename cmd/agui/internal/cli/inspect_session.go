package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/agui/verify"
)

// Sources of a finding.
const (
	srcClient  = "client" // the client pipeline (client profile, lenient decoding, shims)
	srcServer  = "server" // the server profile
	srcReducer = "reducer"
)

// finding is one thing the checks found about a frame (or about the end
// of the stream), as the page and --check show it.
type finding struct {
	Source      string `json:"source"`
	Severity    string `json:"severity"` // "error" (a rejection) or "warning"
	Rule        string `json:"rule,omitempty"`
	Description string `json:"description,omitempty"` // the rule's one sentence
	Message     string `json:"message"`
}

// inspectFrame is one frame of a run's answer: what came over the wire and
// what the pipeline delivered from it.
type inspectFrame struct {
	Index    int               `json:"index"`
	Type     string            `json:"type"`
	IDs      map[string]string `json:"ids,omitempty"`
	Size     int               `json:"size"`
	DeltaMS  float64           `json:"dt"`              // milliseconds since the previous frame (or the request)
	Depth    int               `json:"depth"`           // subagent nesting: 0 for the agent itself
	Agent    string            `json:"agent,omitempty"` // the subagentRunId the frame is attributed to
	Findings []finding         `json:"findings"`

	doc    []byte       // the event's JSON document (protobuf: its JSON form)
	wire   string       // the frame as sent: SSE text, or the protobuf frame in hex
	events []agui.Event // what the client pipeline delivered from it
}

// frameSummary is a frame without its bodies: the timeline's row.
type frameSummary struct {
	Index    int               `json:"index"`
	Type     string            `json:"type"`
	IDs      map[string]string `json:"ids,omitempty"`
	Size     int               `json:"size"`
	DeltaMS  float64           `json:"dt"`
	Depth    int               `json:"depth"`
	Agent    string            `json:"agent,omitempty"`
	Errors   int               `json:"errors"`
	Warnings int               `json:"warnings"`
}

// Kinds of session.
const (
	kindRun      = "run"
	kindResume   = "resume"
	kindReattach = "reattach"
	kindImport   = "import"
)

// target is where runs go: the agent's URL, the request headers, the
// binding asked for.
type target struct {
	URL     string
	Header  http.Header
	Proto   bool
	Timeout time.Duration
}

// session is one request (or one imported capture) and everything the
// inspector derived from it. Frames are appended as they arrive; readers
// wait on changed.
type session struct {
	ID     string
	Kind   string
	Target target
	Input  *agui.RunAgentInput // the RunAgentInput sent; nil for reattach and import
	Format string              // SSE, protobuf, or the imported file's format
	RunID  string

	mu          sync.Mutex
	frames      []*inspectFrame
	done        bool
	problem     string // why the run could not be read: unreachable, HTTP error, not AG-UI, …
	note        string // what happened besides: cancelled, …
	end         []finding
	lastEventID string
	verdicts    map[string]*verify.Report
	conv        *conversation.Conversation // the live reducer
	changed     chan struct{}
	cancel      context.CancelFunc

	// Read by the goroutine that feeds the session only.
	pipe       *client.Pipeline
	srv        verify.Server
	srvFailed  bool
	cliFailed  bool
	depth      map[string]int
	last       time.Time
	pipeWarned []agui.Warning
}

func newSession(kind string, t target, in *agui.RunAgentInput) *session {
	s := &session{ID: agui.NewID(), Kind: kind, Target: t, Input: in, changed: make(chan struct{}), depth: map[string]int{}}
	var msgs []agui.Message
	var state json.RawMessage
	if in != nil {
		msgs, state, s.RunID = in.Messages, in.State, in.RunID
	}
	s.conv = conversation.New(msgs, state)
	s.pipe, _ = client.NewPipeline(client.PipelineWarnings(func(w agui.Warning) { s.pipeWarned = append(s.pipeWarned, w) }))
	s.last = time.Now()
	return s
}

// notify wakes every reader waiting for a change; s.mu is held.
func (s *session) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// idMembers are the members that name something, shown in the timeline.
var idMembers = []string{"threadId", "runId", "messageId", "toolCallId", "stepName", "subagentRunId", "parentSubagentRunId", "activityId", "interruptId"}

// addFrame runs one frame through the checks and the reducer. doc is its
// JSON document, wire what came over the wire; push hands the frame to
// the client pipeline.
func (s *session) addFrame(doc []byte, wire string, push func(deliver func(agui.Event) bool) error) {
	now := time.Now()
	s.mu.Lock()
	i := len(s.frames)
	s.mu.Unlock()
	f := &inspectFrame{Index: i, Size: len(wire), DeltaMS: float64(now.Sub(s.last).Microseconds()) / 1000, doc: bytes.Clone(doc), wire: wire, Findings: []finding{}}
	s.last = now
	var members map[string]json.RawMessage
	if json.Unmarshal(doc, &members) == nil {
		json.Unmarshal(members["type"], &f.Type)
		for _, k := range idMembers {
			var v string
			if json.Unmarshal(members[k], &v) == nil && v != "" {
				if f.IDs == nil {
					f.IDs = map[string]string{}
				}
				f.IDs[k] = v
			}
		}
	} else {
		f.Type = "(not JSON)"
	}
	if f.Type == string(agui.EventTypeSubagentStarted) && f.IDs["subagentRunId"] != "" {
		s.depth[f.IDs["subagentRunId"]] = s.depth[f.IDs["parentSubagentRunId"]] + 1
	}
	f.Agent = f.IDs["subagentRunId"]
	f.Depth = s.depth[f.Agent]
	if f.Type == string(agui.EventTypeRunStarted) && f.IDs["runId"] != "" && s.RunID == "" {
		s.RunID = f.IDs["runId"]
	}

	// The server profile, live; the verdict at the end replaces it.
	if !s.srvFailed {
		ev, err := agui.DecodeEvent(doc)
		if err == nil {
			err = s.srv.Observe(ev)
		}
		if err != nil {
			s.srvFailed = true
			f.Findings = append(f.Findings, rejection(srcServer, err))
		}
	}
	// The client pipeline: what it delivers is reduced, event by event.
	if !s.cliFailed {
		var reduced []agui.Warning
		err := push(func(ev agui.Event) bool {
			f.events = append(f.events, ev)
			reduced = append(reduced, s.conv.Apply(ev)...)
			return true
		})
		for _, w := range reduced {
			f.Findings = append(f.Findings, finding{Source: srcReducer, Severity: "warning", Rule: string(w.Kind), Message: w.Message})
		}
		if err != nil {
			s.cliFailed = true
			f.Findings = append(f.Findings, rejection(srcClient, err))
		}
	}
	s.mu.Lock()
	s.frames = append(s.frames, f)
	s.pinWarnings()
	s.notify()
	s.mu.Unlock()
}

// pinWarnings pins the pipeline's warnings to their frames; s.mu is held.
func (s *session) pinWarnings() {
	for _, w := range s.pipeWarned {
		i := w.Index
		if i < 0 || i >= len(s.frames) {
			i = len(s.frames) - 1
		}
		if i < 0 {
			continue
		}
		f := s.frames[i]
		f.Findings = append(f.Findings, finding{Source: srcClient, Severity: "warning", Rule: string(w.Kind), Message: w.Message})
	}
	s.pipeWarned = s.pipeWarned[:0]
}

// Descriptions of what a rejection can be besides a verifier rule.
const (
	descTruncated = "a stream must not end inside a run: after RUN_STARTED comes RUN_FINISHED or RUN_ERROR"
	descMalformed = "every event must decode against the protocol's schema"
	descUnknown   = "a producer sends only event types the protocol defines"
)

// rejection describes an error of the pipeline or a verifier.
func rejection(source string, err error) finding {
	f := finding{Source: source, Severity: "error", Message: err.Error()}
	var ve *verify.Error
	switch {
	case errors.Is(err, verify.ErrTruncated):
		f.Rule, f.Description = "truncated", descTruncated
	case errors.As(err, &ve) && ve.Rule != 0:
		f.Rule, f.Description = ve.Rule.String(), ve.Rule.Describe()
	case errors.Is(err, agui.ErrUnknownEventType):
		f.Rule, f.Description = "unknown-event", descUnknown
	default:
		var de *agui.DecodeError
		if errors.As(err, &de) {
			f.Rule, f.Description = "malformed-event", descMalformed
		}
	}
	return f
}

// finish ends the session: the end of the stream is reported to both
// profiles, and the verdicts of agui verify's checks (both profiles, over
// every document) replace the live rejections, so that the page, --check
// and agui verify of the export agree.
func (s *session) finish(problem, note string) {
	var end []finding
	if problem == "" {
		if !s.cliFailed {
			if err := s.pipe.Finish(); err != nil {
				end = append(end, rejection(srcClient, err))
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pinWarnings()
	docs := make([][]byte, len(s.frames))
	for i, f := range s.frames {
		docs[i] = f.doc
	}
	s.verdicts = map[string]*verify.Report{}
	if len(docs) > 0 {
		for _, p := range []verify.Profile{verify.ClientProfile, verify.ServerProfile} {
			r := verify.Check(p, docs)
			s.verdicts[p.String()] = r
			src := srcClient
			if p == verify.ServerProfile {
				src = srcServer
			}
			for _, f := range s.frames {
				f.Findings = deleteRejections(f.Findings, src)
			}
			end = deleteRejections(end, src)
			if r.OK() {
				continue
			}
			fd := rejection(src, r.Err)
			if r.Index >= 0 && r.Index < len(s.frames) {
				s.frames[r.Index].Findings = append(s.frames[r.Index].Findings, fd)
			} else {
				end = append(end, fd)
			}
		}
	} else if problem == "" {
		problem = "the answer held no events at all: an AG-UI run starts with RUN_STARTED"
	}
	s.end, s.problem, s.note, s.done = end, problem, note, true
	s.notify()
}

func deleteRejections(fs []finding, source string) []finding {
	out := fs[:0]
	for _, f := range fs {
		if f.Severity != "error" || f.Source != source {
			out = append(out, f)
		}
	}
	return out
}

// sseFrames splits an SSE body into frames, keeping each frame's text as
// sent: fn gets the frame's joined data lines and its raw text. Frames
// without data (comments, keep-alives) are not events: their text is the
// start of the next frame's. A frame longer than the frame limit ends the
// stream with an error.
func sseFrames(r io.Reader, fn func(data []byte, raw string, id string)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var raw, data, cur bytes.Buffer
	id, hasData := "", false
	// A frame without data (a comment, a keep-alive) is no event; its text
	// goes with the next frame's, so that the frames' texts are the stream.
	emit := func() {
		if hasData {
			fn(data.Bytes(), raw.String(), id)
			raw.Reset()
		}
		data.Reset()
		hasData = false
	}
	// field handles one whole line (without its line ending).
	field := func(text string) {
		if text == "" {
			emit()
			return
		}
		name, value, _ := strings.Cut(text, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			hasData = true
		case "id":
			id = value
		}
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			err = nil // a long line: the rest follows
		}
		raw.Write(chunk)
		cur.Write(chunk)
		if raw.Len() > maxEvent {
			return fmt.Errorf("a frame is larger than the %d-byte limit", maxEvent)
		}
		if n := cur.Len(); n > 0 && cur.Bytes()[n-1] == '\n' {
			field(strings.TrimRight(cur.String(), "\r\n"))
			cur.Reset()
		}
		if err == io.EOF {
			// A last line without its newline, then the last frame without
			// its blank line: both still count, as in the SSE grammar.
			if cur.Len() > 0 {
				field(strings.TrimRight(cur.String(), "\r"))
			}
			emit()
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readAnswer reads a run's answer into s and finishes it, saying what was
// wrong when the answer is not an AG-UI stream at all.
func (s *session) readAnswer(ctx context.Context, resp *http.Response, reqErr error) {
	if reqErr != nil {
		if ctx.Err() != nil {
			s.finish("", "cancelled before the agent answered")
			return
		}
		s.finish(describeRequestError(s.Target.URL, reqErr), "")
		return
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		s.finish(describeHTTPError(resp.StatusCode, mt, body), "")
		return
	}
	var err error
	switch mt {
	case "text/event-stream":
		s.Format = formatSSE
		err = sseFrames(resp.Body, func(data []byte, raw, id string) {
			if id != "" {
				s.mu.Lock()
				s.lastEventID = id
				s.mu.Unlock()
			}
			s.addFrame(data, raw, func(d func(agui.Event) bool) error { return s.pipe.Push(data, d) })
		})
	case protoframe.MediaType:
		s.Format = formatProtobuf
		for msg, ferr := range protoframe.Frames(resp.Body) {
			if ferr != nil {
				err = ferr
				break
			}
			doc, jerr := agui.EventProtoToJSON(nil, msg)
			var unknown *agui.UnknownEventTypeError
			if errors.As(jerr, &unknown) {
				doc = []byte(`{"type":` + quoteJSON(unknown.Type) + `}`)
			} else if jerr != nil {
				doc = []byte(`{"type":"(undecodable protobuf)"}`)
			}
			wire := hex.EncodeToString(protoframe.AppendMessage(nil, msg))
			s.addFrame(doc, wire, func(d func(agui.Event) bool) error { return s.pipe.PushProto(msg, d) })
		}
	default:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		what := "the answer's Content-Type is " + quoteJSON(ct)
		if isHTML(mt, body) {
			what = "the answer is an HTML page" + htmlTitle(body) + " (Content-Type " + quoteJSON(ct) + ")"
		}
		s.finish("not an AG-UI stream: "+what+"; an AG-UI agent answers text/event-stream or "+protoframe.MediaType+snippet(body), "")
		return
	}
	switch {
	case err != nil && ctx.Err() != nil:
		s.finish("", "cancelled: the request was aborted by the inspector")
	case err != nil:
		s.mu.Lock()
		n := len(s.frames)
		s.mu.Unlock()
		s.finish("", fmt.Sprintf("the stream broke after %d frames: %v", n, err))
		s.mu.Lock()
		s.end = append(s.end, finding{Source: srcClient, Severity: "error", Rule: "truncated", Description: descTruncated,
			Message: fmt.Sprintf("the connection failed after %d frames: %v", n, err)})
		s.mu.Unlock()
	default:
		s.finish("", "")
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// describeRequestError says why a request got no answer.
func describeRequestError(target string, err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Sprintf("cannot reach %s: %v", target, err)
}

// describeHTTPError says what a non-2xx answer was: the JSON error body
// agui-go's servers send, an HTML error page, or the first bytes of
// whatever else.
func describeHTTPError(status int, mt string, body []byte) string {
	head := fmt.Sprintf("the agent answered HTTP %d %s", status, http.StatusText(status))
	var doc struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	switch {
	case mt == "application/json" && json.Unmarshal(body, &doc) == nil && doc.Error.Message != "":
		return fmt.Sprintf("%s: %s: %s", head, doc.Error.Code, doc.Error.Message)
	case isHTML(mt, body):
		return head + " with an HTML error page" + htmlTitle(body) + ", not an AG-UI stream"
	}
	return head + snippet(body)
}

func isHTML(mt string, body []byte) bool {
	if mt == "text/html" {
		return true
	}
	b := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
	return bytes.HasPrefix(b, []byte("<!doctype html")) || bytes.HasPrefix(b, []byte("<html"))
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

func htmlTitle(body []byte) string {
	if m := titleRE.FindSubmatch(body); m != nil {
		if t := strings.Join(strings.Fields(string(m[1])), " "); t != "" {
			return " (title " + quoteJSON(t) + ")"
		}
	}
	return ""
}

// snippet quotes the first bytes of a body, for a message.
func snippet(body []byte) string {
	b := bytes.TrimSpace(body)
	if len(b) == 0 {
		return " (empty body)"
	}
	cut := ""
	if len(b) > 200 {
		b, cut = b[:200], "…"
	}
	return ": " + quoteJSON(strings.ToValidUTF8(string(b), "?")) + cut
}

// start runs s's request in the background: a POST of its input, or
// (reattach) a GET of the durable run's events.
func (s *session) start(parent context.Context) {
	ctx, cancel := context.WithCancel(parent)
	if s.Target.Timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, s.Target.Timeout)
	}
	s.cancel = cancel
	go func() {
		defer cancel()
		s.run(ctx)
	}()
}

func (s *session) run(ctx context.Context) {
	var req *http.Request
	var err error
	if s.Kind == kindReattach {
		u := strings.TrimSuffix(s.Target.URL, "/") + "/runs/" + url.PathEscape(s.RunID) + "/events?protocolVersion=" + agui.ProtocolVersion
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	} else {
		// The input declares the protocol version, as the client's do: a
		// server serves 1.0 to a consumer that declares nothing.
		cp := *s.Input
		if cp.ProtocolVersion == nil {
			v := agui.ProtocolVersion
			cp.ProtocolVersion = &v
		}
		var body []byte
		body, err = cp.AppendJSON(nil)
		if err == nil {
			req, err = http.NewRequestWithContext(ctx, http.MethodPost, s.Target.URL, bytes.NewReader(body))
		}
		if req != nil {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	if err != nil {
		s.finish(fmt.Sprintf("cannot make the request: %v", err), "")
		return
	}
	for k, v := range s.Target.Header {
		req.Header[k] = append(req.Header[k], v...)
	}
	accept := "text/event-stream"
	if s.Target.Proto {
		accept = protoframe.MediaType + ", text/event-stream;q=0.5"
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	s.readAnswer(ctx, resp, err)
}

// importCapture reads a captured stream (what agui verify reads: SSE,
// JSON Lines such as the inspector's export or agui run --json, a JSON
// array, protobuf frames) into a finished session.
func importCapture(name string, r io.Reader) (*session, error) {
	es, err := readEvents(r)
	if err != nil {
		return nil, err
	}
	s := newSession(kindImport, target{URL: name}, nil)
	s.Format = es.format
	for doc, err := range es.docs {
		if err != nil {
			s.finish("", fmt.Sprintf("the file is unreadable at byte %d: %v", es.at, err))
			return s, nil
		}
		s.addFrame(doc, string(doc), func(d func(agui.Event) bool) error { return s.pipe.Push(doc, d) })
	}
	s.finish("", "")
	return s, nil
}

// wait blocks until s has more than n frames, is done, or ctx ends.
func (s *session) wait(ctx context.Context, n int) {
	s.mu.Lock()
	if len(s.frames) > n || s.done {
		s.mu.Unlock()
		return
	}
	ch := s.changed
	s.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// waitDone blocks until s is done or ctx ends.
func (s *session) waitDone(ctx context.Context) error {
	for {
		s.mu.Lock()
		done, ch := s.done, s.changed
		s.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// reduceTo is the reducer's view after frame n: a conversation built from
// the session's input and every event delivered up to frame n, computed
// afresh by agui/conversation (and the state before frame n, for its diff).
func (s *session) reduceTo(n int) (after *conversation.Conversation, before json.RawMessage) {
	var msgs []agui.Message
	var state json.RawMessage
	if s.Input != nil {
		msgs, state = s.Input.Messages, s.Input.State
	}
	conv := conversation.New(msgs, state)
	s.mu.Lock()
	frames := s.frames[:min(n+1, len(s.frames))]
	s.mu.Unlock()
	before = conv.State()
	for i, f := range frames {
		if i == n {
			before = conv.State()
		}
		for _, ev := range f.events {
			conv.Apply(ev)
		}
	}
	return conv, before
}
