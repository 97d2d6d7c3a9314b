package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agui-go/sdk/agui"
)

// maxErrorMessage is the most of a failure's message a RUN_ERROR carries. An
// agent's error can hold anything (a whole model response, say); the client
// gets the first maxErrorMessage bytes and a note of how much was cut, so the
// terminal event always fits in a frame.
const maxErrorMessage = 16 << 10

// capMessage cuts msg to maxErrorMessage bytes, on a rune boundary.
func capMessage(msg string) string {
	if len(msg) <= maxErrorMessage {
		return msg
	}
	cut := maxErrorMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "… (" + strconv.Itoa(len(msg)-cut) + " more bytes)"
}

// tooLargeError is the error of an emit whose encoding (n bytes) is over
// limit.
func tooLargeError(n, limit int) *Error {
	return serializationError(fmt.Errorf("%w: %d bytes encoded, the limit is %d", ErrEventTooLarge, n, limit))
}

// Causes of cancellation. The run's context is cancelled with one of these
// (see [context.Cause]), and the CANCELLED or DISCONNECTED [*Error] that emits
// return afterwards wraps it, so errors.Is(err, ErrClientDisconnected) tells a
// vanished client from a deadline.
var (
	// ErrClientDisconnected: the HTTP client went away (net/http cancelled the
	// request context without a cause of its own, or writing to the client
	// failed).
	ErrClientDisconnected = errors.New("agui/server: client disconnected")
	// ErrDeadline: the run outlived the deadline configured with [WithTimeout],
	// or the request context's deadline passed.
	ErrDeadline = errors.New("agui/server: run deadline exceeded")
	// ErrServerShutdown: the server is shutting down. net/http does not
	// cancel the contexts of requests in flight when it shuts down; a server
	// that wants its runs to end then gives its http.Server a BaseContext and
	// cancels that with this cause (context.WithCancelCause), as
	// agui/server/demo does. The handler reports any such cause as the run's
	// cause, so the stream ends with RUN_ERROR CANCELLED
	// "run cancelled: the server is shutting down".
	ErrServerShutdown = errors.New("agui/server: the server is shutting down")
	// ErrConsumerStopped: the consumer of [Run] or [Runner.Events] stopped
	// pulling (broke out of the range loop).
	ErrConsumerStopped = errors.New("agui/server: consumer stopped reading the event stream")
	// ErrCancelRequested: a durable run was stopped through its cancel route
	// (POST {path}/runs/{runId}/cancel), on whichever replica. The cause
	// matches it with errors.Is and carries the reason the request gave, if
	// any, after it: "run cancelled by request: REASON".
	ErrCancelRequested = errors.New("agui/server: cancelled by request")
	// ErrDetachExpired: nobody reattached to a detached durable run within
	// its grace period ([DurableConfig.Detach]).
	ErrDetachExpired = errors.New("agui/server: no client reattached to the run within its grace period")
)

// What a run refuses. An emit or an outcome the run cannot take fails with a
// PROTOCOL or SERIALIZATION [*Error] that wraps one of these, and nothing is
// sent.
var (
	// ErrRunEnded: something was emitted after the run's terminal event.
	ErrRunEnded = errors.New("agui/server: the run has already ended")
	// ErrSubagentEnded: something was emitted through a [Subagent] (or a
	// handle it created) after the subagent ended with Finish, Suspend or
	// Fail (PROTOCOL).
	ErrSubagentEnded = errors.New("agui/server: the subagent has already ended")
	// ErrEventTooLarge: an event's encoding is larger than the largest frame
	// a reader of the stream accepts (the handler's limit is
	// agui.DefaultMaxFrame, the reference client's), so that nothing the
	// handler sends is refused by its own reader (SERIALIZATION).
	ErrEventTooLarge = errors.New("agui/server: the event is larger than the stream's frame limit")
	// ErrNoInterrupts: an interrupt outcome carried no interrupt (PROTOCOL).
	ErrNoInterrupts = errors.New("agui/server: an interrupt outcome needs at least one interrupt")
)

// ErrAlreadyStarted is what starting a [Runner] (or ranging over the
// sequence [Run] returned) a second time returns, as it is: a run happens
// once, and its runId is never reused.
var ErrAlreadyStarted = errors.New("agui/server: the run was already started")

