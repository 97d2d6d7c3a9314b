package copilotkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/cors"
)

// Agent is one agent a [Handler] serves.
type Agent struct {
	// ID names the agent in the client (useAgent({agentId}), the routes'
	// {id}). Required, unique within a Handler.
	ID string
	// Description is shown by the client's agent pickers and the runtime
	// info.
	Description string
	// Capabilities are the agent's AG-UI capabilities, passed to the client
	// in the runtime info (agent.capabilities). Nil leaves them out.
	Capabilities *agui.AgentCapabilities
	// Handler is the agent's AG-UI endpoint, made with server.NewHandler.
	// Run needs only that; connect needs server.WithThreads and stop needs
	// server.WithDurableRuns with it. Its own CORS option is best left off:
	// the Handler answers preflights and sets the CORS headers itself.
	Handler http.Handler
}

// Authorize decides whether r may use agent agentID (every route but a CORS
// preflight asks it; info asks with an empty agentID). A non-nil error
// refuses the request with 403 and the error's text.
type Authorize func(r *http.Request, agentID string) error

// Option configures a [Handler].
type Option func(*config)

type config struct {
	version string
	auth    Authorize
	cors    *cors.Policy
	logger  *slog.Logger
}

// WithAuthorize sets the hook every request passes before it reaches an
// agent. The agents' own hooks (server.DurableConfig.Authorize,
// server.ThreadConfig.Authorize) still apply to connect and stop: they see
// the request's headers as the client sent them.
func WithAuthorize(a Authorize) Option { return func(c *config) { c.auth = a } }

// WithVersion sets the runtime version the info reports ("version"); the
// client shows it in its inspector. The default is [RuntimeVersion].
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithLogger sets where rejected requests are logged (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// RuntimeVersion is the version the runtime info reports by default: the
// CopilotKit runtime line whose client this package is tested against.
const RuntimeVersion = "1.75.0"

// Handler is a CopilotKit runtime serving a set of agents. Its zero value
// is not usable; make one with [New].
type Handler struct {
	agents map[string]*Agent
	order  []string
	cfg    config
	info   []byte // the runtime info, encoded once
}

// New returns a Handler serving agents. It fails when an agent has no id, no
// handler, or an id another agent has.
func New(agents []Agent, opts ...Option) (*Handler, error) {
	h := &Handler{agents: map[string]*Agent{}, cfg: config{version: RuntimeVersion, logger: slog.Default()}}
	for _, o := range opts {
		o(&h.cfg)
	}
	for i := range agents {
		a := agents[i]
		switch {
		case a.ID == "":
			return nil, fmt.Errorf("copilotkit: agent %d has no id", i)
		case a.Handler == nil:
			return nil, fmt.Errorf("copilotkit: agent %q has no handler", a.ID)
		case h.agents[a.ID] != nil:
			return nil, fmt.Errorf("copilotkit: two agents have the id %q", a.ID)
		}
		h.agents[a.ID] = &a
		h.order = append(h.order, a.ID)
	}
	info, err := runtimeInfo(h.cfg.version, h.order, h.agents)
	if err != nil {
		return nil, err
	}
	h.info = info
	return h, nil
}

// Mount registers h on mux at path (such as "/api/copilotkit"): the path
// itself (the single-route endpoint) and everything under it (the
// multi-route form).
func Mount(mux *http.ServeMux, path string, h http.Handler) {
	path = strings.TrimSuffix(path, "/")
	if path == "" {
		mux.Handle("/", h)
		return
	}
	mux.Handle(path, h)
	mux.Handle(path+"/", h)
}

// The methods of the single-route envelope, as the client names them.
const (
	methodInfo    = "info"
	methodRun     = "agent/run"
	methodConnect = "agent/connect"
	methodStop    = "agent/stop"
)

// knownMethods are the envelope methods CopilotKit's runtime accepts that
// this one does not serve: the client is told so (501), not that they do
// not exist.
var knownMethods = map[string]bool{
	"agent/suggest": true, "inspector/metadata": true, "inspector/learning": true,
	"transcribe": true, "resource/request": true,
}

// route is what a request asks for, whichever form it came in.
type route struct {
	method   string
	agentID  string
	threadID string // stop
	body     []byte // run, connect: the RunAgentInput; stop: {runId}
	envelope bool
}

// bodyTimeout is how long a body read here (an envelope, a connect's or a
// stop's) may take to arrive: the agent handler's default.
const bodyTimeout = 30 * time.Second

// maxEnvelope bounds a single-route envelope read whole to find its method;
// a run's own body limit (server.WithMaxBodyBytes, 10 MiB by default)
// applies again to the body it carries.
const maxEnvelope = 16 << 20

// ServeHTTP answers the runtime's routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c := h.cfg.cors; c != nil {
		if r.Method == http.MethodOptions {
			h.preflight(w, r)
			return
		}
		c.SetHeaders(w.Header(), r)
	}
	rt, ok := h.route(w, r)
	if !ok {
		return
	}
	if rt.method != methodInfo {
		if h.agents[rt.agentID] == nil {
			h.reject(w, r, codeAgentNotFound, "no agent "+strconv.Quote(rt.agentID)+" on this runtime; the info lists those there are")
			return
		}
	}
	if a := h.cfg.auth; a != nil {
		if err := a(r, rt.agentID); err != nil {
			h.reject(w, r, codeForbidden, err.Error())
			return
		}
	}
	switch rt.method {
	case methodInfo:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(h.info)
	case methodRun:
		h.serveRun(w, r, h.agents[rt.agentID], rt)
	case methodConnect:
		h.serveConnect(w, r, h.agents[rt.agentID], rt)
	case methodStop:
		h.serveStop(w, r, h.agents[rt.agentID], rt)
	}
}

