package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/runlog"
)

const (
	headerLastEventID = "Last-Event-ID"        // the SSE reconnection header
	cancelledByRoute  = "cancelled by request" // the reason when none is given
)

// Authorize decides whether r may read or cancel run runID of thread
// threadID. A nil error allows it; any other error denies it with 403, its
// message as the reason. The run id alone is no secret worth trusting:
// clients choose them, so a server that serves more than one user checks
// here that the thread is the caller's.
type Authorize func(r *http.Request, threadID, runID string) error

// AllowAll is the Authorize of demos and tests: everyone may read and cancel
// every run.
func AllowAll(*http.Request, string, string) error { return nil }

// DurableConfig configures durable runs ([WithDurableRuns]). It is one
// struct, not options of their own, because its settings mean nothing apart
// from the run log: they travel together, and each field's zero value is its
// default.
type DurableConfig struct {
	// Log holds every run: its events, in order, under sequence numbers
	// that go out as the SSE `id:` of each frame. A nil Log turns durable
	// runs off (it is no error here: check it where the log is made).
	Log runlog.Log
	// Authorize is asked before every read or cancel of a run; nil denies
	// them all (pass [AllowAll] to allow them all).
	Authorize Authorize
	// Detach keeps a run going for this long after its last client
	// disconnects; a client that reattaches within it
	// (GET …/runs/{runId}/events) gets the rest, and with no reader after it
	// the run is cancelled ([ErrDetachExpired]). Zero cancels a run as soon
	// as its last reader leaves, as without durable runs. Readers on other
	// replicas count when the log can tell of them ([runlog.RemoteReaders]:
	// the NATS log can): the grace starts when the last reader anywhere
	// left.
	Detach time.Duration
	// OneRunPerThread refuses a POST for a thread that has a live run on
	// this replica with 409 (THREAD_BUSY) naming the live run's id, so that
	// a late Stop meant for one run can never reach the next.
	OneRunPerThread bool
	// Replica names this replica in the leases it takes; empty means a
	// random name.
	Replica string
}

// durableRuns is a handler's durable runs: their settings, and the runs
// this replica runs now with their readers here. NewHandler builds it, one
// for each handler.
type durableRuns struct {
	log          runlog.Log
	auth         Authorize
	grace        time.Duration
	onePerThread bool
	owner        string
	// cfg is the configuration of the handler, whose stream settings every
	// durable stream follows; slots is its count of WithMaxConcurrentRuns
	// slots in use.
	cfg   *handlerConfig
	slots *atomic.Int64

	mu      sync.Mutex
	live    map[string]*liveRun // by run id: the runs this replica runs
	threads map[string]string   // thread id → its live run id (onePerThread)
}

func newDurableRuns(c DurableConfig, cfg *handlerConfig, slots *atomic.Int64) *durableRuns {
	d := &durableRuns{
		log: c.Log, auth: c.Authorize, grace: c.Detach, onePerThread: c.OneRunPerThread, owner: c.Replica,
		cfg: cfg, slots: slots,
		live: map[string]*liveRun{}, threads: map[string]string{},
	}
	if d.owner == "" {
		d.owner = "replica-" + runlog.NewRunID()
	}
	return d
}

// liveRun is a run this replica runs, with its readers here.
type liveRun struct {
	cancel  context.CancelCauseFunc
	done    chan struct{} // closed when the agent returned and the log has the terminal event
	readers int           // under durableRuns.mu
	timer   *time.Timer   // the grace timer while nobody reads
	// remote counts the readers on other replicas (nil: the log cannot
	// tell); idle is when the last reader anywhere was last seen.
	remote runlog.RemoteReaders
	idle   time.Time
	// slot is set (under durableRuns.mu) when the run holds a slot of
	// WithMaxConcurrentRuns of its own: it outlived the POST that started
	// it, whose slot it took over.
	slot bool
}

