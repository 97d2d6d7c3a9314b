package cli

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
)

// The page is plain HTML, CSS and JavaScript with no build step: what is
// embedded is what is committed (docs/DESIGN.md, "agui inspect").
//
//go:embed inspect_ui
var inspectUI embed.FS

// inspector is the page's server: the sessions it has run or imported,
// and the routes the page calls. The Go side does the work (requests,
// checks, reducing); the page renders what it is given.
type inspector struct {
	ctx      context.Context // ends every session's request
	defaults target          // what the compose form starts with
	proxy    string          // the recording proxy's URL, when there is one
	mu       sync.Mutex
	sessions []*session
}

func newInspector(ctx context.Context, defaults target) *inspector {
	return &inspector{ctx: ctx, defaults: defaults}
}

func (in *inspector) add(s *session) {
	in.mu.Lock()
	in.sessions = append(in.sessions, s)
	in.mu.Unlock()
}

func (in *inspector) get(id string) *session {
	in.mu.Lock()
	defer in.mu.Unlock()
	i := slices.IndexFunc(in.sessions, func(s *session) bool { return s.ID == id })
	if i < 0 {
		return nil
	}
	return in.sessions[i]
}

func (in *inspector) handler() http.Handler {
	mux := http.NewServeMux()
	ui, _ := fs.Sub(inspectUI, "inspect_ui")
	mux.Handle("GET /", http.FileServerFS(ui))
	mux.HandleFunc("GET /api/config", in.config)
	mux.HandleFunc("GET /api/sessions", in.list)
	mux.HandleFunc("POST /api/runs", in.startRun)
	mux.HandleFunc("POST /api/reattach", in.reattach)
	mux.HandleFunc("POST /api/import", in.importFile)
	mux.HandleFunc("GET /api/sessions/{id}", in.frames)
	mux.HandleFunc("GET /api/sessions/{id}/frames/{n}", in.frame)
	mux.HandleFunc("GET /api/sessions/{id}/export", in.export)
	mux.HandleFunc("POST /api/sessions/{id}/cancel", in.cancel)
	mux.HandleFunc("POST /api/sessions/{id}/resume", in.resume)
	return mux
}

// apiError writes the JSON error body the SDK's servers use.
func apiError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

func (in *inspector) config(w http.ResponseWriter, r *http.Request) {
	h := []string{}
	for k, vs := range in.defaults.Header {
		for _, v := range vs {
			h = append(h, k+": "+v)
		}
	}
	slices.Sort(h)
	writeJSON(w, map[string]any{"url": in.defaults.URL, "headers": h, "proto": in.defaults.Proto, "proxy": in.proxy})
}

type sessionInfo struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	URL    string `json:"url"`
	RunID  string `json:"runId,omitempty"`
	Frames int    `json:"frames"`
	Done   bool   `json:"done"`
}

func (in *inspector) list(w http.ResponseWriter, r *http.Request) {
	in.mu.Lock()
	out := make([]sessionInfo, 0, len(in.sessions))
	for _, s := range in.sessions {
		s.mu.Lock()
		out = append(out, sessionInfo{ID: s.ID, Kind: s.Kind, URL: s.Target.URL, RunID: s.RunID, Frames: len(s.frames), Done: s.done})
		s.mu.Unlock()
	}
	in.mu.Unlock()
	writeJSON(w, out)
}

// runRequest is what the compose form sends.
type runRequest struct {
	URL     string          `json:"url"`
	Headers []string        `json:"headers"` // "Key: Value"
	Proto   bool            `json:"proto"`
	Input   json.RawMessage `json:"input"` // a RunAgentInput document; threadId, runId and messages may be left out
	RunID   string          `json:"runId"` // reattach
}

func (rr *runRequest) target() (target, error) {
	if rr.URL == "" {
		return target{}, errors.New("the agent's URL is empty")
	}
	if !strings.HasPrefix(rr.URL, "http://") && !strings.HasPrefix(rr.URL, "https://") {
		return target{}, fmt.Errorf("the agent's URL must start with http:// or https://, not %q", rr.URL)
	}
	t := target{URL: rr.URL, Proto: rr.Proto, Header: http.Header{}}
	for _, h := range rr.Headers {
		if strings.TrimSpace(h) == "" {
			continue
		}
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return target{}, fmt.Errorf("a header is 'Key: Value', not %q", h)
		}
		t.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return t, nil
}