// Error is the one error type of this package. Every failure that ends a run
// is an *Error, and its Code and Message are what the terminal RUN_ERROR
// carries.
//
// The set of codes is open on purpose: a caller branches on the few codes it
// cares about (usually through [IsCancelled] and [IsDisconnected]) and lets
// the rest flow, so a new code breaks no caller. Events, by contrast, are a
// closed set; docs/DESIGN.md explains the asymmetry.
//
// errors.Is and errors.As reach the wrapped cause: the [*verify.Error] of a
// PROTOCOL_VIOLATION, the agent's own error of an AGENT_ERROR, the
// cancellation cause ([ErrClientDisconnected], [ErrDeadline], …) of a
// CANCELLED.
type Error struct {
	Code    agui.ErrorCode // stable, machine-readable; travels in RUN_ERROR.code
	Message string         // human-readable; travels in RUN_ERROR.message
	Err     error          // the cause; may be nil
}

// Error returns the message, exactly as the RUN_ERROR event carries it.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// AgentError is the one way to build the error of a failure of the agent's
// own code: its message reads "agent error: <cause>", its code is
// AGENT_ERROR, and errors.Is and errors.As reach cause. A nil cause gives the
// message "agent error". The cause says what failed, however it was made:
// AgentError(err), AgentError(errors.New(text)) for a text taken literally,
// AgentError(fmt.Errorf(format, args...)) for a format, %w wrapping as usual.
//
// An agent seldom needs it: an error it returns that is not an [*Error]
// already ends the run as AgentError(err). Build one where the code has to
// travel with the error before the driver sees it, as in [Subagent.Fail],
// which reports the code of an [*Error] only.
func AgentError(cause error) *Error {
	msg := "agent error"
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &Error{Code: agui.CodeAgentError, Message: msg, Err: cause}
}

// protocolError reports a value a core type rejects, such as an interrupt
// outcome with no interrupts. Its code is PROTOCOL.
func protocolError(cause error) *Error {
	return &Error{Code: agui.CodeProtocol, Message: "protocol error: " + cause.Error(), Err: cause}
}

// serializationError reports state, tool arguments, a tool result or an event
// member that could not round-trip through JSON. Its code is SERIALIZATION.
func serializationError(cause error) *Error {
	return &Error{Code: agui.CodeSerialization, Message: "serialization error: " + cause.Error(), Err: cause}
}

// AgentPanic is the error of an agent that panicked with value: code
// AGENT_PANIC, message "agent panicked" (the value and the stack stay on the
// server: they can hold anything, and the client gets neither), and a
// [*PanicError] holding value and stack as its cause. The driver builds every
// AGENT_PANIC with it, from a recovered panic or from an agent that left with
// runtime.Goexit; an agent that catches a panic of its own can return it too.
func AgentPanic(value any, stack []byte) *Error {
	return &Error{Code: agui.CodeAgentPanic, Message: "agent panicked", Err: &PanicError{Value: value, Stack: stack}}
}

// CodeOf returns the code a run that failed with err reports in its
// RUN_ERROR: the code of the first [*Error] in err's chain; CANCELLED for a
// context cancellation (context.Canceled, context.DeadlineExceeded) passed
// through; AGENT_ERROR for any other error, which the driver wraps with
// [AgentError]; and "" for nil.
//
// Branch on it when several codes matter; [IsCancelled] and [IsDisconnected]
// say the same for the two codes that mean "stop, nobody is listening".
func CodeOf(err error) agui.ErrorCode {
	if err == nil {
		return ""
	}
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return agui.CodeCancelled
	}
	return agui.CodeAgentError
}