// WithDurableRuns turns on durable runs: every run is written to cfg.Log,
// whose sequence numbers go out as the `id:` of each SSE frame; two routes
// appear under the agent's path, and a run can outlive its connection:
//
//   - GET {path}/runs/{runId}/events replays the run after the sequence in
//     the Last-Event-ID header (or ?after=; neither: the whole run), then
//     follows it live until its terminal event. 404 for a run the log does
//     not know, 410 for one it forgot (or whose requested part retention
//     dropped), 400 for a cursor that is not a number or is beyond what the
//     run has sent. The stream is SSE, or protobuf when Accept asks for it as
//     for a POST (406 when it admits neither); protobuf frames carry no
//     sequence, but sequences are 1, 2, 3, … with no gap, so the n-th frame
//     of a stream after k is event k+n, and ?after= resumes it.
//   - POST {path}/runs/{runId}/cancel cancels the run wherever it runs (202),
//     409 when it already ended.
//
// [Mount] registers both routes beside the agent's path. Both ask
// cfg.Authorize first. A run cancelled
// through the route ends with RUN_FINISHED outcome cancelled when the agent
// returns with nothing left open, otherwise with RUN_ERROR CANCELLED; either
// way that is its one terminal event.
//
// Without this option, or with a nil Log, nothing on the wire changes. A run
// whose POST asks for protobuf is durable as well: its POST gets the
// binding's frames exactly as without this option (the binding has no place
// for sequence numbers), and any client can reattach to it.
//
// What a run that outlives its request still answers to: [HTTPServer]'s
// Shutdown ends it (RUN_ERROR CANCELLED, the shutdown as its cause) and
// waits for its terminal event, reader or not; under a bare http.Server
// nothing tells the handler the server is going away, so a detached run
// runs on until its grace or its agent ends it. [WithMaxConcurrentRuns]
// counts it, and every GET stream, until it ends. [WithKeepAlive] and
// [WithWriteTimeout] hold for every durable SSE stream.
func WithDurableRuns(cfg DurableConfig) HandlerOption {
	return handlerOption(func(c *handlerConfig) {
		if cfg.Log == nil {
			return
		}
		d := cfg
		c.durable = &d
	})
}

// The run routes, by their last segment.
const (
	routeEvents = "events" // GET …/runs/{runId}/events
	routeCancel = "cancel" // POST …/runs/{runId}/cancel
)

// runRoute reads the run route an escaped request path names: one whose
// last three segments are "runs", a run id and a route, under whatever path
// the agent is mounted at. Nothing else is one: an agent's own path, or one
// with more after the route, is not.
func runRoute(path string) (runID, route string, ok bool) {
	rest, route := cutSegment(path)
	rest, id := cutSegment(rest)
	_, runs := cutSegment(rest)
	if runs != "runs" || id == "" || (route != routeEvents && route != routeCancel) {
		return "", "", false
	}
	id, err := url.PathUnescape(id)
	if err != nil {
		return "", "", false
	}
	return id, route, true
}

// cutSegment cuts the last segment off a path; a path without a slash has
// none.
func cutSegment(p string) (rest, last string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", ""
	}
	return p[:i], p[i+1:]
}