// route reads what r asks for from its path (the multi-route form) or its
// envelope (a POST to any other path), or answers it with why not.
func (h *Handler) route(w http.ResponseWriter, r *http.Request) (route, bool) {
	segs := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	n := len(segs)
	seg := func(i int) string { // the i-th segment from the end, 1-based
		if i > n {
			return ""
		}
		return segs[n-i]
	}
	want := http.MethodPost
	var rt route
	switch {
	case n >= 4 && seg(4) == "agent" && seg(2) == "stop":
		rt.method, rt.agentID, rt.threadID = methodStop, seg(3), seg(1)
	case n >= 3 && seg(3) == "agent" && seg(1) == "run":
		rt.method, rt.agentID = methodRun, seg(2)
	case n >= 3 && seg(3) == "agent" && seg(1) == "connect":
		rt.method, rt.agentID = methodConnect, seg(2)
	case seg(1) == "info":
		rt.method, want = methodInfo, http.MethodGet
	default:
		if r.Method != http.MethodPost {
			if r.Method == http.MethodGet && seg(2) == "agent" {
				w.Header().Set("Allow", http.MethodPost)
				h.reject(w, r, agui.HTTPCodeMethodNotAllowed, "method GET is not allowed here; use POST")
				return rt, false
			}
			h.reject(w, r, codeNotFound, "no route "+r.Method+" "+r.URL.Path+" on this runtime")
			return rt, false
		}
		return h.envelope(w, r)
	}
	if r.Method != want {
		w.Header().Set("Allow", want)
		h.reject(w, r, agui.HTTPCodeMethodNotAllowed, "method "+r.Method+" is not allowed here; use "+want)
		return rt, false
	}
	for _, p := range []*string{&rt.agentID, &rt.threadID} {
		v, err := url.PathUnescape(*p)
		if err != nil {
			h.reject(w, r, agui.HTTPCodeInvalidInput, "the path is not validly escaped: "+err.Error())
			return rt, false
		}
		*p = v
	}
	if rt.method == methodRun || rt.method == methodConnect || rt.method == methodStop {
		if rt.agentID == "" || (rt.method == methodStop && rt.threadID == "") {
			h.reject(w, r, codeNotFound, "no route "+r.Method+" "+r.URL.Path+" on this runtime")
			return rt, false
		}
	}
	// A run's body is read by serveRun (it looks for a resume under a
	// used run id), connect's and stop's here; the agent's handler applies
	// its own limits again to the run's.
	if rt.method == methodConnect || rt.method == methodStop {
		body, ok := h.readBody(w, r, rt.method != methodStop)
		if !ok {
			return rt, false
		}
		rt.body = body
	}
	return rt, true
}

