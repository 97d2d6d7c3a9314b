package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/internal/protover"
)

// NewHandler mounts agent as an AG-UI HTTP endpoint: each POST runs the agent
// once and streams the run as server-sent events.
//
// Before the stream starts, a bad request is answered with an HTTP error and a
// JSON body {"error":{"code":…,"message":…}} and nothing else: 405 for a method
// other than POST, 415 for a body that is not application/json, 406 when the
// Accept header admits no encoding this handler serves, 413 for a body over
// the limit ([WithMaxBodyBytes], 10 MiB by default), 400 for a body that is not
// a valid RunAgentInput (the message names the JSON path) or whose state does
// not decode into S (an agent with [NoState] accepts any state), 408 for a
// body that did not arrive within [WithBodyTimeout] (30s by default), and 503
// with Retry-After when [WithMaxConcurrentRuns] runs are already in flight or
// a large body waited that long for room in [WithBodyMemory].
// Legacy nulls ("tools": null) read as absent, with a log line;
// [WithStrictInput] refuses them instead (`state: null` reads as an absent
// state either way). [WithCORS] adds the answers browsers on other origins need,
// OPTIONS preflights included; without it OPTIONS is a 405 like any method
// other than POST.
//
// A started stream is 200 with Content-Type text/event-stream and
// Cache-Control no-cache; every event is one `data: <json>` line followed by
// an empty line, LF only, and no larger than [agui.DefaultMaxFrame], the
// frame limit of the reader (an emit of a larger event fails with
// [ErrEventTooLarge]). When the Accept header names the protobuf binding
// (application/vnd.ag-ui.event+proto, or application/*), or admits it and
// not SSE, the stream is that binding instead: each event a length-prefixed
// ag_ui.Event message (package protoframe), checked by the same verifier,
// with no keep-alives. A bare */* gets SSE. Every event goes to the socket
// as soon as the socket can take it; events emitted while a write is in
// flight share the next write, and at most a bounded amount is ever
// queued: a client that reads slowly slows the agent down.
//
// The run is cancelled when the request's context ends, with a cause that
// says why: [ErrClientDisconnected] when net/http cancelled it (the client
// went away) or a write fails; [ErrDeadline] when its deadline passed, or
// when [WithTimeout] is set and passes; and any other cause the request's
// context carries as it is, such as [ErrServerShutdown] from a server that
// cancels its BaseContext with that cause when it shuts down. The terminal
// RUN_ERROR (code CANCELLED) names the cause. If the run did not finish
// normally, everything it started is cancelled too. ServeHTTP returns
// once the agent has returned and the terminal event was written; nothing is
// written to the response after that.
func NewHandler[S any](agent Agent[S], opts ...HandlerOption) http.Handler {
	h := &handler[S]{agent: agent, cfg: newHandlerConfig(opts)}
	h.cfg.run.parentCause = requestCause
	if h.cfg.bodyMemory > 0 {
		h.bodies = newBodyBudget(h.cfg.bodyMemory)
	}
	if c := h.cfg.durable; c != nil {
		h.durable = newDurableRuns(*c, &h.cfg, &h.slots)
	}
	if c := h.cfg.threads; c != nil {
		if h.durable == nil {
			panic("agui/server: WithThreads needs WithDurableRuns: a thread's live run is followed from the run log")
		}
		h.threads = newThreadRuns(*c, h.durable, &h.cfg)
	}
	return h
}

// Mount registers h on mux at path (such as "/agent"), and beside it the run
// routes of durable runs ([WithDurableRuns]): path/runs/{runId}/events and
// path/runs/{runId}/cancel, and the thread routes ([WithThreads]):
// path/threads/{threadId} and path/threads/{threadId}/events. One ServeMux
// pattern cannot hold both a path and what lies under it (a subtree pattern
// answers the bare path with a redirect, which a CORS preflight does not
// follow), so Mount is the one call that registers them all. h may wrap a handler of [NewHandler]; it
// is given every method of those paths, and answers a wrong one with 405.
//
// A router other than ServeMux routes the same paths to h: the handler
// tells a run route by the last three segments of the request's path, and
// a thread route (any method but POST) by its last two or three.
func Mount(mux *http.ServeMux, path string, h http.Handler) {
	if strings.ContainsAny(path, " \t{") {
		panic("agui/server: Mount takes a path, without a method or wildcards: " + strconv.Quote(path))
	}
	path = strings.TrimSuffix(path, "/")
	if path == "" {
		mux.Handle("/", h)
	} else {
		mux.Handle(path, h)
	}
	mux.Handle(path+"/runs/{runId}/"+routeEvents, h)
	mux.Handle(path+"/runs/{runId}/"+routeCancel, h)
	mux.Handle(path+"/threads/{threadId}", h)
	mux.Handle(path+"/threads/{threadId}/"+routeConnect, h)
}