// serveRoute answers GET …/events and POST …/cancel. A GET stream holds a
// slot of WithMaxConcurrentRuns while it streams; a cancel does not, so
// that a Stop gets through to a server at its cap.
func (d *durableRuns) serveRoute(w http.ResponseWriter, r *http.Request, runID, route string) {
	method := http.MethodGet
	if route == routeCancel {
		method = http.MethodPost
	}
	if r.Method != method {
		w.Header().Set("Allow", method)
		d.cfg.reject(w, r, agui.HTTPCodeMethodNotAllowed, "method "+r.Method+" is not allowed here; use "+method, "runId", runID)
		return
	}
	info, err := d.log.Info(r.Context(), runID)
	if err != nil {
		d.cfg.rejectLog(w, r, runID, err)
		return
	}
	if d.auth == nil {
		d.cfg.reject(w, r, agui.HTTPCodeForbidden, "durable run routes need an authorization hook; none is configured", "runId", runID)
		return
	}
	if err := d.auth(r, info.ThreadID, runID); err != nil {
		d.cfg.reject(w, r, agui.HTTPCodeForbidden, err.Error(), "runId", runID)
		return
	}
	if route == routeCancel {
		d.serveCancel(w, r, runID)
		return
	}
	enc := negotiate(r.Header.Values("Accept"))
	if enc == encodingNone {
		d.cfg.rejectNotAcceptable(w, r)
		return
	}
	after, err := cursor(r)
	if err != nil {
		d.cfg.reject(w, r, agui.HTTPCodeInvalidCursor, err.Error(), "runId", runID)
		return
	}
	served, err := d.cfg.readerVersion(r)
	if err != nil {
		d.cfg.reject(w, r, agui.HTTPCodeUnsupportedProtocolVersion, err.Error(), "runId", runID)
		return
	}
	switch {
	case after > info.Last:
		d.cfg.reject(w, r, agui.HTTPCodeInvalidCursor,
			fmt.Sprintf("cursor %d is beyond the last event the run has sent (%d)", after, info.Last), "runId", runID)
		return
	case after+1 < info.First:
		d.cfg.reject(w, r, agui.HTTPCodeRunExpired,
			fmt.Sprintf("events after %d are no longer kept; the oldest kept is %d", after, info.First), "runId", runID)
		return
	}
	if n := int64(d.cfg.maxRuns); n > 0 {
		defer d.slots.Add(-1)
		if d.slots.Add(1) > n {
			d.cfg.rejectOverloaded(w, r, n)
			return
		}
	}
	var observed func(ReattachEnd)
	if o := d.cfg.run.observer; o != nil && o.Reattach != nil {
		observed = o.Reattach(r.Context(), ReattachInfo{ThreadID: info.ThreadID, RunID: runID, After: after, Request: r})
	}
	d.attach(runID)
	ended := d.stream(w, r, enc, runID, after, nil, served.Downgrade)
	cause := readerCause(r)
	d.detach(runID, ended, cause)
	if observed != nil {
		end := ReattachEnd{Ended: ended}
		if !ended {
			end.Cause = cause
		}
		observed(end)
	}
}

// readerCause is why a reader of a durable run stopped reading when it
// did not get the terminal event: its request's cause when the request's
// context ended (the client left, or the server is shutting down), else
// the client is gone (a write failed).
func readerCause(r *http.Request) error {
	if r.Context().Err() != nil {
		return requestCause(r.Context())
	}
	return ErrClientDisconnected
}

func (d *durableRuns) serveCancel(w http.ResponseWriter, r *http.Request, runID string) {
	reason := cancelledByRoute
	if q := r.URL.Query().Get("reason"); q != "" {
		reason = q
	}
	if err := d.log.Cancel(r.Context(), runID, reason); err != nil {
		d.cfg.rejectLog(w, r, runID, err)
		return
	}
	data, _ := json.Marshal(map[string]string{"runId": runID, "status": "cancelling"})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write(append(data, '\n'))
}

// rejectLog answers a run log error with its HTTP status.
func (c *handlerConfig) rejectLog(w http.ResponseWriter, r *http.Request, runID string, err error) {
	switch {
	case errors.Is(err, runlog.ErrNotFound):
		c.reject(w, r, agui.HTTPCodeRunNotFound, "no run "+strconv.Quote(runID), "runId", runID)
	case errors.Is(err, runlog.ErrExpired):
		c.reject(w, r, agui.HTTPCodeRunExpired, "run "+strconv.Quote(runID)+" has expired", "runId", runID)
	case errors.Is(err, runlog.ErrEnded):
		c.reject(w, r, agui.HTTPCodeRunEnded, "run "+strconv.Quote(runID)+" has already ended", "runId", runID)
	case errors.Is(err, runlog.ErrExists):
		c.reject(w, r, agui.HTTPCodeRunExists, "run "+strconv.Quote(runID)+" already exists; a run id is never reused", "runId", runID)
	default:
		// The log is unreachable or failing: nothing about the run is
		// known, so the client may try the same request again shortly.
		w.Header().Set("Retry-After", "1")
		c.reject(w, r, agui.HTTPCodeRunLogFailed, "the run log failed: "+err.Error(), "runId", runID)
	}
}