// envelope reads a single-route envelope.
func (h *Handler) envelope(w http.ResponseWriter, r *http.Request) (route, bool) {
	var rt route
	rt.envelope = true
	body, ok := h.readBody(w, r, true)
	if !ok {
		return rt, false
	}
	rawMethod, rawParams, rawBody, err := splitEnvelope(body)
	if err != nil {
		h.reject(w, r, agui.HTTPCodeInvalidInput, "the body is not a single-route envelope {method, params, body}: "+err.Error())
		return rt, false
	}
	var method string
	if n := len(rawMethod); n >= 2 && rawMethod[0] == '"' && bytes.IndexByte(rawMethod, '\\') < 0 {
		method = string(rawMethod[1 : n-1]) // a string with no escapes (splitEnvelope found its end)
	} else if n > 0 && string(rawMethod) != "null" {
		if err := json.Unmarshal(rawMethod, &method); err != nil {
			h.reject(w, r, agui.HTTPCodeInvalidInput, "the envelope's method is not a string: "+jsonProblem(err))
			return rt, false
		}
	}
	if method == "" {
		h.reject(w, r, agui.HTTPCodeInvalidInput, "the envelope names no method")
		return rt, false
	}
	rt.method = method
	var params struct {
		AgentID  *string `json:"agentId"`
		ThreadID *string `json:"threadId"`
	}
	if len(rawParams) > 0 && string(rawParams) != "null" {
		// What the client sends is read without reflection; anything
		// else by encoding/json, which refuses what is not JSON.
		var plain bool
		params.AgentID, params.ThreadID, plain = plainParams(rawParams)
		if err := unlessPlain(plain, rawParams, &params); err != nil {
			h.reject(w, r, agui.HTTPCodeInvalidInput, "the envelope's params are not an object of strings: "+jsonProblem(err))
			return rt, false
		}
	}
	need := func(name string, v *string) (string, bool) {
		if v == nil || strings.TrimSpace(*v) == "" {
			h.reject(w, r, agui.HTTPCodeInvalidInput, "method "+strconv.Quote(rt.method)+" needs params."+name)
			return "", false
		}
		return *v, true
	}
	switch rt.method {
	case methodInfo:
		return rt, true
	case methodRun, methodConnect:
		if rt.agentID, ok = need("agentId", params.AgentID); !ok {
			return rt, false
		}
		if len(rawBody) == 0 || string(rawBody) == "null" {
			h.reject(w, r, agui.HTTPCodeInvalidInput, "method "+strconv.Quote(rt.method)+" needs a body, the RunAgentInput")
			return rt, false
		}
		rt.body = rawBody
	case methodStop:
		if rt.agentID, ok = need("agentId", params.AgentID); !ok {
			return rt, false
		}
		if rt.threadID, ok = need("threadId", params.ThreadID); !ok {
			return rt, false
		}
		rt.body = rawBody
	default:
		if knownMethods[rt.method] {
			h.reject(w, r, codeNotImplemented, "method "+strconv.Quote(rt.method)+" is not served by this runtime")
		} else {
			h.reject(w, r, codeUnknownMethod, "unknown method "+strconv.Quote(rt.method)+`; this runtime serves "info", "agent/run", "agent/connect" and "agent/stop"`)
		}
		return rt, false
	}
	return rt, true
}

// unlessPlain decodes raw into v with encoding/json unless plain says it
// was read already.
func unlessPlain(plain bool, raw []byte, v any) error {
	if plain {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// readAll reads r's body, up to maxEnvelope bytes. A body of a known
// length is read into a slice of that length, so that the common case
// allocates once (bytes.Buffer.ReadFrom would grow it to make room for a
// read past its end); a body longer than it said is refused.
func readAll(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	n := r.ContentLength
	if n > maxEnvelope {
		return nil, &http.MaxBytesError{Limit: maxEnvelope}
	}
	if n < 0 {
		buf := bytes.NewBuffer(nil)
		_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxEnvelope))
		return buf.Bytes(), err
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r.Body, body); err != nil {
		if err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("the body ended after fewer bytes than its Content-Length (%d)", n)
		}
		return nil, err
	}
	var more [1]byte
	if k, _ := r.Body.Read(more[:]); k > 0 {
		return nil, fmt.Errorf("the body is longer than its Content-Length (%d)", n)
	}
	return body, nil
}

