package server

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/protover"
)

// Runner is one run that has not started yet. Its cancellation token, the
// method value r.Cancel, can be taken before the run starts, which is what a
// custom transport needs: start watching the connection, then run.
//
//	r := server.NewRunner(ctx, agent, input)
//	go func() { <-connClosed; r.Cancel(server.ErrClientDisconnected) }()
//	err := r.Stream(func(ev agui.Event, data []byte) error { return conn.Write(data) })
//
// A Runner runs once: Events and Stream start it, and a second start fails
// with [ErrAlreadyStarted]. A Runner that is never started should be
// cancelled, to release what NewRunner registered with ctx.
type Runner[S any] struct {
	// run is the agent's Run: the function itself for an AgentFunc, whose
	// method's frame would otherwise sit under an idle agent as well.
	run     func(context.Context, *RunContext[S]) (Outcome, error)
	input   *agui.RunAgentInput
	served  protover.Served // what the consumer's declared version is answered with
	cfg     runConfig
	parent  context.Context
	ctx     *runContext
	cancel  context.CancelCauseFunc
	detach  func() bool // stops propagating the parent's cancellation
	timer   *time.Timer
	started atomic.Bool
	// returned is set once the agent has returned (not panicked, not
	// exited its goroutine); it shares started's word.
	returned bool
	initErr  error

	// state, when set, is the already-decoded initial state (the handler
	// decodes it before the stream starts, to answer 400 on a bad one).
	state *S

	// The agent's results, kept here rather than on the stack under the
	// agent (see callAgent).
	outcome Outcome
	runErr  error

	// e and rc are the run's emitter and the agent's run context, from
	// the prologue to the run's end.
	e  *emitter
	rc *RunContext[S]

	// slot, when set, is the HTTP handler's count of runs in flight
	// (WithMaxConcurrentRuns), given back once the run has ended.
	slot *atomic.Int64

	// trace is the run's observer (WithObserver), nil without one;
	// unwatch, when set, stops telling it of a cancellation (watchCancel).
	trace   *RunTrace
	unwatch func()
}

// closingSink is a sink with something to do once the run has ended: the
// HTTP handler's writes what is left and stops its timers.
type closingSink interface {
	sink
	close()
}

// runContext is the run's context: cancellable on its own, with the parent's
// values and deadline but not its cancellation, which arrives through
// context.AfterFunc instead. That lets a run that finished normally detach
// from its parent, so work it started that is still running is not cancelled
// by the parent (typically the HTTP request) ending.
type runContext struct {
	context.Context
	deadline    time.Time
	hasDeadline bool        // beside detached, so that the two share a word
	detached    atomic.Bool // see parentDone

	// parentDone is the parent's Done channel (nil when it can never be
	// cancelled) and forward cancels the run with the parent's cause; Err
	// uses them to see the parent's cancellation at once, not when the
	// AfterFunc goroutine gets to it. detached is set when the run no
	// longer follows its parent.
	parentDone <-chan struct{}
	forward    func()
}

func (c *runContext) Deadline() (time.Time, bool) { return c.deadline, c.hasDeadline }

// Err is the context's Err, except that a parent cancelled a moment ago
// already counts: an agent asking ctx.Err() right after the client left gets
// the same answer as its next emit, which checks the parent synchronously.
// Without it Err stays nil until the AfterFunc goroutine has run, which
// TestCtxErrSeesParentCancelAtOnce catches.
func (c *runContext) Err() error {
	if err := c.Context.Err(); err != nil || c.parentDone == nil || c.detached.Load() {
		return err
	}
	select {
	case <-c.parentDone:
		c.forward()
		return c.Context.Err()
	default:
		return nil
	}
}

// NewRunner prepares a run of agent over input under ctx. Nothing runs until
// Events or Stream is called.
func NewRunner[S any](ctx context.Context, agent Agent[S], input *agui.RunAgentInput, opts ...RunOption) *Runner[S] {
	return newRunner(ctx, agent, input, newRunConfig(opts), nil, false)
}

