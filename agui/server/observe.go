package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/agui-go/sdk/agui"
)

// Observer is told of the runs a handler or a driver runs, and of the
// readers that reattach to durable runs: the hook that metrics and traces
// are built on (the module github.com/agui-go/sdk/otel turns it into
// OpenTelemetry spans and metrics). Set it with [WithObserver]. Every field
// is optional: a nil func is not called, and a handler or a run without an
// Observer pays nothing for the hook (a nil check per event).
type Observer struct {
	// StartRun is called once per run, when the run is created: by the
	// handler for each POST that gets a stream (durable runs included), by
	// [NewRunner] and [Run] (a Runner that is never started is never
	// ended: cancel it and start it, or do not observe it). ctx is the
	// context the run is started under (a handler's: the request's); the
	// context StartRun returns takes its place, so values it adds (a
	// span) reach the agent's ctx and the run's log records. It must be
	// derived from ctx: the run is cancelled when ctx is, and not when the
	// returned context alone is. The RunTrace it returns (nil for none) is
	// told of the run from there on.
	StartRun func(ctx context.Context, info RunInfo) (context.Context, *RunTrace)

	// Reattach is called when a reader attaches to a durable run
	// (GET {path}/runs/{runId}/events, see [WithDurableRuns]), before the
	// run's log is replayed to it from the cursor; the func it returns
	// (nil for none) is called once the reader's stream has ended.
	Reattach func(ctx context.Context, info ReattachInfo) func(ReattachEnd)
	// Connect is called when a reader opens a thread's connect stream
	// (GET {path}/threads/{threadId}/events, see [WithThreads]: a page
	// reloaded, a client picking a thread up), before the stream's first
	// byte; the func it returns (nil for none) is called once the stream
	// has ended.
	Connect func(ctx context.Context, info ConnectInfo) func(ConnectEnd)
}

// RunInfo describes a run to [Observer.StartRun].
type RunInfo struct {
	// Input is the run's input (threadId, runId, parentRunId, …). It
	// belongs to the run: read it, do not keep or change it.
	Input *agui.RunAgentInput
	// Request is the HTTP request that started the run (its headers carry
	// a caller's trace context), nil for a run not started by a handler.
	// Its body has been read.
	Request *http.Request
	// Durable is set for a run of [WithDurableRuns], which outlives its
	// request.
	Durable bool
}

// RunTrace is told of one run's events, by the funcs that are not nil. The
// funcs are called on the run's goroutines: Event, Flush, Rejected and
// Disconnect with the run's emission lock held, so never two at once and
// in stream order, and they must be quick and must not emit or block;
// Cancel on a goroutine of its own; End last, once.
type RunTrace struct {
	// Event is called for every event the consumer was handed (for a
	// handler: the frame is queued for the socket), RUN_STARTED and the
	// terminal event included, with the size of its frame in bytes (for
	// SSE with the "data: " and the blank line). ev is valid only during
	// the call: its memory is reused.
	Event func(ev agui.Event, size int)
	// Flush is called after each write of a run's HTTP stream to its
	// socket, flushed, with the bytes written (a batch of frames, or a
	// keep-alive) and the write's error; the first says when the first
	// byte went out. A write of the event being emitted may be reported
	// before its Event. Not called for a durable run, whose streams are
	// readers of its log.
	Flush func(size int, err error)
	// Rejected is called when the server-profile verifier refuses an
	// event (the emit fails with PROTOCOL_VIOLATION; err reaches the
	// *verify.Error). ev is not sent.
	Rejected func(ev agui.Event, err error)
	// Disconnect is called once when the consumer is found gone before
	// the run ended (a write failed, the iterator's loop stopped, the
	// Stream callback failed), with the cause the run is cancelled with.
	Disconnect func(cause error)
	// Cancel is called once when the run's context is cancelled before
	// the run ended (the client left, a deadline, a shutdown, the cancel
	// route), with the cause. It is not called for the cancellation that
	// follows an abnormal end (the guard), and it returns before End is
	// called.
	Cancel func(cause error)
	// End is called once, when the run has ended: the terminal event was
	// sent, or could not be (the consumer had gone).
	End func(RunEnd)
}

// RunEnd is how a run ended, for [RunTrace.End].
type RunEnd struct {
	// Terminal is the terminal event the consumer was handed, RUN_FINISHED
	// (with the outcome and usage) or RUN_ERROR (with the code and usage),
	// nil when none was (the consumer had gone). It belongs to the run.
	Terminal agui.Event
	// Normal is set when the run finished normally: RUN_FINISHED with the
	// agent's outcome. A run stopped through the cancel route that ends
	// with RUN_FINISHED and the cancelled outcome is not normal.
	Normal bool
	// Code is the run's error code when it did not finish normally:
	// the RUN_ERROR's, CANCELLED for the cancel route's RUN_FINISHED,
	// DISCONNECTED when the consumer was gone.
	Code agui.ErrorCode
	// Err is why the run did not finish normally, with its whole message
	// (what RUN_ERROR carries may be a summary); nil when Normal.
	Err error
}

// ReattachInfo describes a reader of a durable run to [Observer.Reattach].
type ReattachInfo struct {
	ThreadID, RunID string
	// After is the reader's cursor: the log is replayed after it.
	After   uint64
	Request *http.Request
}

// ReattachEnd is how a reader's stream of a durable run ended.
type ReattachEnd struct {
	// Ended is set when the reader got the run's terminal event.
	Ended bool
	// Cause is why the reader stopped without it (nil when Ended).
	Cause error
}

// ConnectInfo describes a thread's connect stream to [Observer.Connect].
type ConnectInfo struct {
	ThreadID string
	// Replayed is set when the stream begins with the thread's history
	// (one replayed run); a reader resuming past it gets only the live run.
	Replayed bool
	// LiveRunID is the run the stream follows after the history, "" when
	// the thread has none live.
	LiveRunID string
	Request   *http.Request
}

// ConnectEnd is how a thread's connect stream ended.
type ConnectEnd struct {
	// Ended is set when the reader got the whole stream: the history, and
	// the live run to its terminal event when there was one.
	Ended bool
	// Cause is why the stream stopped short (nil when Ended).
	Cause error
}

// WithObserver sets the observer of the runs (and, for a handler, of the
// readers of durable runs and of threads); see [Observer]. Without it nothing is
// observed.
func WithObserver(o Observer) Option {
	return runOption(func(c *runConfig) {
		if o.StartRun == nil && o.Reattach == nil && o.Connect == nil {
			c.observer = nil
			return
		}
		c.observer = &o
	})
}

// observe calls the observer's StartRun for a run about to be created under
// ctx, and returns the context the run is created under instead and the
// run's trace (nil when there is none).
func (c *runConfig) observe(ctx context.Context, input *agui.RunAgentInput, req *http.Request, durable bool) (context.Context, *RunTrace) {
	o := c.observer
	if o == nil || o.StartRun == nil {
		return ctx, nil
	}
	in := input
	if in == nil {
		in = &agui.RunAgentInput{}
	}
	octx, t := o.StartRun(ctx, RunInfo{Input: in, Request: req, Durable: durable})
	if octx == nil {
		octx = ctx
	}
	return octx, t
}

// watchCancel tells t.Cancel of the run's cancellation, until stop (called
// in end) says the run ended.
func (r *Runner[S]) watchCancel(t *RunTrace) {
	fired := make(chan struct{})
	stop := context.AfterFunc(r.ctx, func() {
		defer close(fired)
		t.Cancel(context.Cause(r.ctx))
	})
	r.unwatch = func() {
		if !stop() {
			<-fired // Cancel returns before End is called
		}
	}
}

// endTrace tells the run's trace how the run ended. normal and cause are
// finish's.
func (r *Runner[S]) endTrace(normal bool, cause error) {
	t := r.e.trace
	if t == nil || t.End == nil {
		return
	}
	end := RunEnd{Terminal: r.e.terminal, Normal: normal}
	if !normal {
		end.Err, end.Code = cause, agui.CodeDisconnected // the consumer left: finish returns its cause as it is
		var e *Error
		if errors.As(cause, &e) {
			end.Code = e.Code
		}
	}
	r.e.terminal = nil
	t.End(end)
}