// IsCancelled reports whether err says the run was cancelled: an [*Error]
// with code CANCELLED anywhere in its chain, or a context cancellation
// (context.Canceled, context.DeadlineExceeded) that an agent passed through.
// It does not mean that something broke: it means stop, nobody is waiting.
func IsCancelled(err error) bool {
	var e *Error
	if errors.As(err, &e) && e.Code == agui.CodeCancelled {
		return true
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// IsDisconnected reports whether err is an [*Error] with code DISCONNECTED:
// the consumer stopped reading the stream. Like [IsCancelled], it means stop,
// nobody is listening.
func IsDisconnected(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == agui.CodeDisconnected
}

// cancelledError is the error every emit returns once the run's context is
// done; cause is context.Cause of that context.
//
// Its chain reaches both the cause and the context error the cancellation
// stands for (context.DeadlineExceeded for [ErrDeadline] or a deadline,
// context.Canceled otherwise), so errors.Is(err, context.Canceled) holds for
// a run cancelled with a cause of its own, as it does for ctx.Err().
//
// A cause whose text already says "cancelled …" is not said twice: the
// message is "run cancelled by request", not "run cancelled: cancelled by
// request".
func cancelledError(cause error) *Error {
	msg := "run cancelled"
	var req *cancelRequest
	switch {
	case errors.As(cause, &req):
		// Said once: "run cancelled by request", not the sentinel's words
		// again after the prefix that already says them.
		msg += " by request"
		if req.reason != "" {
			msg += ": " + req.reason
		}
	case cause != nil && cause != context.Canceled:
		if text := trimPrefix(cause.Error()); strings.HasPrefix(text, "cancelled ") {
			msg = "run " + text
		} else {
			msg += ": " + text
		}
	}
	return &Error{Code: agui.CodeCancelled, Message: msg, Err: cancelCause{cause}}
}

// cancelCause is the cause of a CANCELLED [*Error]: its text is the cause's
// and errors.Is and errors.As reach both the cause and the context error the
// cancellation amounts to.
type cancelCause struct{ cause error }

func (c cancelCause) Error() string {
	if c.cause == nil {
		return context.Canceled.Error()
	}
	return c.cause.Error()
}

func (c cancelCause) Unwrap() []error {
	ctxErr := context.Canceled
	if errors.Is(c.cause, ErrDeadline) || errors.Is(c.cause, context.DeadlineExceeded) {
		ctxErr = context.DeadlineExceeded
	}
	if c.cause == nil || c.cause == ctxErr {
		return []error{ctxErr}
	}
	return []error{c.cause, ctxErr}
}

// cancelRequest is the cause of a durable run stopped through its cancel
// route: it matches [ErrCancelRequested] and keeps the request's reason
// apart, so that the client's message names it without repeating itself.
type cancelRequest struct{ reason string }

func (c *cancelRequest) Error() string {
	if c.reason == "" {
		return ErrCancelRequested.Error()
	}
	return ErrCancelRequested.Error() + ": " + c.reason
}

func (c *cancelRequest) Unwrap() error { return ErrCancelRequested }

// subagentEndedError is the error of an emit through the handle of subagent
// id, or of one it created, after the subagent ended.
func subagentEndedError(id string) *Error {
	return &Error{
		Code:    agui.CodeProtocol,
		Message: "protocol error: subagent " + strconv.Quote(id) + " has already ended; nothing more can be emitted through it",
		Err:     ErrSubagentEnded,
	}
}

// disconnectedError is the error every emit returns once the consumer is gone.
func disconnectedError(cause error) *Error {
	msg := "consumer disconnected"
	if cause != nil {
		msg += ": " + trimPrefix(cause.Error())
	}
	return &Error{Code: agui.CodeDisconnected, Message: msg, Err: cause}
}

// violationError wraps a verification failure.
func violationError(cause error) *Error {
	return &Error{Code: agui.CodeProtocolViolation, Message: cause.Error(), Err: cause}
}

// trimPrefix drops this package's "agui/server: " prefix from a sentinel's
// text when it is embedded in a message meant for the client.
func trimPrefix(s string) string {
	const p = "agui/server: "
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// PanicError is the cause of an AGENT_PANIC [*Error]: the value the agent
// panicked with and the stack at the panic. The stack is also logged; it is
// never sent to the client.
//
// It is also the value [UntilCancelled] panics with when the function it
// raced panicked on its own goroutine, so that the stack is the one where the
// panic happened; a run reports such a panic with its Value and Stack.
type PanicError struct {
	Value any
	Stack []byte
}

func (p *PanicError) Error() string { return fmt.Sprintf("agui/server: agent panicked: %v", p.Value) }

// asRunError turns whatever an agent returned into the *Error its RUN_ERROR
// reports. runCtx is the run's context: a bare context error that an agent
// passes through after cancellation counts as the cancellation itself.
func asRunError(runCtx context.Context, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if runCtx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return cancelledError(context.Cause(runCtx))
	}
	return AgentError(err)
}