// newRunner prepares a run; req is the HTTP request that started it (nil
// for none) and durable says it is a durable run's, for the observer.
func newRunner[S any](ctx context.Context, agent Agent[S], input *agui.RunAgentInput, cfg runConfig, req *http.Request, durable bool) *Runner[S] {
	var trace *RunTrace
	if cfg.observer != nil {
		ctx, trace = cfg.observe(ctx, input, req, durable)
	}
	r := &Runner[S]{input: input, cfg: cfg, parent: ctx, trace: trace}
	if f, ok := agent.(AgentFunc[S]); ok {
		r.run = f
	} else if agent != nil {
		r.run = agent.Run
	}
	switch {
	case agent == nil:
		r.initErr = errors.New("agui/server: nil agent")
	case input == nil:
		r.initErr = errors.New("agui/server: nil input")
	default:
		r.served, r.initErr = serveVersion(input)
	}
	inner, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	rc := &runContext{Context: inner}
	rc.deadline, rc.hasDeadline = ctx.Deadline()
	if d := r.cfg.timeout; d > 0 {
		if dl := time.Now().Add(d); !rc.hasDeadline || dl.Before(rc.deadline) {
			rc.deadline, rc.hasDeadline = dl, true
		}
		r.timer = time.AfterFunc(d, func() { cancel(ErrDeadline) })
	}
	r.ctx, r.cancel = rc, cancel
	rc.parentDone, rc.forward = ctx.Done(), r.forward
	r.detach = context.AfterFunc(ctx, rc.forward)
	if trace != nil && trace.Cancel != nil {
		r.watchCancel(trace)
	}
	return r
}

// Cancel fires the run's cancellation token with cause (nil means
// context.Canceled). Every emit after it fails with CANCELLED and the run ends
// with RUN_ERROR code CANCELLED. Cancel may be called before the run starts,
// while it runs and after it ended, from any goroutine, any number of times;
// the first cause wins.
func (r *Runner[S]) Cancel(cause error) {
	r.cancel(cause)
	r.release()
}

// Context returns the run's context: the one the agent receives. It is done
// when the run is cancelled; context.Cause says why.
func (r *Runner[S]) Context() context.Context { return r.ctx }

// forward cancels the run with the parent's cause, when the parent is done.
func (r *Runner[S]) forward() { r.cancel(r.parentCause()) }

func (r *Runner[S]) parentCause() error {
	if r.cfg.parentCause != nil {
		return r.cfg.parentCause(r.parent)
	}
	if c := context.Cause(r.parent); c != nil {
		return c
	}
	return context.Canceled
}

// release stops the timer and the propagation from the parent.
func (r *Runner[S]) release() {
	r.ctx.detached.Store(true)
	r.detach()
	if r.timer != nil {
		r.timer.Stop()
	}
}

// begin marks the runner started; it fails on a second start.
func (r *Runner[S]) begin() error {
	if !r.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	if r.initErr != nil {
		if r.unwatch != nil {
			r.unwatch()
		}
		r.Cancel(r.initErr)
		if t := r.trace; t != nil && t.End != nil {
			t.End(RunEnd{Code: CodeOf(r.initErr), Err: r.initErr})
		}
		return r.initErr
	}
	return nil
}

func (r *Runner[S]) newEmitter(s sink, retain bool) *emitter {
	if r.input == nil {
		r.input = &agui.RunAgentInput{}
	}
	e := &emitter{
		ctx:    r.ctx,
		cancel: r.cancel,
		parent: r.parent,
		sink:   s,
		retain: retain,
		detail: r.cfg.errorDetail,
		trace:  r.trace,
	}
	if r.served.Downgrade {
		e.downgrade = r.downgrader()
	}
	if w := r.served.Warning; w != "" {
		r.cfg.logger.WarnContext(r.parent, "agui/server: "+w, "threadId", r.input.ThreadID, "runId", r.input.RunID)
	}
	e.parentCause = r.parentCause
	e.done, e.parentDone = r.ctx.Done(), r.parent.Done()
	if len(r.input.Messages) > 0 {
		e.history = r.input.Messages // seeded late: see seedHistory
	}
	return e
}

// Run runs agent over input and returns its events. This is the driver: the
// sequence starts with RUN_STARTED (protocolVersion "1.0") and always ends
// with exactly one terminal event, RUN_FINISHED carrying the agent's
// [Outcome] or RUN_ERROR carrying the failure's code and message.
//
// The agent runs on its own goroutine and hands each event over an unbuffered
// channel, so it can never get ahead of the consumer: a slow consumer slows
// the agent down. Breaking out of the loop cancels the run (cause
// [ErrConsumerStopped]); the agent's next emit fails with DISCONNECTED, and
// the loop statement returns once the agent has returned, so no goroutine of
// the run outlives it.
//
// An error item means the stream itself could not be produced (a nil agent or
// input, or a second iteration of the same sequence); it is terminal and is
// never yielded together with an event. Failures of the run are not error
// items: they are RUN_ERROR events.
//
// Events yielded belong to the consumer.
func Run[S any](ctx context.Context, agent Agent[S], input *agui.RunAgentInput, opts ...RunOption) iter.Seq2[agui.Event, error] {
	return NewRunner(ctx, agent, input, opts...).Events()
}