func readRunRequest(w http.ResponseWriter, r *http.Request) (*runRequest, target, bool) {
	var rr runRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&rr); err != nil {
		apiError(w, http.StatusBadRequest, "INVALID_REQUEST", "the request is not a JSON object: "+err.Error())
		return nil, target{}, false
	}
	t, err := rr.target()
	if err != nil {
		apiError(w, http.StatusBadRequest, "INVALID_REQUEST", err.Error())
		return nil, target{}, false
	}
	return &rr, t, true
}

// decodeRunInput reads a RunAgentInput document, filling in what the
// reference client fills in (as agui run does).
func decodeRunInput(doc []byte) (*agui.RunAgentInput, error) {
	in := &agui.RunAgentInput{}
	if len(strings.TrimSpace(string(doc))) > 0 && string(doc) != "null" {
		var err error
		in, _, err = client.DecodeInput(doc)
		if err != nil {
			return nil, err
		}
	}
	if in.ThreadID == "" {
		in.ThreadID = agui.NewID()
	}
	if in.RunID == "" {
		in.RunID = agui.NewID()
	}
	if in.Messages == nil {
		in.Messages = []agui.Message{}
	}
	if in.State == nil {
		in.State = json.RawMessage("{}")
	}
	if in.Tools == nil {
		in.Tools = []agui.Tool{}
	}
	if in.Context == nil {
		in.Context = []agui.Context{}
	}
	if in.ForwardedProps == nil {
		in.ForwardedProps = json.RawMessage("{}")
	}
	return in, nil
}

func (in *inspector) startRun(w http.ResponseWriter, r *http.Request) {
	rr, t, ok := readRunRequest(w, r)
	if !ok {
		return
	}
	input, err := decodeRunInput(rr.Input)
	if err != nil {
		apiError(w, http.StatusBadRequest, "INVALID_INPUT", "the run's input is not a RunAgentInput: "+err.Error())
		return
	}
	s := newSession(kindRun, t, input)
	in.add(s)
	s.start(in.ctx)
	writeJSON(w, map[string]string{"id": s.ID})
}

func (in *inspector) reattach(w http.ResponseWriter, r *http.Request) {
	rr, t, ok := readRunRequest(w, r)
	if !ok {
		return
	}
	if rr.RunID == "" {
		apiError(w, http.StatusBadRequest, "INVALID_REQUEST", "reattach needs the run's id")
		return
	}
	s := newSession(kindReattach, t, nil)
	s.RunID = rr.RunID
	in.add(s)
	s.start(in.ctx)
	writeJSON(w, map[string]string{"id": s.ID})
}

func (in *inspector) importFile(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" {
		name = "imported file"
	}
	s, err := importCapture(name, http.MaxBytesReader(w, r.Body, 256<<20))
	if err != nil {
		apiError(w, http.StatusBadRequest, "UNREADABLE", name+": "+err.Error())
		return
	}
	in.add(s)
	writeJSON(w, map[string]string{"id": s.ID})
}

// framesPage is the timeline's view of a session: the rows from an
// index on, and how the session stands.
type framesPage struct {
	ID          string             `json:"id"`
	Kind        string             `json:"kind"`
	URL         string             `json:"url"`
	RunID       string             `json:"runId,omitempty"`
	Format      string             `json:"format,omitempty"`
	Done        bool               `json:"done"`
	Problem     string             `json:"problem,omitempty"`
	Note        string             `json:"note,omitempty"`
	Total       int                `json:"total"`
	From        int                `json:"from"`
	Frames      []frameSummary     `json:"frames"`
	End         []finding          `json:"end"`
	Verdicts    map[string]verdict `json:"verdicts,omitempty"`
	Outcome     string             `json:"outcome,omitempty"`
	Interrupts  []agui.Interrupt   `json:"interrupts,omitempty"`
	Durable     bool               `json:"durable"`
	LastEventID string             `json:"lastEventId,omitempty"`
}

// maxPage is how many rows one answer carries at most.
const maxPage = 5000