// readBody reads a request body whole; json says it must be JSON (a stop's
// may be empty).
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, required bool) ([]byte, bool) {
	if ct := r.Header.Get("Content-Type"); required || ct != "" {
		if !isJSON(ct) && !(ct == "" && !required) {
			h.reject(w, r, agui.HTTPCodeUnsupportedMediaType, "the body must be application/json, not "+strconv.Quote(ct))
			return nil, false
		}
	}
	// A body that does not arrive in time is refused, as the agent
	// handler refuses one (its default); the deadline is lifted once it is
	// in, so that it does not cut the stream that follows.
	rc := http.NewResponseController(w)
	timed := rc.SetReadDeadline(time.Now().Add(bodyTimeout)) == nil
	body, err := readAll(w, r)
	if timed && err == nil {
		_ = rc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			h.reject(w, r, agui.HTTPCodeRequestTooLarge, "the body is over "+strconv.Itoa(maxEnvelope)+" bytes")
			return nil, false
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			h.reject(w, r, agui.HTTPCodeRequestTimeout, "the body did not arrive within "+bodyTimeout.String())
			return nil, false
		}
		h.reject(w, r, agui.HTTPCodeInvalidInput, "the body could not be read: "+err.Error())
		return nil, false
	}
	return body, true
}

func isJSON(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// jsonProblem says briefly what is wrong with a JSON body.
func jsonProblem(err error) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if te.Field != "" {
			return te.Field + " is " + te.Value + ", not " + te.Type.String()
		}
		return "it is " + te.Value + ", not an object"
	}
	return err.Error()
}

// The codes of this runtime's own refusals, beside the agui.HTTPCode ones
// the agents' handlers answer with: the same JSON body, and a top-level
// "message" too, which is the member CopilotKit's client shows.
const (
	codeAgentNotFound  agui.HTTPCode = "AGENT_NOT_FOUND"
	codeNotFound       agui.HTTPCode = "NOT_FOUND"
	codeUnknownMethod  agui.HTTPCode = "UNKNOWN_METHOD"
	codeNotImplemented agui.HTTPCode = "NOT_IMPLEMENTED"
	codeForbidden                    = agui.HTTPCodeForbidden
)

func statusOf(code agui.HTTPCode) int {
	switch code {
	case codeAgentNotFound, codeNotFound:
		return http.StatusNotFound
	case codeUnknownMethod:
		return http.StatusBadRequest
	case codeNotImplemented:
		return http.StatusNotImplemented
	}
	return code.Status()
}

// reject answers a request with an error and its JSON body, and logs it.
func (h *Handler) reject(w http.ResponseWriter, r *http.Request, code agui.HTTPCode, message string) {
	status := statusOf(code)
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelWarn
	}
	h.cfg.logger.Log(r.Context(), level, "agui/copilotkit: request rejected",
		"status", status, "code", string(code), "method", r.Method, "path", r.URL.Path, "message", message)
	writeError(w, status, code, message)
}

func writeError(w http.ResponseWriter, status int, code agui.HTTPCode, message string) {
	type inner struct {
		Code    agui.HTTPCode `json:"code"`
		Message string        `json:"message"`
	}
	data, _ := json.Marshal(struct {
		Error   inner  `json:"error"`
		Message string `json:"message"`
	}{inner{code, message}, message})
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// runtimeInfo encodes the info: the shape CopilotKit's runtime answers
// (version, agents by id with name, description and capabilities, the mode),
// with every optional feature this runtime does not serve switched off, so
// the client never asks for it.
func runtimeInfo(version string, order []string, agents map[string]*Agent) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"version":`)
	b.Write(agui.AppendJSONString(nil, version))
	b.WriteString(`,"agents":{`)
	for i, id := range order {
		a := agents[id]
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(agui.AppendJSONString(nil, id))
		b.WriteString(`:{"name":`)
		b.Write(agui.AppendJSONString(nil, id))
		b.WriteString(`,"description":`)
		b.Write(agui.AppendJSONString(nil, a.Description))
		b.WriteString(`,"className":"agui-go"`)
		if a.Capabilities != nil {
			caps, err := a.Capabilities.AppendJSON(nil)
			if err != nil {
				return nil, fmt.Errorf("copilotkit: agent %q: capabilities: %w", id, err)
			}
			b.WriteString(`,"capabilities":`)
			b.Write(caps)
		}
		b.WriteByte('}')
	}
	b.WriteString(`},"audioFileTranscriptionEnabled":false,"mode":"sse",` +
		`"threadEndpoints":{"list":false,"inspect":false,"mutations":false,"realtimeMetadata":false},` +
		`"suggestions":false,"a2uiEnabled":false,"openGenerativeUIEnabled":false,"telemetryDisabled":true}`)
	b.WriteByte('\n')
	return b.Bytes(), nil
}
