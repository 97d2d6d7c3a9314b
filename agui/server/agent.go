package server

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"

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

// AgentFunc adapts a function to [Agent]. A stateless agent is simpler
// written as a [Func].
type AgentFunc[S any] func(ctx context.Context, rc *RunContext[S]) (Outcome, error)

// Run calls f(ctx, rc).
func (f AgentFunc[S]) Run(ctx context.Context, rc *RunContext[S]) (Outcome, error) { return f(ctx, rc) }

// NoState is the state type of an agent that keeps none. Its input state,
// if the client sends one, is accepted and ignored.
type NoState = struct{}

// Stateless is the run context of an agent without state.
type Stateless = RunContext[NoState]

// Func is an agent without state, written as a function. It is
// AgentFunc[NoState], so a stateless agent names no state type:
//
//	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
//		return server.Success(), rc.Say("Hello!")
//	})
//
// [NewHandler], [Run] and [NewRunner] infer the state type from the agent, so
// they need no type argument either. An agent with state keeps using
// [AgentFunc] or its own [Agent] implementation.
type Func = AgentFunc[NoState]

// Outcome is how a run that did not fail ended; the driver turns it into
// RUN_FINISHED. The zero Outcome is a plain success (RUN_FINISHED without an
// outcome member, which the protocol reads as success).
//
// An Outcome is one pointer: an agent returns it with its error in
// registers, and an idle run's stack holds no room for it.
type Outcome struct {
	o *outcome // nil: the plain success
}

// outcome is what an Outcome says. It is never changed once an Outcome
// points at it: WithResult and WithUsage make a new one.
type outcome struct {
	finished agui.RunFinishedOutcome
	result   any
	usage    []agui.TokenUsage
}

// with returns a copy of what o says, for WithResult and WithUsage to change.
func (o Outcome) with() *outcome {
	var c outcome
	if o.o != nil {
		c = *o.o
	}
	return &c
}

// Success is a completed run. pendingToolCallIDs names tool calls the client
// is expected to execute (client-side tools); leave it empty otherwise.
func Success(pendingToolCallIDs ...string) Outcome {
	return Outcome{&outcome{finished: &agui.RunFinishedSuccessOutcome{PendingToolCallIDs: pendingToolCallIDs}}}
}

// Interrupted is a run that paused for human input; a later run resumes it
// with RunAgentInput.resume. At least one interrupt is required: without one
// the run ends with RUN_ERROR code PROTOCOL. [NewInterrupt] builds one.
func Interrupted(interrupts ...agui.Interrupt) Outcome {
	return Outcome{&outcome{finished: &agui.RunFinishedInterruptOutcome{Interrupts: interrupts}}}
}

// Cancelled is a run the agent stopped on purpose (not a failure, and not a
// cancellation by the transport, which ends the run with RUN_ERROR code
// CANCELLED instead).
func Cancelled() Outcome {
	return Outcome{&outcome{finished: &agui.RunFinishedCancelledOutcome{}}}
}

// WithResult returns o with a result, carried in RUN_FINISHED.result. v is
// encoded by the package's value rule (see Values in the package
// documentation); a value that cannot be encoded ends the run with RUN_ERROR
// code SERIALIZATION, and one that encodes to null is omitted.
func (o Outcome) WithResult(v any) Outcome { c := o.with(); c.result = v; return Outcome{c} }

// WithUsage returns o with token usage, carried in RUN_FINISHED.usage.
func (o Outcome) WithUsage(usage ...agui.TokenUsage) Outcome {
	c := o.with()
	c.usage = usage
	return Outcome{c}
}

// NewInterrupt returns an interrupt with a fresh id and the given reason (a
// short machine-readable string such as "approval") and message (shown to the
// user; empty for none).
func NewInterrupt(reason, message string) agui.Interrupt {
	in := agui.Interrupt{ID: agui.NewID(), Reason: reason}
	if message != "" {
		in.Message = &message
	}
	return in
}

// runFinished builds the RUN_FINISHED event for o.
func (oc Outcome) runFinished(threadID, runID string) (*agui.RunFinished, error) {
	ev := agui.NewRunFinished(threadID, runID)
	o := oc.o
	if o == nil {
		return ev, nil
	}
	ev.Outcome = o.finished
	ev.Usage = o.usage
	if in, ok := o.finished.(*agui.RunFinishedInterruptOutcome); ok && len(in.Interrupts) == 0 {
		return nil, protocolError(ErrNoInterrupts)
	}
	if o.result != nil {
		raw, err := marshalJSON(o.result)
		if err != nil {
			return nil, serializationError(err)
		}
		if string(raw) != "null" {
			ev.Result = raw
		}
	}
	return ev, nil
}

// marshalJSON encodes a value a user hands to a helper (a result, tool
// arguments, a custom value, state) as compact JSON. This is the contract
// every helper that takes "v any" documents:
//
//   - a json.RawMessage is JSON the caller already has: it is checked and
//     compacted, never re-encoded (a string would be, into a JSON string);
//   - a protocol type of package agui, by pointer or by value, is encoded by
//     its generated encoder, so its members carry the protocol's names;
//   - anything else is encoded with encoding/json (json tags, MarshalJSON).
//
// A failure is returned as is; callers wrap it in serializationError, so the
// caller of the helper gets a SERIALIZATION [*Error] whose chain reaches the
// cause (a *json.SyntaxError, *json.UnsupportedTypeError, *agui.EncodeError…).
func marshalJSON(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case json.RawMessage:
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	case jsonAppender:
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return json.RawMessage("null"), nil // as encoding/json writes a nil pointer
		}
		return v.AppendJSON(nil)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Struct {
		// The generated encoders have pointer receivers; a value passed
		// in an interface is not addressable, so encode a copy.
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		if a, ok := p.Interface().(jsonAppender); ok {
			return a.AppendJSON(nil)
		}
	}
	return json.Marshal(v)
}

// jsonAppender is implemented by the protocol types of package agui.
type jsonAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// isNoState reports whether S is NoState: an agent that keeps no state
// accepts whatever state the client sends, without decoding it.
func isNoState[S any]() bool {
	_, ok := any(*new(S)).(NoState)
	return ok
}
