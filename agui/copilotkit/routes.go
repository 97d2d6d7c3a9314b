package copilotkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// inner is r as a request to an agent's handler: method and path there,
// body as the body, the headers the client sent (the agent's hooks see its
// cookies and credentials) with the content type and the one encoding a
// CopilotKit client reads.
func inner(r *http.Request, method, path string, body []byte) *http.Request {
	ir := r.Clone(r.Context())
	ir.Method = method
	u, _ := url.Parse(path) // our own paths, escaped by the callers
	ir.URL = u
	ir.RequestURI = ""
	ir.Body = io.NopCloser(bytes.NewReader(body))
	ir.ContentLength = int64(len(body))
	ir.GetBody = nil
	ir.Header.Del("Content-Length")
	ir.Header.Del("Last-Event-ID")
	if body != nil {
		ir.Header.Set("Content-Type", "application/json")
	} else {
		ir.Header.Del("Content-Type")
	}
	ir.Header.Set("Accept", "text/event-stream")
	return ir
}

// serveRun runs the agent on the input the client sent.
func (h *Handler) serveRun(w http.ResponseWriter, r *http.Request, a *Agent, rt route) {
	if !rt.envelope {
		// The body is read here, not streamed to the agent's handler, to
		// see whether it resumes under a run id the thread has used.
		body, ok := h.readBody(w, r, false)
		if !ok {
			return
		}
		rt.body = body
	}
	rt.body = h.freshResumeID(r, a, rt.body)
	if !rt.envelope {
		// The body was read here: the agent's handler reads it again from
		// memory. Replacing a request's body is what a handler may do (as
		// http.MaxBytesReader is used), and saves copying the request.
		r.Body, r.ContentLength, r.GetBody = io.NopCloser(bytes.NewReader(rt.body)), int64(len(rt.body)), nil
	}
	d := newDialect(w, false, h.cfg.logger)
	sse := r.Header.Get("Accept") == "text/event-stream"
	switch {
	case rt.envelope && sse:
		// What the client sends: the request as it is, with the input
		// the envelope carried as its body.
		ir := r.WithContext(r.Context())
		ir.Body, ir.ContentLength, ir.GetBody = io.NopCloser(bytes.NewReader(rt.body)), int64(len(rt.body)), nil
		a.Handler.ServeHTTP(d, ir)
	case rt.envelope:
		a.Handler.ServeHTTP(d, inner(r, http.MethodPost, "/", rt.body))
	case sse:
		// What the client sends: the request is the agent's as it is
		// (a POST is a run whatever its path), body and all.
		a.Handler.ServeHTTP(d, r)
	default:
		ir := inner(r, http.MethodPost, "/", nil)
		ir.Body, ir.ContentLength = r.Body, r.ContentLength
		ir.Header.Set("Content-Type", r.Header.Get("Content-Type"))
		a.Handler.ServeHTTP(d, ir)
	}
	d.finish()
}

// resumeInput is what freshResumeID reads of a run's input.
type resumeInput struct {
	ThreadID string            `json:"threadId"`
	RunID    string            `json:"runId"`
	Resume   []json.RawMessage `json:"resume"`
}

// freshResumeID gives a run that answers interrupts a run id of its own
// when the client sent the interrupted run's. CopilotKit's useInterrupt
// (@copilotkit/react-core 1.74.0) resumes under the id of the run that
// asked, while in AG-UI 1.0 the resuming run is a run of its own and the
// agent handler refuses a run id it has seen (409 RUN_EXISTS). So when the
// input resumes and its runId is the newest run of its thread, the runId
// is replaced by a new one (the client follows the stream's RUN_STARTED);
// any other input, or one the thread cannot be read for, goes as it came,
// and the agent handler judges it.
func (h *Handler) freshResumeID(r *http.Request, a *Agent, body []byte) []byte {
	if !bytes.Contains(body, resumeKey) {
		return body // no resume (most runs): not decoded at all
	}
	var in resumeInput
	if json.Unmarshal(body, &in) != nil || len(in.Resume) == 0 || in.RunID == "" || in.ThreadID == "" {
		return body
	}
	rec := newRecorder()
	a.Handler.ServeHTTP(rec, inner(r, http.MethodGet, "/threads/"+url.PathEscape(in.ThreadID)+"?limit=1", nil))
	var thread struct {
		Runs []struct {
			RunID string `json:"runId"`
		} `json:"runs"`
	}
	if rec.code != http.StatusOK || json.Unmarshal(rec.body.Bytes(), &thread) != nil ||
		len(thread.Runs) == 0 || thread.Runs[0].RunID != in.RunID {
		return body
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return body
	}
	fresh := agui.NewID()
	members["runId"], _ = json.Marshal(fresh)
	out, err := json.Marshal(members)
	if err != nil {
		return body
	}
	h.cfg.logger.InfoContext(r.Context(), "agui/copilotkit: a resume came under the interrupted run's id; it runs under a new one",
		"threadId", in.ThreadID, "interruptedRunId", in.RunID, "runId", fresh)
	return out
}

// resumeKey is in every input that resumes: the member's name.
var resumeKey = []byte(`"resume"`)

// connectInput is what connect reads of its RunAgentInput: the thread.
type connectInput struct {
	ThreadID *string `json:"threadId"`
}