type handler[S any] struct {
	agent Agent[S]
	cfg   handlerConfig
	slots atomic.Int64 // slots of WithMaxConcurrentRuns in use, when it caps them: POSTs, GET streams, detached runs
	// bodies bounds the bytes of large bodies read and decoded at once
	// (WithBodyMemory); nil without a bound.
	bodies *bodyBudget
	// durable holds the durable runs (WithDurableRuns); nil without them.
	durable *durableRuns
	// threads holds the threads (WithThreads); nil without them.
	threads *threadRuns
}

func (h *handler[S]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	run := h.open(w, r)
	if run == nil {
		return
	}
	// What Runner.callAgent does, written out here: its frame would sit
	// between this one and an idle agent. The terminal event, then
	// closing the stream, happen in end however the agent leaves.
	defer run.end()
	if run.rc != nil {
		run.outcome, run.runErr = run.run(run.ctx, run.rc)
	}
	run.returned = true
}

// open does everything a request needs before its agent runs: it answers a
// request that gets no stream (and returns a nil runner), or starts the
// stream, emits RUN_STARTED and returns the run, ready for its agent. A
// durable run is served whole here.
//
// ServeHTTP is kept this small because an idle agent blocks on the request's
// goroutine under ServeHTTP's frame: what checking, decoding and setting up
// needed is off the stack once open returns. See [Runner.prologue] for why
// that stack is worth a few hundred bytes; TestIdleRunMemory measures it.
func (h *handler[S]) open(w http.ResponseWriter, r *http.Request) *Runner[S] {
	allow := http.MethodPost
	if c := h.cfg.cors; c != nil {
		if r.Method == http.MethodOptions {
			h.cfg.preflight(w, r)
			return nil
		}
		c.SetHeaders(w.Header(), r)
		allow = "OPTIONS, POST"
	}
	if t := h.threads; t != nil && r.Method != http.MethodPost {
		// A POST is the agent's, whatever its path: an agent mounted at
		// …/threads/x still runs.
		if threadID, route, ok := threadRoute(r.URL.EscapedPath()); ok {
			t.serve(w, r, threadID, route)
			return nil
		}
	}
	if d := h.durable; d != nil {
		if runID, route, ok := runRoute(r.URL.EscapedPath()); ok {
			d.serveRoute(w, r, runID, route)
			return nil
		}
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", allow)
		h.cfg.reject(w, r, agui.HTTPCodeMethodNotAllowed, "method "+r.Method+" is not allowed; use POST")
		return nil
	}
	var slot *atomic.Int64
	if n := int64(h.cfg.maxRuns); n > 0 {
		if h.slots.Add(1) > n {
			h.slots.Add(-1)
			h.cfg.rejectOverloaded(w, r, n)
			return nil
		}
		// The place is given back when the run ends, or below if the
		// request never gets that far (and if it panics on the way).
		slot = &h.slots
		defer func() {
			if slot != nil {
				slot.Add(-1)
			}
		}()
	}
	if err := checkJSON(r.Header.Get("Content-Type")); err != nil {
		h.cfg.reject(w, r, agui.HTTPCodeUnsupportedMediaType, err.Error())
		return nil
	}
	enc := negotiate(r.Header.Values("Accept"))
	if enc == encodingNone {
		h.cfg.rejectNotAcceptable(w, r)
		return nil
	}
	input, state, ok := h.readInput(w, r)
	if !ok {
		return nil
	}
	if h.durable != nil {
		h.serveDurable(w, r, enc, input, state)
		return nil
	}
	run, e := h.stream(w, r, enc, input, state)
	if run == nil {
		return nil
	}
	run.prologue(e)
	run.slot, slot = slot, nil // the run gives it back when it ends
	return run
}

// stream starts the stream of a run of the agent over input: the response's
// head and the sink and emitter that write the events. It returns a nil
// runner when there is no agent to run, having answered the request.
func (h *handler[S]) stream(w http.ResponseWriter, r *http.Request, enc encoding, input *agui.RunAgentInput, state *S) (*Runner[S], *emitter) {
	runner := newRunner(r.Context(), h.agent, input, h.cfg.run, r, false)
	runner.state = state
	if err := runner.begin(); err != nil { // only a nil agent gets here
		h.cfg.reject(w, r, agui.HTTPCodeAgentError, err.Error())
		return nil, nil
	}

	startStream(w, enc)

	var e *emitter
	keepAlive := h.cfg.keepAlive
	if enc == encodingProtobuf {
		e = runner.newEmitter(nil, false)
		e.encode = protoframe.AppendFrame
		keepAlive = 0 // the binary framing has no comment frame to carry one
	} else {
		e = runner.newEmitter(nil, false)
		e.prefix, e.suffix = "data: ", "\n\n"
		e.maxEvent = agui.DefaultMaxFrame // protoframe.AppendFrame checks the same limit itself
	}
	e.pooled = true
	sw := newStreamWriter(w, &h.cfg, keepAlive, &e.mu, &e.queue, func(err error) { e.fail(err) })
	sw.trace = runner.trace
	e.sink, e.stream = sw, sw
	return runner, e
}

