// Package ctxcause gives the error of a context that is done as one value
// matching both what the context reports and why it was cancelled.
//
// context.Cause(ctx) alone loses context.Canceled when the canceller gave a
// cause (context.WithCancelCause), so a caller's errors.Is(err,
// context.Canceled) turns false the day someone adds a cause; ctx.Err()
// alone loses the cause. Err keeps both.
package ctxcause

import "context"

// Err returns nil while ctx is not done; then ctx.Err() when no cause
// other than it was given, else an error whose message is the cause's and
// which matches both the cause and ctx.Err() with errors.Is and errors.As.
func Err(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	cause := context.Cause(ctx)
	if cause == nil || cause == err {
		return err
	}
	return &causeError{err: err, cause: cause}
}

type causeError struct{ err, cause error }

func (e *causeError) Error() string   { return e.cause.Error() }
func (e *causeError) Unwrap() []error { return []error{e.cause, e.err} }