// cursor reads the sequence a reader has seen: Last-Event-ID, or ?after=;
// 0 (the whole run) when neither is there.
func cursor(r *http.Request) (uint64, error) {
	h := r.Header.Values(headerLastEventID)
	hasH := len(h) > 0
	q, hasQ := r.URL.Query()["after"]
	parse := func(what, s string) (uint64, error) {
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s %q is not an event sequence number", what, s)
		}
		return n, nil
	}
	var from, fromQ uint64
	var err error
	if hasH {
		if from, err = parse(headerLastEventID, h[0]); err != nil {
			return 0, err
		}
	}
	if hasQ {
		if fromQ, err = parse("after", q[0]); err != nil {
			return 0, err
		}
		if hasH && fromQ != from {
			return 0, fmt.Errorf("Last-Event-ID %d and after=%d disagree", from, fromQ)
		}
		from = fromQ
	}
	return from, nil
}

// attach counts a reader of a run of this replica and stops its grace timer.
func (d *durableRuns) attach(runID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if lr := d.live[runID]; lr != nil {
		lr.readers++
		if lr.timer != nil {
			lr.timer.Stop()
			lr.timer = nil
		}
	}
}

// detach uncounts a reader; the last one leaving a run that has not ended
// cancels it with cause, at once, or after the grace with ErrDetachExpired.
func (d *durableRuns) detach(runID string, ended bool, cause error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	lr := d.live[runID]
	if lr == nil {
		return
	}
	if lr.readers--; lr.readers > 0 || ended {
		return
	}
	lr.idle = time.Now()
	wait := d.grace
	if d.grace > 0 {
		cause = ErrDetachExpired
	} else if lr.remote == nil || lr.remote.RemoteReaders() == 0 {
		lr.cancel(cause)
		return
	} else {
		wait = remoteCheck // followed elsewhere: cancelled once nobody does
	}
	lr.timer = time.AfterFunc(wait, func() { d.expire(lr, cause) })
}

// remoteCheck is how often a run nobody reads on this replica is checked
// for readers on the others, once its grace is over.
const remoteCheck = time.Second

// expire ends the grace of a run nobody reads here: it is cancelled with
// cause unless a reader attached here meanwhile, or readers follow it on
// other replicas, in which case the grace starts again when they are gone.
func (d *durableRuns) expire(lr *liveRun, cause error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if lr.readers > 0 || lr.timer == nil {
		return
	}
	if lr.remote != nil && lr.remote.RemoteReaders() > 0 {
		lr.idle = time.Now()
		lr.timer = time.AfterFunc(remoteCheck, func() { d.expire(lr, cause) })
		return
	}
	if left := d.grace - time.Since(lr.idle); left > 0 {
		lr.timer = time.AfterFunc(left, func() { d.expire(lr, cause) })
		return
	}
	lr.cancel(cause)
}