// serveConnect streams the thread's connect stream: its history, then its
// live run. A thread the agent's store does not know (or forgot) is an
// empty stream, as CopilotKit's own runtime answers: a page mounting a new
// conversation connects to a thread no run has made yet.
func (h *Handler) serveConnect(w http.ResponseWriter, r *http.Request, a *Agent, rt route) {
	var in connectInput
	if err := json.Unmarshal(rt.body, &in); err != nil {
		h.reject(w, r, agui.HTTPCodeInvalidInput, "the connect body is not a RunAgentInput: "+jsonProblem(err))
		return
	}
	if in.ThreadID == nil || *in.ThreadID == "" {
		h.reject(w, r, agui.HTTPCodeInvalidInput, "the connect body names no threadId")
		return
	}
	d := newDialect(w, true, h.cfg.logger)
	a.Handler.ServeHTTP(d, inner(r, http.MethodGet, "/threads/"+url.PathEscape(*in.ThreadID)+"/events", nil))
	d.finish()
}

// stopScope is a stop's body: the run to stop, when the client knows it.
type stopScope struct {
	RunID *string `json:"runId"`
}

// stopAnswer is the JSON a stop answers with, the shape of CopilotKit's
// runtime: stopped, and why not when it did not.
type stopAnswer struct {
	Stopped   bool           `json:"stopped"`
	Message   string         `json:"message,omitempty"`
	ThreadID  string         `json:"threadId"`
	RunID     string         `json:"runId,omitempty"`
	Interrupt *stopInterrupt `json:"interrupt,omitempty"`
}

// stopInterrupt is the event CopilotKit's runtime names in its answer; here
// it is the RUN_ERROR the client's stream ends with.
type stopInterrupt struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

// serveStop stops the thread's live run: the one the client names, or
// whichever is live when it names none. It reads the live run's id from
// the thread and cancels that run by id, so a run that ended in between is
// not stopped and neither is the next one on the thread.
func (h *Handler) serveStop(w http.ResponseWriter, r *http.Request, a *Agent, rt route) {
	var scope stopScope
	if len(bytes.TrimSpace(rt.body)) > 0 && string(bytes.TrimSpace(rt.body)) != "null" {
		if err := json.Unmarshal(rt.body, &scope); err != nil {
			h.reject(w, r, agui.HTTPCodeInvalidInput, "the stop body is not {runId}: "+jsonProblem(err))
			return
		}
		if scope.RunID != nil && strings.TrimSpace(*scope.RunID) == "" {
			h.reject(w, r, agui.HTTPCodeInvalidInput, "the stop body's runId is empty")
			return
		}
	}
	ans := stopAnswer{ThreadID: rt.threadID}
	// The thread's record, with as few runs as it lists.
	rec := newRecorder()
	a.Handler.ServeHTTP(rec, inner(r, http.MethodGet, "/threads/"+url.PathEscape(rt.threadID)+"?limit=1", nil))
	switch rec.code {
	case http.StatusOK:
	case http.StatusNotFound, http.StatusGone:
		ans.Message = "no active run on thread " + strconv.Quote(rt.threadID)
		writeJSON(w, http.StatusOK, ans)
		return
	default:
		copyResponse(w, rec)
		return
	}
	var thread struct {
		LiveRunID string `json:"liveRunId"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &thread); err != nil {
		h.reject(w, r, agui.HTTPCodeAgentError, "the agent's thread route answered what is not a thread: "+err.Error())
		return
	}
	runID := thread.LiveRunID
	switch {
	case runID == "":
		ans.Message = "no active run on thread " + strconv.Quote(rt.threadID)
		writeJSON(w, http.StatusOK, ans)
		return
	case scope.RunID != nil && *scope.RunID != runID:
		ans.RunID = *scope.RunID
		ans.Message = "run " + strconv.Quote(*scope.RunID) + " is not the active run of thread " + strconv.Quote(rt.threadID)
		writeJSON(w, http.StatusOK, ans)
		return
	}
	ans.RunID = runID
	rec = newRecorder()
	a.Handler.ServeHTTP(rec, inner(r, http.MethodPost, "/runs/"+url.PathEscape(runID)+"/cancel?reason="+url.QueryEscape("stopped from CopilotKit"), nil))
	switch rec.code {
	case http.StatusAccepted, http.StatusOK:
		ans.Stopped = true
		ans.Interrupt = &stopInterrupt{Type: string(agui.EventTypeRunError), Message: stoppedMessage, Code: codeAbort}
		writeJSON(w, http.StatusOK, ans)
	case http.StatusConflict, http.StatusNotFound, http.StatusGone:
		// It ended (or was forgotten) since the thread named it.
		ans.Message = "run " + strconv.Quote(runID) + " has already ended"
		writeJSON(w, http.StatusOK, ans)
	default:
		copyResponse(w, rec)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// copyResponse passes an agent handler's refusal on as it is: its status,
// the JSON error body and the headers that go with it.
func copyResponse(w http.ResponseWriter, rec *recorder) {
	for _, k := range []string{"Content-Type", "X-Content-Type-Options", "Retry-After", "Allow"} {
		if v := rec.h.Get(k); v != "" {
			w.Header().Set(k, v)
		}
	}
	w.WriteHeader(rec.code)
	_, _ = w.Write(rec.body.Bytes())
}
