package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
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
	HTTPCodeRequestTimeout       = "REQUEST_TIMEOUT"        // 408, the body did not arrive within WithBodyTimeout
	HTTPCodeOverloaded           = "OVERLOADED"             // 503, WithMaxConcurrentRuns runs are already in flight, or a large body found no room in WithBodyMemory
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
// `state: null` reads as an absent state; [WithLenientInput] forgives more
// legacy nulls. [WithCORS] adds the answers browsers on other origins need,
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
// with no keep-alives. A bare */* gets SSE. RUN_STARTED and the terminal
// event are flushed at once, and other events as soon as the agent pauses;
// under load, consecutive events are coalesced into one write within a small
// latency budget ([WithFlushLatency]) and written while the agent goes on,
// and at most a bounded amount is ever buffered: a client that reads slowly
// slows the agent down.
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
	return h
}

type handler[S any] struct {
	agent Agent[S]
	cfg   handlerConfig
	runs  atomic.Int64 // slots of WithMaxConcurrentRuns in use, when it caps them: POSTs, GET streams, detached runs
	// bodies bounds the bytes of large bodies read and decoded at once
	// (WithBodyMemory); nil without a bound.
	bodies *bodyBudget
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
// ServeHTTP is kept this small, and open is not inlined into it, because an
// idle agent blocks on the request's goroutine under ServeHTTP's frame: what
// checking, decoding and setting up needed is off the stack by then. See
// [Runner.prologue] for why that stack is worth a few hundred bytes.
//
//go:noinline
func (h *handler[S]) open(w http.ResponseWriter, r *http.Request) *Runner[S] {
	allow := http.MethodPost
	if c := h.cfg.cors; c != nil {
		if r.Method == http.MethodOptions {
			c.preflight(w, r)
			return nil
		}
		c.setHeaders(w.Header(), r)
		allow = "OPTIONS, POST"
	}
	if d := h.cfg.durable; d != nil {
		if runID, action, ok := d.route(r); ok {
			d.serveRoute(w, r, runID, action, &h.cfg, &h.runs)
			return nil
		}
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", allow)
		reject(w, http.StatusMethodNotAllowed, HTTPCodeMethodNotAllowed, "method "+r.Method+" is not allowed; use POST")
		return nil
	}
	var slot *atomic.Int64
	if n := int64(h.cfg.maxRuns); n > 0 {
		if h.runs.Add(1) > n {
			h.runs.Add(-1)
			w.Header().Set("Retry-After", "1")
			reject(w, http.StatusServiceUnavailable, HTTPCodeOverloaded,
				fmt.Sprintf("the server is running its maximum of %d runs; retry later", n))
			return nil
		}
		// The place is given back when the run ends, or below if the
		// request never gets that far (and if it panics on the way).
		slot = &h.runs
		defer func() {
			if slot != nil {
				slot.Add(-1)
			}
		}()
	}
	if err := checkJSON(r.Header.Get("Content-Type")); err != nil {
		reject(w, http.StatusUnsupportedMediaType, HTTPCodeUnsupportedMediaType, err.Error())
		return nil
	}
	enc := negotiate(r.Header.Values("Accept"))
	if enc == encodingNone {
		reject(w, http.StatusNotAcceptable, HTTPCodeNotAcceptable,
			"the Accept header admits no encoding this server produces; it serves "+MediaTypeSSE+" and "+MediaTypeProtobuf)
		return nil
	}
	input, state, ok := h.readInput(w, r)
	if !ok {
		return nil
	}
	if h.cfg.durable != nil {
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
	runner := newRunner(r.Context(), h.agent, input, h.cfg.run)
	runner.state = state
	if err := runner.begin(); err != nil { // only a nil agent gets here
		reject(w, http.StatusInternalServerError, string(agui.CodeAgentError), err.Error())
		return nil, nil
	}

	startStream(w, enc)

	var s *sseSink
	var e *emitter
	if enc == encodingProtobuf {
		s = newProtobufSink(w, &h.cfg)
		e = runner.newEmitter(s, false)
		e.encode = protoframe.AppendFrame
	} else {
		s = newSSESink(w, &h.cfg)
		e = runner.newEmitter(s, false)
		e.prefix, e.suffix = "data: ", "\n\n"
		e.maxEvent = agui.DefaultMaxFrame // protoframe.AppendFrame checks the same limit itself
	}
	e.pooled = true
	s.e = e
	s.start()
	return runner, e
}

// readInput reads and decodes the request body, or answers the request with
// the error and reports false.
//
//go:noinline
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
			reject(w, http.StatusRequestTimeout, HTTPCodeRequestTimeout,
				fmt.Sprintf("the request body did not arrive within %v", h.cfg.bodyTimeout))
			return nil, nil, false
		}
		if errors.As(err, &tooLarge) {
			reject(w, http.StatusRequestEntityTooLarge, HTTPCodeRequestTooLarge,
				fmt.Sprintf("the request body is larger than %d bytes", tooLarge.Limit))
			return nil, nil, false
		}
		reject(w, http.StatusBadRequest, HTTPCodeInvalidInput, "reading the request body: "+err.Error())
		return nil, nil, false
	}
	input, err := h.decodeInput(r, body)
	if err != nil {
		reject(w, http.StatusBadRequest, HTTPCodeInvalidInput, "invalid RunAgentInput: "+strings.TrimPrefix(err.Error(), "agui: "))
		return nil, nil, false
	}
	var state *S
	if input.State != nil && !isNoState[S]() {
		state = new(S)
		if err := json.Unmarshal(input.State, state); err != nil {
			reject(w, http.StatusBadRequest, HTTPCodeInvalidInput, "invalid RunAgentInput: at /state: "+err.Error())
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
	reject(w, http.StatusServiceUnavailable, HTTPCodeOverloaded,
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
// emitter's buffer (under the emitter's mutex, like every field here but the
// writer's own) and are handed, a buffer at a time, to a writer that writes
// them with the mutex released, so that the agent goes on encoding while the
// connection is busy:
//
//   - RUN_STARTED and the terminal event are due at once, so the client sees
//     a run start and end without waiting for a budget or a bound;
//   - the first event after a pause is written at once too; events that
//     follow it within the latency budget wait for the rest of the budget (a
//     timer) and share one write, unless a batch's worth (writeBatch) builds
//     up first;
//   - at most one write is in flight (writing is the write lock); when it
//     ends, the writer takes whatever the agent emitted meanwhile, and while
//     it lasts the emitting goroutine waits once what is in flight and what
//     is buffered reach maxBuffered: that is how a slow client slows the
//     agent down.
//
// The writer is the goroutine that found a batch due: one the emit path
// starts when writes are slow (a network's system calls), the emitting
// goroutine itself when they are cheap, a timer's function, or close. It
// ends when there is nothing left to take, so an idle stream holds no
// goroutine and no buffer of its own: the buffers go back to a pool after
// every write (see [emitter.acquireOut]). That is what keeps an idle run
// close to what net/http itself spends on an open response.
type sseSink struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	// cfg is the handler's configuration, shared rather than copied (a
	// copy made the sink 96 bytes larger); keepAlive is the sink's own,
	// zero for a stream that has no keep-alives.
	cfg       *handlerConfig
	keepAlive time.Duration
	e         *emitter

	// flushTimer makes what is buffered due when the latency budget ends;
	// keepTimer writes a keep-alive (nil without keep-alives). Each is armed
	// at most once at a time (flushArmed, keepArmed), and pending counts the
	// armed ones and the writer the emit path started, so that close can
	// wait for every goroutine that may still touch the response.
	flushTimer *time.Timer
	keepTimer  *time.Timer
	flushArmed bool
	keepArmed  bool
	pending    sync.WaitGroup

	// writing is set while a writer owns the response: only that writer
	// touches w, rc, noDeadline and renewed. inflight is the size of the
	// batch it writes. room is signalled, with e.mu as its lock, whenever a
	// writer takes a batch or ends: an emitter waiting for room, and close,
	// wait on it.
	writing  bool
	inflight int
	room     sync.Cond
	// slowWrites says the last write took longer than handoffCost: the next
	// batch goes to a writer goroutine rather than being written by the
	// emitting one.
	slowWrites bool
	// due is set when what is buffered must reach the client without
	// waiting for the latency budget: it holds RUN_STARTED or a terminal
	// event, the budget is zero or over, or the sink is closing.
	due bool
	// unflushed is set when the last write left its tail (at most 4 KiB)
	// in net/http's buffer: a batch taken for its size is not flushed, so
	// that what follows within the budget shares its system call. The flush
	// timer is armed for it.
	unflushed bool
	// batch and batchBox are the buffer handed to the writer, flushBatch
	// says whether to flush it. They are fields, not arguments, so that
	// starting the writer allocates nothing; startWriter is s.writeLoop,
	// bound once.
	batch       []byte
	batchBox    *[]byte
	flushBatch  bool
	startWriter func()

	closed bool // once set nothing is written
	// lastWrite is when a write last ended: a keep-alive is due when it is
	// a whole interval ago, and the latency budget runs from it.
	lastWrite time.Time
	// noDeadline is set once the writer turned out not to support write
	// deadlines, so the write path stops asking: each refusal is an error
	// value allocated for nothing. renewed is when the deadline was set.
	noDeadline bool
	renewed    time.Time
}

// writePiece is the most the sink hands to net/http at a time. net/http
// holds up to 4 KiB of the connection in its own buffer, so a write deadline
// renewed before every piece covers at most 36 KiB that the client has to
// take: the figure WithWriteTimeout documents. A piece larger than that
// buffer goes to the socket mostly in one system call (net/http fills its
// buffer, sends it, and writes the rest of the piece directly): a busy
// stream makes a write every 16 to 32 KiB instead of every 4 KiB. On
// loopback that made a 1,000-delta run about a fifth faster than with
// 4 KiB pieces (16 KiB pieces: about a seventh).
const writePiece = 32 << 10

// writeBatch is how much the buffer holds before it is written without
// waiting for the rest of the latency budget: enough to make a write worth
// its system calls, little enough that the client reads while the agent
// encodes what follows.
const writeBatch = 8 << 10

func newSSESink(w http.ResponseWriter, cfg *handlerConfig) *sseSink {
	s := &sseSink{
		w:         w,
		rc:        http.NewResponseController(w),
		cfg:       cfg,
		keepAlive: cfg.keepAlive,
		lastWrite: time.Now(),
		// Until a write says otherwise, assume a network's costs.
		slowWrites: true,
	}
	s.startWriter = s.writeLoop
	s.flushTimer = time.AfterFunc(time.Hour, s.onFlushTimer)
	s.flushTimer.Stop()
	return s
}

// start arms the keep-alive timer, once the emitter is in place.
func (s *sseSink) start() {
	s.room.L = &s.e.mu
	if s.keepAlive <= 0 {
		return
	}
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.keepArmed = true
	s.pending.Add(1)
	s.keepTimer = time.AfterFunc(s.keepAlive, s.onKeepTimer)
}

// newProtobufSink is the sink of a protobuf stream: the same writing and
// flushing as SSE, without keep-alives, since the binary framing has no
// comment frame to carry one.
func newProtobufSink(w http.ResponseWriter, cfg *handlerConfig) *sseSink {
	s := newSSESink(w, cfg)
	s.keepAlive = 0
	return s
}

func (s *sseSink) deliver(e *emitter, ev agui.Event) error {
	terminal := false
	switch ev.Type() { //agui:nonexhaustive only the run's first and last events are due at once
	case agui.EventTypeRunStarted:
		s.due = true
	case agui.EventTypeRunFinished, agui.EventTypeRunError:
		s.due, terminal = true, true
	}
	if s.cfg.flushLatency <= 0 {
		s.due = true
	}
	if s.writing {
		// The writer takes what is buffered when its write ends. Past the
		// bound the emitter waits for that, except with the terminal
		// event: nothing may be emitted after it while its sender waits.
		for !terminal && s.writing && e.broken == nil && len(e.out)+s.inflight >= s.cfg.maxBuffered {
			s.room.Wait()
		}
		if e.broken != nil {
			return e.broken
		}
		if s.writing {
			return nil
		}
	}
	if !s.next() {
		return nil
	}
	if terminal || s.slowWrites {
		s.pending.Add(1)
		s.handOff()
		return nil
	}
	// Writes are cheap here (a fast client, an in-memory writer): the
	// emitting goroutine writes itself, with e.mu released, rather than pay
	// for waking another. Never with the terminal event, which must not be
	// followed by another goroutine's emit while the lock is released.
	s.drain()
	return e.broken
}

// handoffCost is about what handing a write to another goroutine costs (a
// goroutine started, a processor woken). A write that took longer is worth
// handing over, so that the agent encodes while it lasts; one that took
// less is written by the emitting goroutine itself.
const handoffCost = 2 * time.Microsecond

// next decides whether what is buffered is written now: when it is due, when
// a batch's worth has built up, or when the last write is a whole latency
// budget ago (the first event after a pause); otherwise it arms the flush
// timer for the rest of the budget. When it is, next hands the buffer to the
// writer (s.batch, s.writing set) and reports true. Called with e.mu held
// and no writer running.
func (s *sseSink) next() bool {
	e := s.e
	if s.closed || e.broken != nil {
		return false
	}
	if len(e.out) == 0 && !(s.due && s.unflushed) {
		s.due = false // nothing to be due
		return false
	}
	flush := s.due
	if !flush && len(e.out) < writeBatch {
		if s.flushArmed {
			return false // the timer makes it due
		}
		if wait := s.cfg.flushLatency - time.Since(s.lastWrite); wait > 0 {
			s.armFlush(wait)
			return false
		}
		flush = true // the first event after a pause
	}
	s.take(flush)
	return true
}

// take hands the buffer to the writer. Called with e.mu held.
func (s *sseSink) take(flush bool) {
	e := s.e
	s.batch, s.batchBox, s.flushBatch = e.out, e.box, flush
	e.out, e.box = nil, nil
	s.inflight = len(s.batch)
	s.due = false
	s.writing = true
}

func (s *sseSink) armFlush(wait time.Duration) {
	s.flushArmed = true
	s.pending.Add(1)
	s.flushTimer.Reset(wait)
}

// writeHandedOff is a writer's work for s (see writeLoop); it returns how
// many bytes it wrote.
func (s *sseSink) writeHandedOff() int {
	defer s.pending.Done()
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	return s.drain()
}

// drain writes s.batch, with e.mu released, and then whatever the agent
// emitted meanwhile, until nothing is left; then it ends the write lock. A
// failed write means the client is gone: it fails the emitter, which cancels
// the run. It returns how many bytes it handed to the response. Called with
// e.mu held and a batch taken; returns with e.mu held.
func (s *sseSink) drain() (written int) {
	e := s.e
	for {
		data, box, flush := s.batch, s.batchBox, s.flushBatch
		written += len(data)
		s.batch, s.batchBox = nil, nil
		e.mu.Unlock()
		began := time.Now()
		err := s.write(data)
		if err == nil && flush {
			err = s.flushResponse()
		}
		ended := time.Now()
		e.mu.Lock()
		s.lastWrite = ended
		s.slowWrites = ended.Sub(began) > handoffCost
		s.unflushed = !flush
		s.inflight = 0
		if err != nil {
			putBuffer(box, data)
			s.writing = false
			e.fail(fmt.Errorf("%w: %w", ErrClientDisconnected, err))
			s.room.Broadcast()
			return
		}
		// What came during the write goes next, due or not: the stream is
		// not pausing, and net/http's buffer joins it to what went before.
		if len(e.out) > 0 || (s.due && s.unflushed) {
			s.take(s.due)
			// The written buffer is the emitter's next one: a stream that
			// keeps writing passes two buffers back and forth and costs the
			// pool nothing.
			if e.box == nil {
				e.box, e.out = box, data[:0]
			} else {
				putBuffer(box, data)
			}
			s.room.Broadcast()
			continue
		}
		putBuffer(box, data)
		if len(e.out) == 0 {
			e.releaseOut() // an idle stream holds no buffer
		}
		s.writing = false
		s.due = false // nothing is left to be due
		s.room.Broadcast()
		if s.unflushed && !s.flushArmed && !s.closed {
			s.armFlush(s.cfg.flushLatency)
		}
		return
	}
}

// write hands b to the response in pieces of at most writePiece bytes,
// renewing the write deadline before each: a client that keeps reading,
// however slowly, keeps the stream; one that reads nothing for the interval
// loses it. The pieces are not flushed one by one: net/http's connection
// buffer fills to 4 KiB before each system call. Only the writer calls it,
// without e.mu.
func (s *sseSink) write(b []byte) error {
	for len(b) > 0 {
		n := min(len(b), writePiece)
		s.renewDeadline()
		if _, err := s.w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// flushResponse pushes what net/http buffers (at most 4 KiB) to the client.
func (s *sseSink) flushResponse() error {
	s.renewDeadline()
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// deadlineSlack is how stale, as a part of the write timeout, a write
// deadline may be before it is set again. A deadline is set for the timeout
// plus the slack, so every piece written until the slack has passed still
// has the whole timeout ahead of it, and a burst of pieces costs one
// renewal instead of one each; a client that reads nothing is cut after the
// timeout and at most a 64th of it more.
const deadlineSlack = 64

// renewDeadline gives the connection a write deadline of at least the write
// timeout from now, if there is one and the writer supports it.
func (s *sseSink) renewDeadline() {
	if s.cfg.writeTimeout <= 0 || s.noDeadline {
		return
	}
	now := time.Now()
	slack := s.cfg.writeTimeout / deadlineSlack
	if now.Sub(s.renewed) < slack {
		return
	}
	s.renewed = now
	if err := s.rc.SetWriteDeadline(now.Add(s.cfg.writeTimeout + slack)); errors.Is(err, http.ErrNotSupported) {
		s.noDeadline = true // nothing to extend, now or later
	}
}

// onFlushTimer runs when the latency budget ends: what is buffered is due,
// and the timer's goroutine writes it unless a writer runs, which takes it.
func (s *sseSink) onFlushTimer() {
	defer s.pending.Done()
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.flushArmed = false
	if s.closed || s.e.broken != nil {
		return
	}
	s.due = true
	if !s.writing && s.next() {
		s.drain()
	}
}

// onKeepTimer writes a keep-alive comment if nothing has been written for the
// keep-alive interval, and sets itself again for when the next one may be
// due. A busy stream never gets one, whichever goroutine does its writes.
func (s *sseSink) onKeepTimer() {
	defer s.pending.Done()
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.keepArmed = false
	if s.closed || s.e.broken != nil {
		return
	}
	next := s.keepAlive
	switch idle := time.Since(s.lastWrite); {
	case s.writing:
	case idle < s.keepAlive:
		next = s.keepAlive - idle
	default:
		if len(s.e.out) == 0 {
			s.e.acquireOut()
			s.e.out = append(s.e.out, ": keep-alive\n\n"...)
		}
		s.due = true
		if s.next() {
			s.drain()
		}
		if s.closed || s.e.broken != nil {
			return
		}
	}
	s.keepArmed = true
	s.pending.Add(1)
	s.keepTimer.Reset(next)
}

// close writes what is left, waits for the writer and closes the sink for
// good. It returns once no goroutine can touch the response any more.
func (s *sseSink) close() {
	e := s.e
	e.mu.Lock()
	s.due = true
	for {
		for s.writing {
			s.room.Wait()
		}
		s.due = true
		if !s.next() {
			break
		}
		s.drain()
	}
	s.closed = true
	if s.flushArmed && s.flushTimer.Stop() {
		s.flushArmed = false
		s.pending.Done()
	}
	if s.keepArmed && s.keepTimer.Stop() {
		s.keepArmed = false
		s.pending.Done()
	}
	e.releaseOut()
	e.mu.Unlock()
	s.pending.Wait() // a function that had already started sees closed and returns
}
