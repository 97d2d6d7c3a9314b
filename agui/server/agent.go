package server

import (
	"context"
	"encoding/json"

	"github.com/agui-go/sdk/agui"
)

// Agent produces one run. S is the type of the run's shared state (use
// struct{} for an agent without state); the driver decodes RunAgentInput.state
// into it before Run is called.
//
// Run emits through rc and returns how the run ended. A nil error ends the run
// with RUN_FINISHED carrying the [Outcome]; a non-nil error ends it with
// RUN_ERROR carrying the error's code and message ([*Error] keeps its own; any
// other error becomes an AGENT_ERROR, see [AgentError]). A panic ends it with
// RUN_ERROR code AGENT_PANIC. ctx is the run's context: it is cancelled, with a
// cause, when the run is cancelled, and Run must return soon after.
type Agent[S any] interface {
	Run(ctx context.Context, rc *RunContext[S]) (Outcome, error)
}

// AgentFunc adapts a function to [Agent].
type AgentFunc[S any] func(ctx context.Context, rc *RunContext[S]) (Outcome, error)

// Run calls f(ctx, rc).
func (f AgentFunc[S]) Run(ctx context.Context, rc *RunContext[S]) (Outcome, error) { return f(ctx, rc) }

// Outcome is how a run that did not fail ended; the driver turns it into
// RUN_FINISHED. The zero Outcome is a plain success (RUN_FINISHED without an
// outcome member, which the protocol reads as success).
type Outcome struct {
	finished agui.RunFinishedOutcome
	result   any
	usage    []agui.TokenUsage
}

// Success is a completed run. pendingToolCallIDs names tool calls the client
// is expected to execute (client-side tools); leave it empty otherwise.
func Success(pendingToolCallIDs ...string) Outcome {
	return Outcome{finished: &agui.RunFinishedSuccessOutcome{PendingToolCallIDs: pendingToolCallIDs}}
}

// Interrupted is a run that paused for human input; a later run resumes it
// with RunAgentInput.resume. At least one interrupt is required: without one
// the run ends with RUN_ERROR code PROTOCOL. [NewInterrupt] builds one.
func Interrupted(interrupts ...agui.Interrupt) Outcome {
	return Outcome{finished: &agui.RunFinishedInterruptOutcome{Interrupts: interrupts}}
}

// Cancelled is a run the agent stopped on purpose (not a failure, and not a
// cancellation by the transport, which ends the run with RUN_ERROR code
// CANCELLED instead).
func Cancelled() Outcome {
	return Outcome{finished: &agui.RunFinishedCancelledOutcome{}}
}

// WithResult returns o with a result, carried in RUN_FINISHED.result. v is
// encoded with encoding/json (a json.RawMessage is used as is); a value that
// cannot be encoded ends the run with RUN_ERROR code SERIALIZATION, and one
// that encodes to null is omitted.
func (o Outcome) WithResult(v any) Outcome { o.result = v; return o }

// WithUsage returns o with token usage, carried in RUN_FINISHED.usage.
func (o Outcome) WithUsage(usage ...agui.TokenUsage) Outcome { o.usage = usage; return o }

// NewInterrupt returns an interrupt with a fresh id and the given reason (a
// short machine-readable string such as "approval") and message (shown to the
// user; empty for none).
func NewInterrupt(reason, message string) agui.Interrupt {
	in := agui.Interrupt{ID: NewID(), Reason: reason}
	if message != "" {
		in.Message = &message
	}
	return in
}

// runFinished builds the RUN_FINISHED event for o.
func (o Outcome) runFinished(threadID, runID string) (*agui.RunFinished, error) {
	ev := agui.NewRunFinished(threadID, runID)
	ev.Outcome = o.finished
	ev.Usage = o.usage
	if in, ok := o.finished.(*agui.RunFinishedInterruptOutcome); ok && len(in.Interrupts) == 0 {
		return nil, ProtocolError(ErrNoInterrupts)
	}
	if o.result != nil {
		raw, err := marshalJSON(o.result)
		if err != nil {
			return nil, SerializationError(err)
		}
		if string(raw) != "null" {
			ev.Result = raw
		}
	}
	return ev, nil
}

// marshalJSON encodes v with encoding/json; a json.RawMessage is returned as is
// (the event encoder validates and compacts it).
func marshalJSON(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case json.RawMessage:
		return v, nil
	}
	return json.Marshal(v)
}
