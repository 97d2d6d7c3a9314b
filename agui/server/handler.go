package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
)

// Codes of the JSON error bodies the handler answers with before a stream
// starts. Once the stream has started, every failure is an in-stream
// RUN_ERROR instead.
const (
	HTTPCodeMethodNotAllowed     = "METHOD_NOT_ALLOWED"     // 405
	HTTPCodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE" // 415
	HTTPCodeInvalidInput         = "INVALID_INPUT"          // 400
	HTTPCodeRequestTooLarge      = "REQUEST_TOO_LARGE"      // 413
	HTTPCodeNotAcceptable        = "NOT_ACCEPTABLE"         // 406
	HTTPCodeOriginNotAllowed     = "ORIGIN_NOT_ALLOWED"     // 403, a CORS preflight from an origin WithCORS does not allow
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
// not decode into S (an agent with [NoState] accepts any state).
// `state: null` reads as an absent state; [WithLenientInput] forgives more
// legacy nulls. [WithCORS] adds the answers browsers on other origins need,
// OPTIONS preflights included; without it OPTIONS is a 405 like any method
// other than POST.
//
// A started stream is 200 with Content-Type text/event-stream and
// Cache-Control no-cache; every event is one `data: <json>` line followed by
// an empty line, LF only. When the Accept header names the protobuf binding
// (application/vnd.ag-ui.event+proto, or application/*), or admits it and
// not SSE, the stream is that binding instead: each event a length-prefixed
// ag_ui.Event message (package protoframe), checked by the same verifier,
// with no keep-alives. A bare */* gets SSE. Events are flushed as soon as the agent pauses;
// under load, consecutive events are coalesced into one write within a small
// latency budget ([WithFlushLatency]), and at most a bounded amount is ever
// buffered: a client that reads slowly slows the agent down.
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
	return h
}

type handler[S any] struct {
	agent Agent[S]
	cfg   handlerConfig
}

func (h *handler[S]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	allow := http.MethodPost
	if c := h.cfg.cors; c != nil {
		if r.Method == http.MethodOptions {
			c.preflight(w, r)
			return
		}
		c.setHeaders(w.Header(), r)
		allow = "OPTIONS, POST"
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", allow)
		reject(w, http.StatusMethodNotAllowed, HTTPCodeMethodNotAllowed, "method "+r.Method+" is not allowed; use POST")
		return
	}
	if err := checkJSON(r.Header.Get("Content-Type")); err != nil {
		reject(w, http.StatusUnsupportedMediaType, HTTPCodeUnsupportedMediaType, err.Error())
		return
	}
	enc := negotiate(r.Header.Values("Accept"))
	if enc == encodingNone {
		reject(w, http.StatusNotAcceptable, HTTPCodeNotAcceptable,
			"the Accept header admits no encoding this server produces; it serves "+MediaTypeSSE+" and "+MediaTypeProtobuf)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			reject(w, http.StatusRequestEntityTooLarge, HTTPCodeRequestTooLarge,
				fmt.Sprintf("the request body is larger than %d bytes", tooLarge.Limit))
			return
		}
		reject(w, http.StatusBadRequest, HTTPCodeInvalidInput, "reading the request body: "+err.Error())
		return
	}
	input, err := h.decodeInput(r, body)
	if err != nil {
		reject(w, http.StatusBadRequest, HTTPCodeInvalidInput, "invalid RunAgentInput: "+strings.TrimPrefix(err.Error(), "agui: "))
		return
	}
	var state *S
	if input.State != nil && !isNoState[S]() {
		state = new(S)
		if err := json.Unmarshal(input.State, state); err != nil {
			reject(w, http.StatusBadRequest, HTTPCodeInvalidInput, "invalid RunAgentInput: at /state: "+err.Error())
			return
		}
	}

	runner := newRunner(r.Context(), h.agent, input, h.cfg.run)
	runner.state = state
	if err := runner.begin(); err != nil { // only a nil agent gets here
		reject(w, http.StatusInternalServerError, string(agui.CodeAgentError), err.Error())
		return
	}

	hdr := w.Header()
	hdr.Set("Content-Type", MediaTypeSSE)
	if enc == encodingProtobuf {
		hdr.Set("Content-Type", MediaTypeProtobuf)
	}
	hdr.Add("Vary", "Accept") // the encoding depends on it
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no") // ask reverse proxies not to buffer the stream
	w.WriteHeader(http.StatusOK)

	var s *sseSink
	var e *emitter
	if enc == encodingProtobuf {
		s = newProtobufSink(w, h.cfg)
		e = runner.newEmitter(s, false)
		e.encode = protoframe.AppendFrame
	} else {
		s = newSSESink(w, h.cfg)
		e = runner.newEmitter(s, false)
		e.prefix, e.suffix = "data: ", "\n\n"
	}
	e.out = make([]byte, 0, h.cfg.maxBuffered+4<<10)
	s.e = e
	go s.loop()
	runner.drive(e)
	s.close()
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

