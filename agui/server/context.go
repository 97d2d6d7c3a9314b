package server

import (
	"context"
	"encoding/json"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

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
// code expects, and it is how an agent asks about cancellation: ctx.Err() and
// ctx.Done(), and [UntilCancelled] for a long call (see the package
// documentation). RunContext does not repeat them under other names.
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

// UntilCancelled runs f and returns its result, unless ctx is cancelled
// first: then it returns at once with the CANCELLED [*Error]
// (IsCancelled(err) is true; errors.Is reaches context.Cause(ctx)). Which one
// won is settled when f returns: if ctx is done by then, f's result is
// discarded, so an f that answers the cancellation with an error of its own
// (ctx.Err(), say) or a partial result still reads as cancelled.
//
// It is meant for long calls, a model request above all: the request in
// flight is exactly the cost that cancellation exists to stop.
//
// f runs on a goroutine of its own and receives ctx, which is done when
// cancellation wins. An f that honours ctx (passes it to its HTTP client or
// model SDK, or selects on ctx.Done) therefore returns soon after, and then
// nothing of the call is left: UntilCancelled starts no timer and registers
// nothing with ctx, and the one-slot channel f's result goes into never makes
// f's goroutine wait.
//
// An f that ignores ctx keeps its goroutine until it returns on its own.
// UntilCancelled does not wait for it (it returns as soon as cancellation
// wins) and cannot end it: Go has no way to stop a goroutine from outside,
// only to ask it to stop, and ctx is how UntilCancelled asks. The result is
// dropped when it comes.
//
// While UntilCancelled waits, f behaves as if it ran on the caller's
// goroutine: a panic in f is raised again in the caller as a [*PanicError]
// holding f's panic value and f's stack (a run reports it as AGENT_PANIC with
// that stack), and runtime.Goexit in f exits the caller's goroutine too. A
// panic in f after cancellation won has nobody to go to and crashes the
// program, as a panic on any goroutine does.
//
// A ctx that can never be cancelled (ctx.Done() is nil) runs f on the
// caller's goroutine.
func UntilCancelled[T any](ctx context.Context, f func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if ctx.Err() != nil {
		return zero, cancelledError(context.Cause(ctx))
	}
	if ctx.Done() == nil {
		return f(ctx)
	}
	// state settles who took the result: the caller (delivered) or nobody,
	// because cancellation won (abandoned).
	const (
		pending int32 = iota
		delivered
		abandoned
	)
	var state atomic.Int32
	ch := make(chan raced[T], 1) // capacity one: the send never waits
	go func() {
		var r raced[T]
		returned := false
		defer func() {
			if !returned {
				if p := recover(); p != nil {
					r.panic = &PanicError{Value: p, Stack: debug.Stack()}
				} else {
					r.goexit = true
				}
			}
			if state.CompareAndSwap(pending, delivered) {
				ch <- r
			} else if r.panic != nil {
				panic(r.panic.Value) // nobody is waiting: as on any goroutine
			}
		}()
		r.v, r.err = f(ctx)
		r.cancelled = ctx.Err() != nil
		returned = true
	}()
	select {
	case r := <-ch:
		return r.result(ctx)
	case <-ctx.Done():
		if state.CompareAndSwap(pending, abandoned) {
			return zero, cancelledError(context.Cause(ctx))
		}
		// f's goroutine got there first; its send is already under way.
		return (<-ch).result(ctx)
	}
}

// raced is how the function raced by UntilCancelled ended.
type raced[T any] struct {
	v         T
	err       error
	cancelled bool        // ctx was done when f returned
	panic     *PanicError // f panicked
	goexit    bool        // f called runtime.Goexit
}

// result replays the end of f on the caller's goroutine.
func (r raced[T]) result(ctx context.Context) (T, error) {
	switch {
	case r.panic != nil:
		panic(r.panic)
	case r.goexit:
		runtime.Goexit()
	case r.cancelled:
		var zero T
		return zero, cancelledError(context.Cause(ctx))
	}
	return r.v, r.err
}
