package server

import (
	"errors"

	"github.com/agui-go/sdk/agui"
)

// ErrorWithUsage returns err annotated with the token usage the run spent
// before it failed, for the RUN_ERROR that ends the run to carry in its
// usage member. A run that calls a model and then fails (the provider broke
// off, a tool failed, the client went away, the deadline passed) has still
// spent tokens, and whoever bills or budgets them needs the count on the
// failure too, not only on success ([Outcome.WithUsage]).
//
// The annotation changes nothing else: the message, errors.Is, errors.As and
// [CodeOf] see through it, so ErrorWithUsage(ctx.Err(), u) still ends the
// run as cancelled and ErrorWithUsage(AgentError(err), u) keeps its
// AGENT_ERROR. When err's chain holds several annotations, the outermost
// wins. A nil err gives nil, and no usage gives err itself.
//
// A run stopped through the cancel route whose agent unwinds cleanly ends
// with RUN_FINISHED and the cancelled outcome; the usage then travels there.
func ErrorWithUsage(err error, usage ...agui.TokenUsage) error {
	if err == nil || len(usage) == 0 {
		return err
	}
	return &usageError{err: err, usage: usage}
}

// usageError is an error carrying token usage; see [ErrorWithUsage].
type usageError struct {
	err   error
	usage []agui.TokenUsage
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// UsageOf returns the token usage err was annotated with by
// [ErrorWithUsage], or nil.
func UsageOf(err error) []agui.TokenUsage {
	if ue, ok := errors.AsType[*usageError](err); ok {
		return ue.usage
	}
	return nil
}