// Events starts the run and returns its events; see [Run].
func (r *Runner[S]) Events() iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		if err := r.begin(); err != nil {
			yield(nil, err)
			return
		}
		s := &chanSink{ch: make(chan agui.Event), gone: make(chan struct{})}
		e := r.newEmitter(s, true)
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(s.ch)
			r.drive(e)
		}()
		// However the loop ends (break, return, panic in the body), the
		// agent is told and waited for.
		defer func() {
			close(s.gone)
			e.disconnect(ErrConsumerStopped)
			<-done
		}()
		for ev := range s.ch {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// Stream starts the run and calls send for every event, on the goroutine that
// emitted it, one at a time, in stream order. data is the event's compact
// JSON encoding; ev and data are valid only until send returns (their memory
// is reused). send blocking is the backpressure; send returning an error ends
// the stream: the agent's next emit fails with DISCONNECTED, and the run is
// cancelled with that error as its cause.
//
// Stream returns when the agent has returned and the terminal event was sent.
// Its error is the first error send returned, or [ErrAlreadyStarted]; a failed
// run is not an error here, it is the RUN_ERROR event.
func (r *Runner[S]) Stream(send func(ev agui.Event, data []byte) error) error {
	if err := r.begin(); err != nil {
		return err
	}
	s := &funcSink{send: send}
	r.drive(r.newEmitter(s, false))
	return s.err
}

// errAgentExited stands for an agent that left its goroutine with
// runtime.Goexit (t.FailNow in a test, say) instead of returning.
var errAgentExited = AgentPanic(errGoexit, nil)

// errGoexit is the panic value of an agent that called runtime.Goexit.
var errGoexit = errors.New("agui/server: the agent called runtime.Goexit")

// drive is the driver shared by every way of running: RUN_STARTED, the agent,
// the terminal event, then the guard.
func (r *Runner[S]) drive(e *emitter) {
	r.prologue(e)
	r.callAgent()
}

// prologue emits RUN_STARTED through e and prepares the agent's run context
// (r.rc). It leaves r.rc nil, with the run's error in r.runErr, when the run
// cannot go on to the agent.
//
// It is apart from callAgent so that what it needs is off the stack by the
// time the agent runs: an idle agent blocks on this very goroutine (under
// net/http's, for a handler), and how much stack it holds there counts
// twice. Once in the goroutine's own stack, and once more in every goroutine
// started after the next collection, since the runtime sizes new stacks by
// the average that the collection found in use. TestIdleRunMemory measures
// it.
func (r *Runner[S]) prologue(e *emitter) {
	r.e = e
	in := r.input
	started := agui.NewRunStarted(in.ThreadID, in.RunID)
	version := r.served.Version.String()
	started.ProtocolVersion = &version
	started.ParentRunID = in.ParentRunID
	if r.cfg.echoInput {
		started.Input = in
	}
	if err := e.start(started); err != nil {
		r.runErr = err
		return
	}
	rc := &RunContext[S]{input: in}
	rc.Emitter = Emitter{e: e}
	pre := r.state
	if pre == nil && isNoState[S]() {
		pre = new(S) // nothing to decode the input's state into
	}
	r.state = nil // the run context holds it now
	if err := rc.initState(pre); err != nil {
		r.runErr = err
		return
	}
	if cause := e.cancelled(); cause != nil {
		r.runErr = cancelledError(cause)
		return
	}
	// Until the agent returns, its end counts as a runtime.Goexit (see end).
	r.runErr = errAgentExited
	r.rc = rc
}

// callAgent runs the agent over r.rc (nil: the prologue failed and r.runErr
// says why), then, however the agent left (returned, panicked or called
// runtime.Goexit), sends the terminal event and releases the run (see
// [Runner.end]). Its frame is the one an idle agent sits on, so it takes
// nothing but the Runner and keeps nothing: the agent's results go into the
// Runner too.
func (r *Runner[S]) callAgent() {
	defer r.end()
	rc := r.rc
	if rc == nil {
		r.returned = true
		return
	}
	r.outcome, r.runErr = r.run(r.ctx, rc)
	r.returned = true
}

// end is callAgent's deferred call: it turns a panic of the agent into an
// AGENT_PANIC error (logging the stack), sends the terminal event and, unless
// the run finished normally, cancels everything the run started (the
// guard). It recovers only what the agent raised: once the agent returned
// there is nothing in flight to recover.
func (r *Runner[S]) end() {
	e := r.e
	panicked := false
	if !r.returned {
		if p := recover(); p != nil {
			panicked = true
			// A panic that UntilCancelled carried over from another
			// goroutine already holds the stack where it happened.
			pe, ok := p.(*PanicError)
			if !ok {
				pe = &PanicError{Value: p, Stack: debug.Stack()}
			}
			r.cfg.logger.ErrorContext(r.parent, "agui/server: agent panicked",
				"threadId", r.input.ThreadID, "runId", r.input.RunID, "code", string(agui.CodeAgentPanic),
				"panic", pe.Value, "stack", string(pe.Stack))
			r.outcome, r.runErr = Outcome{}, AgentPanic(pe.Value, pe.Stack)
		}
		// Otherwise runtime.Goexit: r.runErr is still errAgentExited.
	}
	in := r.input
	normal, cause := e.finish(in.ThreadID, in.RunID, r.outcome, r.runErr)
	if !normal {
		r.logEnd(cause, panicked)
	}
	if r.unwatch != nil {
		r.unwatch() // the guard's cancellation is not the observer's to hear
	}
	r.outcome, r.rc = Outcome{}, nil // the terminal event carries it now; the agent is done with rc
	r.release()
	if !normal {
		// The guard: whatever the run started (tool calls, model
		// requests) stops with it, unless it finished normally.
		r.cancel(cause)
	}
	if s, ok := e.sink.(closingSink); ok {
		s.close()
	}
	if e.trace != nil {
		r.endTrace(normal, cause)
	}
	if r.slot != nil {
		r.slot.Add(-1)
	}
}

// logEnd logs a run that did not finish normally, for why: a failure at
// level Error with its whole message (the RUN_ERROR may carry only its
// summary), a cancellation or a client that left at level Debug. A panic
// was logged where it was recovered, with its stack, and is not logged
// twice.
func (r *Runner[S]) logEnd(cause error, panicLogged bool) {
	code := agui.CodeDisconnected // the consumer left: finish returns its cause as it is
	var e *Error
	if errors.As(cause, &e) {
		code = e.Code
	}
	attrs := []any{"threadId", r.input.ThreadID, "runId", r.input.RunID, "code", string(code), "error", cause.Error()}
	switch code {
	case agui.CodeAgentPanic:
		if panicLogged {
			return // logged with its stack in end
		}
		r.cfg.logger.ErrorContext(r.parent, "agui/server: run failed", attrs...)
	case agui.CodeCancelled, agui.CodeDisconnected:
		r.cfg.logger.DebugContext(r.parent, "agui/server: run cancelled", attrs...)
	default:
		r.cfg.logger.ErrorContext(r.parent, "agui/server: run failed", attrs...)
	}
}

// cancelled is cancelCause for callers outside the emit path. It takes no
// lock (cancelCause reads only channels and the thread-safe cancel function),
// so asking never waits behind an emit that a slow consumer holds up.
func (e *emitter) cancelled() error { return e.cancelCause() }

// NewRunContext returns a run context that no driver runs, and the events it
// has emitted so far, for tests and for driving an agent by hand. RUN_STARTED
// is already emitted; every emit is verified as in a real run. Cancel the run
// (the token) with ctx's cancellation: cancelling ctx cancels the run, with
// ctx's cause, and a deadline on ctx bounds it (give it the cause
// [ErrDeadline] with context.WithTimeoutCause to mimic [WithTimeout]). It
// takes no options: there is no driver to log a panic or echo the input.
//
// The recording keeps every event without bound, which suits tests, not
// production; custom transports use [NewRunner] and [Runner.Stream].
func NewRunContext[S any](ctx context.Context, input *agui.RunAgentInput) (*RunContext[S], iter.Seq[agui.Event]) {
	if input == nil {
		input = &agui.RunAgentInput{}
	}
	r := newRunner[S](ctx, AgentFunc[S](nil), input, defaultRunConfig(), nil, false)
	rec := &recordSink{}
	e := r.newEmitter(rec, true)
	rc := &RunContext[S]{input: input}
	rc.Emitter = Emitter{e: e}
	started := agui.NewRunStarted(input.ThreadID, input.RunID)
	version := r.served.Version.String()
	started.ProtocolVersion = &version
	_ = e.start(started)
	if err := rc.initState(nil); err != nil {
		e.finish(input.ThreadID, input.RunID, Outcome{}, err)
	}
	events := func(yield func(agui.Event) bool) {
		e.mu.Lock()
		evs := rec.events[:len(rec.events):len(rec.events)]
		e.mu.Unlock()
		for _, ev := range evs {
			if !yield(ev) {
				return
			}
		}
	}
	return rc, events
}