// serveDurable starts a run whose events go to the log, and streams it to
// the client that started it as its first reader.
//
// The run answers to the log and its readers, not to its request, so two
// things reach it that would otherwise reach it through the request: a
// shutdown of the [HTTPServer] serving it (which cancels it with
// ErrServerShutdown and waits for its terminal event even when nobody
// reads it), and the WithMaxConcurrentRuns slot of the POST, which the run
// takes over when it outlives the POST.
func (h *handler[S]) serveDurable(w http.ResponseWriter, r *http.Request, enc encoding, input *agui.RunAgentInput, state *S) {
	d := h.durable
	if input.RunID == "" {
		// The log keys a run, its readers and its cancel by its id: a run
		// without one could be neither reattached nor cancelled.
		h.cfg.reject(w, r, agui.HTTPCodeInvalidInput,
			"invalid RunAgentInput: a durable run needs a non-empty runId (reattaching and cancelling address the run by it)", "threadId", input.ThreadID, "runId", input.RunID)
		return
	}
	d.mu.Lock()
	if d.onePerThread {
		if other, busy := d.threads[input.ThreadID]; busy {
			d.mu.Unlock()
			h.cfg.reject(w, r, agui.HTTPCodeThreadBusy,
				"thread "+strconv.Quote(input.ThreadID)+" has a live run: "+other, "threadId", input.ThreadID, "runId", input.RunID)
			return
		}
	}
	// Reserve the thread before the log answers, so two POSTs racing for
	// one thread cannot both start.
	d.threads[input.ThreadID] = input.RunID
	d.mu.Unlock()
	release := func() {
		d.mu.Lock()
		if d.threads[input.ThreadID] == input.RunID {
			delete(d.threads, input.ThreadID)
		}
		d.mu.Unlock()
	}

	lw, err := d.log.Start(r.Context(), runlog.Info{ThreadID: input.ThreadID, RunID: input.RunID, Owner: d.owner})
	if err != nil {
		release()
		h.cfg.rejectLog(w, r, input.RunID, err)
		return
	}
	// On a log whose appends are visible at once, this request's stream is
	// fed by the appends themselves (logTee); otherwise it reads the log.
	var rec *threadRecorder
	if h.threads != nil {
		rec = h.threads.begin(r.Context(), input)
	}
	var tee *logTee
	if v, ok := lw.(runlog.Visible); ok && v.AppendsVisible() {
		tee = newLogTee(w, enc, &h.cfg)
	}
	// The run answers to the log and its readers, not to this request: its
	// parent keeps the request's values but not its cancellation.
	parent, cancel := context.WithCancelCause(context.WithoutCancel(r.Context()))
	runner := newRunner(parent, h.agent, input, h.cfg.run, r, true)
	runner.state = state
	lr := &liveRun{cancel: cancel, done: make(chan struct{})}
	lr.remote, _ = lw.(runlog.RemoteReaders)
	d.mu.Lock()
	d.live[input.RunID] = lr
	d.mu.Unlock()
	life := lifetimeOf(r.Context())
	if life != nil {
		life.hold()
	}

	go func() {
		defer close(lr.done)
		if life != nil {
			defer life.release()
			// A shutdown cancels the run, reader or not. Its request may be
			// gone, so it is the server's context that is watched.
			defer context.AfterFunc(life.ctx, func() { cancel(context.Cause(life.ctx)) })()
		}
		defer release()
		defer cancel(nil)
		stop := make(chan struct{})
		defer close(stop)
		go func() { // a cancel through the log, from any replica
			select {
			case <-lw.Cancelled():
				reason := lw.CancelReason()
				if reason == cancelledByRoute {
					reason = "" // no reason given: the message says "by request" already
				}
				cancel(&cancelRequest{reason: reason})
			case <-stop:
			}
		}()
		if err := runner.streamToLog(lw, tee, rec); err != nil { // only a nil agent gets here
			data, _ := agui.NewRunError(err.Error()).AppendJSON(nil)
			_, _ = lw.Append(data, true)
		}
		if rec != nil {
			rec.end() // the record holds the run's end before the run is over
		}
		d.mu.Lock()
		delete(d.live, input.RunID)
		if lr.timer != nil {
			lr.timer.Stop()
		}
		if lr.slot {
			d.slots.Add(-1)
		}
		d.mu.Unlock()
		_ = lw.Close()
	}()

	d.attach(input.RunID)
	ended := d.stream(w, r, enc, input.RunID, 0, tee, false) // the emitter has translated the run already
	d.detach(input.RunID, ended, readerCause(r))
	if ended && h.threads != nil {
		// The client that saw its run end finds it in the thread next.
		h.threads.recorded(r.Context(), input.RunID)
	}
	if d.grace <= 0 {
		// As without durable runs: the request returns once the agent has.
		<-lr.done
		return
	}
	if h.cfg.maxRuns > 0 {
		// The run goes on without this request: it takes over the request's
		// slot, which the handler gives back when this returns.
		d.mu.Lock()
		if _, live := d.live[input.RunID]; live {
			lr.slot = true
			d.slots.Add(1)
		}
		d.mu.Unlock()
	}
}

// cleanUnwind says whether an agent returned from a cancelled run without a
// failure of its own: nothing, or the cancellation it was handed.
func cleanUnwind(ctx context.Context, runErr error) bool {
	if runErr == nil {
		return true
	}
	var e *Error
	if errors.As(runErr, &e) {
		return e.Code == agui.CodeCancelled
	}
	return ctx.Err() != nil && errors.Is(runErr, context.Canceled)
}