// frames answers the rows from ?from= on; with ?wait=1 it waits (up to
// 20 s) until there are some or the session is done.
func (in *inspector) frames(w http.ResponseWriter, r *http.Request) {
	s := in.get(r.PathValue("id"))
	if s == nil {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "no such session")
		return
	}
	from, _ := strconv.Atoi(r.URL.Query().Get("from"))
	from = max(from, 0)
	if r.URL.Query().Get("wait") == "1" {
		ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
		s.wait(ctx, from)
		cancel()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := framesPage{ID: s.ID, Kind: s.Kind, URL: s.Target.URL, RunID: s.RunID, Format: s.Format, Done: s.done,
		Problem: s.problem, Note: s.note, Total: len(s.frames), From: from, Frames: []frameSummary{}, End: s.end,
		LastEventID: s.lastEventID, Durable: s.lastEventID != ""}
	if p.End == nil {
		p.End = []finding{}
	}
	for _, f := range s.frames[min(from, len(s.frames)):min(from+maxPage, len(s.frames))] {
		fs := frameSummary{Index: f.Index, Type: f.Type, IDs: f.IDs, Size: f.Size, DeltaMS: f.DeltaMS, Depth: f.Depth, Agent: f.Agent}
		for _, fd := range f.Findings {
			if fd.Severity == "error" {
				fs.Errors++
			} else {
				fs.Warnings++
			}
		}
		p.Frames = append(p.Frames, fs)
	}
	if s.done {
		p.Verdicts = map[string]verdict{}
		for name, r := range s.verdicts {
			v := verdictOf(r)
			v.Protocol = r.Protocol
			v.Warnings = []warningJSON{}
			p.Verdicts[name] = v
		}
		out := s.conv.Outcome()
		p.Outcome = out.Status.String()
		if cancelledByError(out) {
			// Stopped on purpose, as RUN_FINISHED cancelled is: the page
			// says so, and says which terminal event said it.
			p.Outcome = conversation.Cancelled.String()
			if p.Note == "" {
				p.Note = "cancelled: the run ended with RUN_ERROR " + string(agui.CodeCancelled) + ": " + out.Error.Message
			}
		}
		if out.Status == conversation.Interrupted && s.Kind != kindImport {
			p.Interrupts = s.conv.Interrupts()
		}
	}
	writeJSON(w, p)
}

// cancelledByError says whether a run ended with a RUN_ERROR whose code is
// CANCELLED: a run that was stopped, not one that failed. The reducer calls
// every RUN_ERROR a failure (only RUN_FINISHED replaces a run's interrupts),
// but a durable server's cancel route ends a run so when the agent left a
// message or tool call open, where RUN_FINISHED cancelled is not allowed.
func cancelledByError(o conversation.Outcome) bool {
	return o.Status == conversation.Failed && o.Error != nil && o.Error.Code != nil && *o.Error.Code == string(agui.CodeCancelled)
}

// frameDetail is one frame in full, with the reducer's view after it.
type frameDetail struct {
	inspectFrame
	Doc         json.RawMessage   `json:"doc"`
	Wire        string            `json:"wire"`
	Events      []json.RawMessage `json:"events"`
	Messages    json.RawMessage   `json:"messages"`
	State       string            `json:"state"`       // the state after the frame, indented
	StateBefore string            `json:"stateBefore"` // and before it
	StateDiff   []diffLine        `json:"stateDiff"`
}

func (in *inspector) frame(w http.ResponseWriter, r *http.Request) {
	s := in.get(r.PathValue("id"))
	if s == nil {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "no such session")
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	s.mu.Lock()
	total := len(s.frames)
	var f *inspectFrame
	if err == nil && n >= 0 && n < total {
		f = s.frames[n]
	}
	var d frameDetail
	if f != nil {
		d.inspectFrame = *f
		d.Findings = slices.Clone(f.Findings)
	}
	s.mu.Unlock()
	if f == nil {
		apiError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("no frame %q: the session has %d", r.PathValue("n"), total))
		return
	}
	d.Doc = f.doc
	if !json.Valid(f.doc) {
		d.Doc, _ = json.Marshal(string(f.doc))
	}
	d.Wire = f.wire
	d.Events = []json.RawMessage{}
	for _, ev := range f.events {
		b, err := ev.AppendJSON(nil)
		if err == nil {
			d.Events = append(d.Events, b)
		}
	}
	conv, before := s.reduceTo(n)
	d.Messages, _ = json.Marshal(conv.Messages())
	d.State, d.StateBefore = indentJSON(conv.State()), indentJSON(before)
	d.StateDiff = lineDiff(d.StateBefore, d.State)
	writeJSON(w, d)
}