// reject answers a request that will get no stream.
func reject(w http.ResponseWriter, status int, code, message string) {
	type body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	var b body
	b.Error.Code, b.Error.Message = code, message
	data, _ := json.Marshal(b)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// sseSink writes frames to an HTTP response. Frames accumulate in the
// emitter's buffer (guarded by the emitter's mutex, like everything here) and
// are written by flush: from the loop goroutine when the agent pauses or the
// latency budget ends, or from the emitting goroutine itself when the buffer
// is over its bound, which is how a slow client slows the agent down.
type sseSink struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	cfg handlerConfig
	e   *emitter

	kick chan struct{} // capacity 1: "there is something to flush"
	stop chan struct{}
	done chan struct{}

	closed bool // under e.mu; once set nothing is written
	kicked bool // under e.mu; a kick is pending, the loop has not flushed yet
	// lastWrite is when bytes last went to the client (under e.mu; kept only
	// with keep-alives): a keep-alive is due when it is a whole interval ago.
	lastWrite time.Time
	// noDeadline is set (under e.mu) once the writer turned out not to
	// support write deadlines, so the write path stops asking: each refusal
	// is an error value allocated for nothing.
	noDeadline bool
}

func newSSESink(w http.ResponseWriter, cfg handlerConfig) *sseSink {
	return &sseSink{
		w:         w,
		rc:        http.NewResponseController(w),
		cfg:       cfg,
		kick:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		lastWrite: time.Now(),
	}
}

// newProtobufSink is the sink of a protobuf stream: the same writing and
// flushing as SSE, without keep-alives, since the binary framing has no
// comment frame to carry one.
func newProtobufSink(w http.ResponseWriter, cfg handlerConfig) *sseSink {
	cfg.keepAlive = 0
	return newSSESink(w, cfg)
}

func (s *sseSink) deliver(e *emitter, _ agui.Event) error {
	if len(e.out) >= s.cfg.maxBuffered || s.cfg.flushLatency <= 0 {
		return s.flush()
	}
	if !s.kicked {
		s.kicked = true
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// flush writes the buffered frames and flushes the response. Called with e.mu
// held.
func (s *sseSink) flush() error {
	if s.closed || len(s.e.out) == 0 {
		return nil
	}
	if s.cfg.writeTimeout > 0 && !s.noDeadline {
		if err := s.rc.SetWriteDeadline(time.Now().Add(s.cfg.writeTimeout)); errors.Is(err, http.ErrNotSupported) {
			s.noDeadline = true // nothing to extend, now or later
		}
	}
	_, err := s.w.Write(s.e.out)
	s.e.out = s.e.out[:0]
	if s.cfg.keepAlive > 0 {
		s.lastWrite = time.Now()
	}
	if err == nil {
		if err = s.rc.Flush(); errors.Is(err, http.ErrNotSupported) {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrClientDisconnected, err)
	}
	return nil
}

// flushOrFail flushes from the loop goroutine; a failed write means the client
// is gone, which fails the emitter and cancels the run.
func (s *sseSink) flushOrFail() {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if s.closed || s.e.broken != nil {
		return
	}
	s.kicked = false
	if err := s.flush(); err != nil {
		s.e.fail(err)
	}
}

// keepAlive writes a keep-alive comment if nothing has been written for the
// keep-alive interval, and returns how long until the next one may be due.
func (s *sseSink) keepAlive() time.Duration {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if s.closed || s.e.broken != nil {
		return s.cfg.keepAlive
	}
	if idle := time.Since(s.lastWrite); idle < s.cfg.keepAlive {
		return s.cfg.keepAlive - idle
	}
	if len(s.e.out) == 0 {
		s.e.out = append(s.e.out, ": keep-alive\n\n"...)
	}
	if err := s.flush(); err != nil {
		s.e.fail(err)
	}
	return s.cfg.keepAlive
}

// loop flushes when kicked, then sleeps for the latency budget so that events
// arriving meanwhile are coalesced into the next write. With keep-alives on,
// it wakes when the last write is an interval old and writes a comment if
// nothing was written since; a busy stream never gets one, whichever
// goroutine does its writes.
func (s *sseSink) loop() {
	defer close(s.done)
	var budget *time.Timer
	if s.cfg.flushLatency > 0 {
		budget = time.NewTimer(time.Hour)
		budget.Stop()
		defer budget.Stop()
	}
	var idle <-chan time.Time
	var keep *time.Timer
	if s.cfg.keepAlive > 0 {
		keep = time.NewTimer(s.cfg.keepAlive)
		defer keep.Stop()
		idle = keep.C
	}
	for {
		select {
		case <-s.stop:
			return
		case <-idle:
			keep.Reset(s.keepAlive())
		case <-s.kick:
			s.flushOrFail()
			if budget != nil {
				budget.Reset(s.cfg.flushLatency)
				select {
				case <-s.stop:
					return
				case <-budget.C:
				}
			}
		}
	}
}

// close stops the loop, writes what is left and closes the sink for good.
func (s *sseSink) close() {
	close(s.stop)
	<-s.done
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if s.e.broken == nil {
		if err := s.flush(); err != nil {
			s.e.fail(err)
		}
	}
	s.closed = true
}
