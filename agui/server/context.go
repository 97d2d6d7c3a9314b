package server

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agui-go/sdk/agui"
)

// RunContext is what an agent gets for one run: the input, the typed state,
// and (through the embedded [Emitter]) the ways to emit events. The driver
// creates it; tests create one with [NewRunContext].
//
// A RunContext is safe for concurrent use. Events emitted from several
// goroutines are serialised: each emit is verified and delivered whole before
// the next begins, in one order that the verifier and the consumer both see.
//
// The run's context.Context is passed to Agent.Run as its own parameter, as Go
// code expects; the cancellation methods here (IsCancelled, CheckCancelled,
// Done) read the same context.
type RunContext[S any] struct {
	Emitter

	input *agui.RunAgentInput

	stateMu sync.Mutex
	state   S
	// client is the state as the client last saw it (decoded generic JSON),
	// the base of the next STATE_DELTA; known is false until there is one.
	client any
	known  bool
}

// Input returns the run's input. Treat it as read-only.
func (rc *RunContext[S]) Input() *agui.RunAgentInput { return rc.input }

// ThreadID returns the conversation's id.
func (rc *RunContext[S]) ThreadID() string { return rc.input.ThreadID }

// RunID returns the run's id.
func (rc *RunContext[S]) RunID() string { return rc.input.RunID }

// Messages returns the conversation so far, as the client sent it.
func (rc *RunContext[S]) Messages() []agui.Message { return rc.input.Messages }

// Tools returns the tools the client offers (client-side tools).
func (rc *RunContext[S]) Tools() []agui.Tool { return rc.input.Tools }

// ContextItems returns the context entries the client sent
// (RunAgentInput.context).
func (rc *RunContext[S]) ContextItems() []agui.Context { return rc.input.Context }

// ForwardedProps returns RunAgentInput.forwardedProps as raw JSON (nil when
// absent).
func (rc *RunContext[S]) ForwardedProps() json.RawMessage { return rc.input.ForwardedProps }

// Resume returns the answers to the interrupts of an earlier run
// (RunAgentInput.resume); empty when this run resumes nothing.
func (rc *RunContext[S]) Resume() []agui.ResumeEntry { return rc.input.Resume }

// LastUserText returns the text of the last user message, or "" when there is
// none. Content parts contribute their text parts.
func (rc *RunContext[S]) LastUserText() string {
	msgs := rc.input.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if m, ok := msgs[i].(*agui.UserMessage); ok {
			return m.Content.String()
		}
	}
	return ""
}

// IsCancelled reports whether the run has been cancelled. For loop conditions.
func (rc *RunContext[S]) IsCancelled() bool { return rc.e.cancelled() != nil }

// CheckCancelled returns the CANCELLED [*Error] once the run has been
// cancelled (wrapping the cause), nil before. For one `if err := ...` between
// steps.
func (rc *RunContext[S]) CheckCancelled() error {
	if cause := rc.e.cancelled(); cause != nil {
		return cancelledError(cause)
	}
	return nil
}

// Done returns a channel that is closed when the run is cancelled: the run's
// context's Done channel.
func (rc *RunContext[S]) Done() <-chan struct{} { return rc.e.ctx.Done() }

// UntilCancelled runs f and returns its result, unless the run's context ctx
// is cancelled first, in which case it returns at once with the CANCELLED
// [*Error] (IsCancelled(err) is true; errors.Is reaches the cause).
//
// It is meant for long calls, a model request above all: the request in
// flight is exactly the cost that cancellation exists to stop. f receives
// ctx and should honour it; a function that ignores ctx keeps running on its
// own goroutine after UntilCancelled returned, until it returns by itself. Its
// result is then discarded: the goroutine writes it into a buffered channel
// nobody reads, so it never blocks and exits as soon as f does.
func UntilCancelled[T any](ctx context.Context, f func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if ctx.Err() != nil {
		return zero, cancelledError(context.Cause(ctx))
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1) // buffered: the sender never waits for a reader
	go func() {
		v, err := f(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, cancelledError(context.Cause(ctx))
	}
}