func indentJSON(b []byte) string {
	if len(b) == 0 {
		return "null"
	}
	var out strings.Builder
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	return strings.TrimSuffix(out.String(), "\n")
}

// export writes the session's event documents as JSON Lines: what agui
// verify (and this page's import) reads.
func (in *inspector) export(w http.ResponseWriter, r *http.Request) {
	s := in.get(r.PathValue("id"))
	if s == nil {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "no such session")
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="run-`+s.ID+`.jsonl"`)
	s.mu.Lock()
	frames := slices.Clone(s.frames)
	s.mu.Unlock()
	for _, f := range frames {
		w.Write(f.doc)
		w.Write([]byte("\n"))
	}
}

// cancel stops a running session: a durable server is asked to cancel
// the run (so that it ends with its own RUN_ERROR); the request is
// aborted when that is not possible.
func (in *inspector) cancel(w http.ResponseWriter, r *http.Request) {
	s := in.get(r.PathValue("id"))
	if s == nil {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "no such session")
		return
	}
	s.mu.Lock()
	done, durable, runID := s.done, s.lastEventID != "", s.RunID
	s.mu.Unlock()
	if done {
		writeJSON(w, map[string]string{"result": "the run had already ended"})
		return
	}
	if durable && runID != "" {
		var opts []client.Option
		for k, vs := range s.Target.Header {
			for _, v := range vs {
				opts = append(opts, client.WithHeader(k, v))
			}
		}
		if c, err := client.New(s.Target.URL, opts...); err == nil {
			ctx, stop := context.WithTimeout(r.Context(), 5*time.Second)
			err = c.Cancel(ctx, runID)
			stop()
			if err == nil {
				writeJSON(w, map[string]string{"result": "the server was asked to cancel run " + runID})
				return
			}
		}
	}
	if s.cancel != nil {
		s.cancel()
	}
	writeJSON(w, map[string]string{"result": "the request was aborted"})
}

// resumeRequest answers a finished session's interrupts.
type resumeRequest struct {
	Resume []agui.ResumeEntry `json:"resume"`
}

func (in *inspector) resume(w http.ResponseWriter, r *http.Request) {
	s := in.get(r.PathValue("id"))
	if s == nil {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "no such session")
		return
	}
	var rr resumeRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&rr); err != nil {
		apiError(w, http.StatusBadRequest, "INVALID_REQUEST", "the answers are not a JSON object: "+err.Error())
		return
	}
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if !done || s.Kind == kindImport {
		apiError(w, http.StatusConflict, "NOT_RESUMABLE", "only a finished run of this page can be resumed")
		return
	}
	opts := conversation.InputOptions{Resume: rr.Resume}
	if s.Input != nil {
		opts.ThreadID, opts.Tools, opts.Context, opts.ForwardedProps = s.Input.ThreadID, s.Input.Tools, s.Input.Context, s.Input.ForwardedProps
	}
	s.mu.Lock() // the conversation is not safe for concurrent use
	next, err := s.conv.NextInput(opts)
	s.mu.Unlock()
	if err != nil {
		apiError(w, http.StatusBadRequest, "INVALID_RESUME", err.Error())
		return
	}
	ns := newSession(kindResume, s.Target, next)
	in.add(ns)
	ns.start(in.ctx)
	writeJSON(w, map[string]string{"id": ns.ID})
}

// diffLine is one line of a line diff: op is " ", "-" or "+".
type diffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// maxDiffLines bounds the quadratic diff; past it the diff is whole
// removal and addition.
const maxDiffLines = 2000

// lineDiff diffs two texts line by line (longest common subsequence).
func lineDiff(a, b string) []diffLine {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	out := []diffLine{}
	if len(x) > maxDiffLines || len(y) > maxDiffLines {
		for _, l := range x {
			out = append(out, diffLine{"-", l})
		}
		for _, l := range y {
			out = append(out, diffLine{"+", l})
		}
		return out
	}
	// lcs[i][j] is the LCS length of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			out = append(out, diffLine{" ", x[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{"-", x[i]})
			i++
		default:
			out = append(out, diffLine{"+", y[j]})
			j++
		}
	}
	for ; i < len(x); i++ {
		out = append(out, diffLine{"-", x[i]})
	}
	for ; j < len(y); j++ {
		out = append(out, diffLine{"+", y[j]})
	}
	return out
}