// readInput reads and decodes the request body, or answers the request with
// the error and reports false.
func (h *handler[S]) readInput(w http.ResponseWriter, r *http.Request) (*agui.RunAgentInput, *S, bool) {
	var deadline time.Time
	if h.cfg.bodyTimeout > 0 {
		deadline = time.Now().Add(h.cfg.bodyTimeout)
	}
	if size := h.bodySize(r); h.bodies != nil && size > smallBody {
		taken, ok := h.awaitBodyMemory(w, r, size, deadline)
		if !ok {
			return nil, nil, false
		}
		defer h.bodies.release(taken) // once the body is decoded
	}
	body, err := h.readBody(w, r, deadline)
	if err != nil {
		var tooLarge *http.MaxBytesError
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			w.Header().Set("Connection", "close") // the rest of the body may still be on its way
			h.cfg.reject(w, r, agui.HTTPCodeRequestTimeout,
				fmt.Sprintf("the request body did not arrive within %v", h.cfg.bodyTimeout))
			return nil, nil, false
		}
		if errors.As(err, &tooLarge) {
			h.cfg.reject(w, r, agui.HTTPCodeRequestTooLarge,
				fmt.Sprintf("the request body is larger than %d bytes", tooLarge.Limit))
			return nil, nil, false
		}
		h.cfg.reject(w, r, agui.HTTPCodeInvalidInput, "reading the request body: "+err.Error())
		return nil, nil, false
	}
	input, err := h.decodeInput(r, body)
	if err != nil {
		h.cfg.reject(w, r, agui.HTTPCodeInvalidInput, "invalid RunAgentInput: "+strings.TrimPrefix(err.Error(), "agui: "))
		return nil, nil, false
	}
	if _, err := protover.Serve(input.ProtocolVersion); err != nil {
		h.cfg.reject(w, r, agui.HTTPCodeUnsupportedProtocolVersion, err.Error(),
			"threadId", input.ThreadID, "runId", input.RunID)
		return nil, nil, false
	}
	if h.threads != nil && h.threads.remembers && !h.threads.remember(w, r, input) {
		return nil, nil, false
	}
	var state *S
	if input.State != nil && !isNoState[S]() {
		state = new(S)
		if err := json.Unmarshal(input.State, state); err != nil {
			h.cfg.reject(w, r, agui.HTTPCodeInvalidInput, "invalid RunAgentInput: at /state: "+err.Error(),
				"threadId", input.ThreadID, "runId", input.RunID)
			return nil, nil, false
		}
	}

	return input, state, true
}

// startStream writes the header of a 200 event stream in encoding enc.
func startStream(w http.ResponseWriter, enc encoding) {
	hdr := w.Header()
	hdr.Set("Content-Type", MediaTypeSSE)
	if enc == encodingProtobuf {
		hdr.Set("Content-Type", MediaTypeProtobuf)
	}
	hdr.Add("Vary", "Accept") // the encoding depends on it
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no") // ask reverse proxies not to buffer the stream
	w.WriteHeader(http.StatusOK)
}

// readBody reads the request body under the size limit and, with a body
// timeout, under a read deadline. The deadline is lifted once the body is in,
// so that it does not cut the stream that follows; after a failure it stays,
// so that net/http, draining what is left of the body, does not wait forever.
func (h *handler[S]) readBody(w http.ResponseWriter, r *http.Request, deadline time.Time) ([]byte, error) {
	rc := http.NewResponseController(w)
	timed := !deadline.IsZero() && rc.SetReadDeadline(deadline) == nil
	body, err := readAllSized(http.MaxBytesReader(w, r.Body, h.cfg.maxBody), min(r.ContentLength, h.cfg.maxBody))
	if timed && err == nil {
		rc.SetReadDeadline(time.Time{})
	}
	return body, err
}

// bodySize is what a request's body may take: its announced size, or the
// body limit when it announced none.
func (h *handler[S]) bodySize(r *http.Request) int64 {
	if r.ContentLength < 0 {
		return h.cfg.maxBody
	}
	return min(r.ContentLength, h.cfg.maxBody)
}

// awaitBodyMemory takes size bytes of the WithBodyMemory budget for r's body,
// waiting at most until deadline (zero: as long as the request lasts). When
// it cannot, it answers the request and reports false.
func (h *handler[S]) awaitBodyMemory(w http.ResponseWriter, r *http.Request, size int64, deadline time.Time) (int64, bool) {
	ctx := r.Context()
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	taken, err := h.bodies.acquire(ctx, size)
	if err == nil {
		return taken, true
	}
	if r.Context().Err() != nil {
		return 0, false // the client left: nobody to answer
	}
	hdr := w.Header()
	hdr.Set("Retry-After", "1")
	hdr.Set("Connection", "close") // the body was never read
	h.cfg.reject(w, r, agui.HTTPCodeOverloaded,
		fmt.Sprintf("too many large request bodies are being read; this one (%d bytes) waited %v without its turn", size, h.cfg.bodyTimeout))
	return 0, false
}

// readAllSized is io.ReadAll for a body that announced its size (size < 0:
// it did not). io.ReadAll grows its buffer in steps, and a 10 MiB body cost
// 22.5 MiB of allocations; here a body is read into 64 KiB and, once that is
// full, into one buffer of the announced size, so it costs its size once. A
// client that announces 10 MiB and sends 10 bytes gets 64 KiB; one that sends
// 64 KiB and then stalls holds the announced size until the body timeout, no
// more than a client that sends it all, which WithMaxConcurrentRuns bounds.
func readAllSized(r io.Reader, size int64) ([]byte, error) {
	if size < 0 {
		return io.ReadAll(r)
	}
	want := int(size) + 1 // room for the read that sees EOF without a copy
	buf := make([]byte, 0, min(want, 64<<10))
	for {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), max(want, 2*cap(buf))) // past want: the announced size was wrong
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// requestCause says why a request's context ended. net/http cancels it with
// no cause of its own (context.Canceled) when the client goes away, so that
// is ErrClientDisconnected; a deadline that passed is ErrDeadline; any other
// cause (a server shutting down, through its BaseContext) is the run's cause
// as it is.
func requestCause(ctx context.Context) error {
	switch cause := context.Cause(ctx); cause {
	case nil, context.Canceled:
		return ErrClientDisconnected
	case context.DeadlineExceeded:
		return ErrDeadline
	default:
		return cause
	}
}

// checkJSON accepts application/json, with a UTF-8 charset if one is named.
func checkJSON(contentType string) error {
	if contentType == "" {
		return errors.New("the request needs Content-Type: application/json")
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/json" {
		return fmt.Errorf("content type %q is not supported; send application/json", contentType)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return fmt.Errorf("charset %q is not supported; send UTF-8", cs)
	}
	return nil
}

// rejectNotAcceptable answers a request, a POST or a reattach, whose Accept
// header admits neither encoding a stream is written in.
func (c *handlerConfig) rejectNotAcceptable(w http.ResponseWriter, r *http.Request) {
	c.reject(w, r, agui.HTTPCodeNotAcceptable,
		"the Accept header admits no encoding this server produces; it serves "+MediaTypeSSE+" and "+MediaTypeProtobuf)
}

// rejectOverloaded answers a request, a POST or a reattach, that finds the
// handler at its WithMaxConcurrentRuns cap of n.
func (c *handlerConfig) rejectOverloaded(w http.ResponseWriter, r *http.Request, n int64) {
	w.Header().Set("Retry-After", "1")
	c.reject(w, r, agui.HTTPCodeOverloaded,
		fmt.Sprintf("the server is running its maximum of %d runs; retry later", n))
}

// reject answers a request that will get no stream, with the status that
// goes with code, and logs it (see WithLogger): the log gets message whole
// and attrs (the threadId and runId, once they are known), the client its
// summary unless WithErrorDetail is set.
func (c *handlerConfig) reject(w http.ResponseWriter, r *http.Request, code agui.HTTPCode, message string, attrs ...any) {
	status := code.Status()
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelWarn
	}
	if log := c.run.logger; log.Enabled(r.Context(), level) {
		attrs = append(attrs, "status", status, "code", string(code), "method", r.Method, "path", r.URL.Path, "message", message)
		log.Log(r.Context(), level, "agui/server: request rejected", attrs...)
	}
	type body struct {
		Error struct {
			Code    agui.HTTPCode `json:"code"`
			Message string        `json:"message"`
		} `json:"error"`
	}
	var b body
	b.Error.Code, b.Error.Message = code, c.run.clientMessage(message)
	data, _ := json.Marshal(b)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
