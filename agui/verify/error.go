package verify

import (
	"errors"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// ErrTruncated is matched (errors.Is) by the error Finish returns when the
// stream ended inside a run: after RUN_STARTED and before the run's
// RUN_FINISHED or RUN_ERROR. A truncated run must not count as a success.
var ErrTruncated = errors.New("verify: stream ended inside a run")

// Error is a verification failure. Callers read its fields (errors.As) and
// never its text.
type Error struct {
	// Rule is the ordering rule the event broke. It is zero for a truncated
	// stream (Err is ErrTruncated), which breaks no rule of an event.
	Rule Rule
	// Event is the rejected event's type; "" for a truncated stream.
	Event agui.EventType
	// ID is the id involved: the message, tool call, step, subagent or run;
	// "" when there is none.
	ID string
	// Index is the 0-based index of the event in the stream, counting every
	// event passed to Observe; for a truncated stream, the number of events
	// observed.
	Index int
	// Open renders what was still open when the failure happened, such as
	// `messages={"msg-1"}, steps={"plan"}`; "" when nothing was. It is built
	// only when a failure happens.
	Open string
	// Detail says what went wrong, such as `message "msg-2" is not open`.
	Detail string
	// Via is set when the rejected event was synthesized by chunk expansion:
	// it is the type of the chunk event Observe was given (the one at Index).
	Via agui.EventType
	// Err is the underlying cause, when there is one: ErrTruncated, or the
	// *chunks.Error of a chunk that cannot be expanded.
	Err error
}

// Error formats the failure as
//
//	TEXT_MESSAGE_CONTENT breaks rule `not-open` (content and terminators require a matching start): message "msg-2" is not open [open: messages={"msg-1"}]
func (e *Error) Error() string {
	var b strings.Builder
	if e.Rule == 0 {
		b.WriteString("truncated stream: ")
	} else {
		b.WriteString(string(e.Event))
		b.WriteString(" breaks rule `")
		b.WriteString(e.Rule.String())
		b.WriteString("` (")
		b.WriteString(e.Rule.Describe())
		b.WriteString("): ")
	}
	b.WriteString(e.Detail)
	if e.Via != "" {
		b.WriteString(" (synthesized from ")
		b.WriteString(string(e.Via))
		b.WriteString(")")
	}
	b.WriteString(" [open: ")
	if e.Open == "" {
		b.WriteString("nothing")
	} else {
		b.WriteString(e.Open)
	}
	b.WriteString("]")
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }
