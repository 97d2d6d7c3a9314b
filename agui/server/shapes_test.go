//go:build !agui_noverify

package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/testlog"
)

// runQuiet drives agent to its end and returns its events, checking that
// the stream has exactly one terminal event.
func runQuiet(t *testing.T, agent server.Agent[noState]) []agui.Event {
	t.Helper()
	evs := drain(t, server.Run(t.Context(), agent, input(), server.WithLogger(testlog.New(t))))
	terminal(t, evs)
	return evs
}

// lastRunError returns the stream's RUN_ERROR, failing when it ends otherwise.
func lastRunError(t *testing.T, evs []agui.Event) *agui.RunError {
	t.Helper()
	re, ok := evs[len(evs)-1].(*agui.RunError)
	if !ok {
		t.Fatalf("the run ended with %s, want RUN_ERROR (%v)", evs[len(evs)-1].Type(), types(evs))
	}
	return re
}

func codeOfRunError(re *agui.RunError) string {
	if re.Code == nil {
		return ""
	}
	return *re.Code
}

// After an emit fails, every later emit is a no-op returning that first
// error, Err reports it, and the driver ends the run with it, whatever the
// agent returns.
func TestFirstEmitFailureIsTheRunsFailure(t *testing.T) {
	for _, tc := range []struct {
		name   string
		result func(first error) (server.Outcome, error)
	}{
		{"agent returns success", func(error) (server.Outcome, error) { return server.Success(), nil }},
		{"agent returns another error", func(error) (server.Outcome, error) {
			return server.Outcome{}, errors.New("a later failure")
		}},
		{"agent returns the first error", func(first error) (server.Outcome, error) { return server.Outcome{}, first }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first, second, third, seen error
			evs := runQuiet(t, agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
				rc.Say("before")
				first = rc.Custom("bad", make(chan int)) // does not encode
				second = rc.Say("after")
				_, third = rc.StartToolCall("t")
				seen = rc.Err()
				return tc.result(first)
			}))
			if server.CodeOf(first) != agui.CodeSerialization {
				t.Fatalf("first emit error %v", first)
			}
			for _, err := range []error{second, third, seen} {
				if err != first {
					t.Fatalf("a later emit or Err returned %v, want the first error %v", err, first)
				}
			}
			re := lastRunError(t, evs)
			if codeOfRunError(re) != string(agui.CodeSerialization) || re.Message != first.Error() {
				t.Fatalf("RUN_ERROR %s %q, want the first failure %q", codeOfRunError(re), re.Message, first)
			}
			var texts []string
			for _, ev := range evs {
				if c, ok := ev.(*agui.TextMessageContent); ok {
					texts = append(texts, c.Delta)
				}
				if ev.Type() == agui.EventTypeToolCallStart {
					t.Fatal("an emit after the failure was sent")
				}
			}
			if strings.Join(texts, "|") != "before" {
				t.Fatalf("texts %q, want only the one before the failure", texts)
			}
		})
	}
}

// The seed's rule stays: an emit after cancellation fails, even from an
// agent that never checks, and the run ends with one terminal event,
// RUN_ERROR CANCELLED. A value that fails to encode after the cancellation
// reports the cancellation, which came first.
func TestEmitsAfterCancelFail(t *testing.T) {
	cause := errors.New("operator stop")
	var r *server.Runner[noState]
	var afterCancel, encodeAfterCancel error
	agent := agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		rc.Say("one")
		r.Cancel(cause)
		afterCancel = rc.Say("two")
		encodeAfterCancel = rc.Custom("bad", make(chan int))
		rc.SayStream(func(yield func(string) bool) { yield("three") })
		return server.Success(), nil
	})
	r = server.NewRunner(t.Context(), agent, input(), server.WithLogger(testlog.New(t)))
	evs := drain(t, r.Events())
	terminal(t, evs)
	if !server.IsCancelled(afterCancel) || !server.IsCancelled(encodeAfterCancel) {
		t.Fatalf("emits after cancel returned %v and %v, want CANCELLED", afterCancel, encodeAfterCancel)
	}
	if !errors.Is(afterCancel, cause) || !errors.Is(afterCancel, context.Canceled) {
		t.Fatalf("%v reaches neither the cause nor context.Canceled", afterCancel)
	}
	re := lastRunError(t, evs)
	if codeOfRunError(re) != string(agui.CodeCancelled) || re.Message != "run cancelled: operator stop" {
		t.Fatalf("RUN_ERROR %s %q", codeOfRunError(re), re.Message)
	}
	n := 0
	for _, ev := range evs {
		if ev.Type() == agui.EventTypeTextMessageContent {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d text deltas sent, want only the one before the cancel", n)
	}
}

// An emit through a subagent that ended fails without failing the run:
// ending a subagent is how an agent stops its work while the run goes on.
func TestEndedSubagentEmitDoesNotFailTheRun(t *testing.T) {
	var late error
	evs := runQuiet(t, agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		sub, err := rc.StartSubagent("helper")
		if err != nil {
			return server.Outcome{}, err
		}
		sub.Fail(errors.New("gave up"))
		late = sub.Say("too late")
		return server.Success(), rc.Say("done")
	}))
	if !errors.Is(late, server.ErrSubagentEnded) {
		t.Fatalf("emit through the ended subagent: %v", late)
	}
	if _, ok := evs[len(evs)-1].(*agui.RunFinished); !ok {
		t.Fatalf("the run ended with %s, want RUN_FINISHED", evs[len(evs)-1].Type())
	}
}

// textOf returns the deltas of the stream's text messages.
func textOf(evs []agui.Event) []string {
	var out []string
	for _, ev := range evs {
		if c, ok := ev.(*agui.TextMessageContent); ok {
			out = append(out, c.Delta)
		}
	}
	return out
}

func TestSayStream(t *testing.T) {
	evs := runQuiet(t, agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		return server.Success(), rc.SayStream(func(yield func(string) bool) {
			for _, s := range []string{"Hel", "", "lo", "!"} {
				if !yield(s) {
					return
				}
			}
		})
	}))
	want := []agui.EventType{agui.EventTypeRunStarted, agui.EventTypeTextMessageStart,
		agui.EventTypeTextMessageContent, agui.EventTypeTextMessageContent, agui.EventTypeTextMessageContent,
		agui.EventTypeTextMessageEnd, agui.EventTypeRunFinished}
	if got := types(evs); fmtTypes(got) != fmtTypes(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if got := strings.Join(textOf(evs), "|"); got != "Hel|lo|!" {
		t.Fatalf("deltas %q", got)
	}
}

// SayStream stops pulling chunks at the first emit that fails.
func TestSayStreamStopsAtFailure(t *testing.T) {
	pulled := 0
	var r *server.Runner[noState]
	agent := agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		rc.SayStream(func(yield func(string) bool) {
			for range 10 {
				pulled++
				if pulled == 2 {
					r.Cancel(nil)
				}
				if !yield("x") {
					return
				}
			}
		})
		return server.Success(), nil
	})
	r = server.NewRunner(t.Context(), agent, input(), server.WithLogger(testlog.New(t)))
	evs := drain(t, r.Events())
	if re := lastRunError(t, evs); codeOfRunError(re) != string(agui.CodeCancelled) {
		t.Fatalf("RUN_ERROR %s", codeOfRunError(re))
	}
	if pulled != 2 || len(textOf(evs)) != 1 {
		t.Fatalf("pulled %d chunks, sent %d, want 2 and 1", pulled, len(textOf(evs)))
	}
}

// SayReader sends each read as a delta, never splitting a character: every
// delta is valid UTF-8 even when the reader returns one byte at a time.
func TestSayReader(t *testing.T) {
	const text = "héllo, 世界 🌍!"
	for _, tc := range []struct {
		name string
		r    func() io.Reader
	}{
		{"whole", func() io.Reader { return strings.NewReader(text) }},
		{"one byte at a time", func() io.Reader { return iotest.OneByteReader(strings.NewReader(text)) }},
		{"half reads", func() io.Reader { return iotest.HalfReader(strings.NewReader(text)) }},
		{"data with EOF", func() io.Reader { return iotest.DataErrReader(strings.NewReader(text)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := runQuiet(t, agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
				return server.Success(), rc.SayReader(tc.r())
			}))
			if _, ok := evs[len(evs)-1].(*agui.RunFinished); !ok {
				t.Fatalf("ended with %s", evs[len(evs)-1].Type())
			}
			deltas := textOf(evs)
			for _, d := range deltas {
				if !utf8.ValidString(d) {
					t.Fatalf("delta %q is not valid UTF-8", d)
				}
			}
			if got := strings.Join(deltas, ""); got != text {
				t.Fatalf("text %q, want %q", got, text)
			}
		})
	}
}

// A read that fails fails the run with AGENT_ERROR naming it; the driver
// reports it although the agent returned success.
func TestSayReaderReadFailure(t *testing.T) {
	errBroken := errors.New("connection reset")
	var got error
	evs := runQuiet(t, agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		got = rc.SayReader(io.MultiReader(strings.NewReader("partial"), iotest.ErrReader(errBroken)))
		return server.Success(), nil
	}))
	if !errors.Is(got, errBroken) {
		t.Fatalf("SayReader returned %v", got)
	}
	re := lastRunError(t, evs)
	if codeOfRunError(re) != string(agui.CodeAgentError) || re.Message != "agent error: reading the reply: connection reset" {
		t.Fatalf("RUN_ERROR %s %q", codeOfRunError(re), re.Message)
	}
	if strings.Join(textOf(evs), "") != "partial" {
		t.Fatalf("deltas %q", textOf(evs))
	}
}

func TestEmitToolCall(t *testing.T) {
	type args struct {
		City string `json:"city"`
	}
	var backend, frontend string
	evs := runQuiet(t, agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		backend, _ = rc.EmitToolCall("weather", args{"Paris"}, map[string]int{"celsius": 21})
		frontend, _ = rc.EmitToolCall("confirm", args{"Paris"}, nil, server.WithID("call-2"))
		return server.Success(frontend), rc.Err()
	}))
	want := []agui.EventType{agui.EventTypeRunStarted,
		agui.EventTypeToolCallStart, agui.EventTypeToolCallArgs, agui.EventTypeToolCallEnd, agui.EventTypeToolCallResult,
		agui.EventTypeToolCallStart, agui.EventTypeToolCallArgs, agui.EventTypeToolCallEnd,
		agui.EventTypeRunFinished}
	if got := types(evs); fmtTypes(got) != fmtTypes(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if frontend != "call-2" || backend == "" || backend == frontend {
		t.Fatalf("ids %q and %q", backend, frontend)
	}
	if a := evs[2].(*agui.ToolCallArgs); a.ToolCallID != backend || a.Delta != `{"city":"Paris"}` {
		t.Fatalf("args %+v", a)
	}
	if r := evs[4].(*agui.ToolCallResult); r.ToolCallID != backend || r.Content.String() != `{"celsius":21}` {
		t.Fatalf("result %+v", r)
	}
	fin := evs[len(evs)-1].(*agui.RunFinished)
	if o, ok := fin.Outcome.(*agui.RunFinishedSuccessOutcome); !ok || len(o.PendingToolCallIDs) != 1 || o.PendingToolCallIDs[0] != "call-2" {
		t.Fatalf("outcome %+v", fin.Outcome)
	}
}

// A tool call whose arguments or result do not encode sends nothing and is
// the run's failure.
func TestEmitToolCallBadValue(t *testing.T) {
	for name, call := range map[string]func(rc *server.RunContext[noState]) error{
		"args": func(rc *server.RunContext[noState]) error {
			_, err := rc.EmitToolCall("t", make(chan int), "ok")
			return err
		},
		"result": func(rc *server.RunContext[noState]) error {
			_, err := rc.EmitToolCall("t", "{}", make(chan int))
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			var got error
			evs := runQuiet(t, agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
				got = call(rc)
				return server.Success(), nil
			}))
			if server.CodeOf(got) != agui.CodeSerialization || len(evs) != 2 {
				t.Fatalf("error %v, events %v", got, types(evs))
			}
			if re := lastRunError(t, evs); codeOfRunError(re) != string(agui.CodeSerialization) {
				t.Fatalf("RUN_ERROR %s", codeOfRunError(re))
			}
		})
	}
}

// ChangeState is UpdateState then PublishState: the first change is a
// snapshot (the client sent no state), the next a delta.
func TestChangeState(t *testing.T) {
	type state struct {
		Items []string `json:"items"`
		Done  bool     `json:"done"`
	}
	agent := server.AgentFunc[state](func(ctx context.Context, rc *server.RunContext[state]) (server.Outcome, error) {
		rc.ChangeState(func(s *state) { s.Items = append(s.Items, "milk", "eggs", "bread", "butter") })
		rc.ChangeState(func(s *state) { s.Done = true })
		rc.ChangeState(func(s *state) {}) // no change: nothing sent
		return server.Success(), nil
	})
	evs := drain(t, server.Run(t.Context(), agent, input(), server.WithLogger(testlog.New(t))))
	want := []agui.EventType{agui.EventTypeRunStarted, agui.EventTypeStateSnapshot, agui.EventTypeStateDelta, agui.EventTypeRunFinished}
	if got := types(evs); fmtTypes(got) != fmtTypes(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if s := string(evs[1].(*agui.StateSnapshot).Snapshot); s != `{"items":["milk","eggs","bread","butter"],"done":false}` {
		t.Fatalf("snapshot %s", s)
	}
}

// A cancellation with a cause, by Cancel or through UntilCancelled, reads as
// a context cancellation too: errors.Is reaches context.Canceled (or
// context.DeadlineExceeded for a deadline) and the cause.
func TestCancelledErrorReachesContextCanceled(t *testing.T) {
	cause := errors.New("operator stop")
	for _, tc := range []struct {
		cause  error
		ctxErr error
	}{
		{cause, context.Canceled},
		{server.ErrCancelRequested, context.Canceled},
		{server.ErrClientDisconnected, context.Canceled},
		{server.ErrDeadline, context.DeadlineExceeded},
	} {
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(tc.cause)
		_, err := server.UntilCancelled(ctx, func(ctx context.Context) (int, error) { return 1, nil })
		if !errors.Is(err, tc.ctxErr) || !errors.Is(err, tc.cause) || !server.IsCancelled(err) {
			t.Errorf("UntilCancelled with cause %v: %v reaches %v: %v, the cause: %v", tc.cause, err,
				tc.ctxErr, errors.Is(err, tc.ctxErr), errors.Is(err, tc.cause))
		}
	}
	_, err := server.UntilCancelled(canceledCtx(t), func(ctx context.Context) (int, error) { return 1, nil })
	if !errors.Is(err, context.Canceled) || err.Error() != "run cancelled" {
		t.Errorf("no cause: %v", err)
	}
}

func canceledCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx
}

// A run stopped by request says so once: "run cancelled by request", and
// the reason after it when the request gave one.
func TestCancelByRequestMessage(t *testing.T) {
	for _, tc := range []struct {
		cause error
		want  string
	}{
		{server.ErrCancelRequested, "run cancelled by request"},
		{fmt.Errorf("%w: user pressed Stop", server.ErrCancelRequested), "run cancelled by request: user pressed Stop"},
	} {
		var r *server.Runner[noState]
		agent := agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
			rc.StartTextMessage() // left open: RUN_ERROR, not the clean stop's RUN_FINISHED
			r.Cancel(tc.cause)
			return server.Success(), nil
		})
		r = server.NewRunner(t.Context(), agent, input(), server.WithLogger(testlog.New(t)))
		evs := drain(t, r.Events())
		if re := lastRunError(t, evs); re.Message != tc.want {
			t.Errorf("cause %v: message %q, want %q", tc.cause, re.Message, tc.want)
		}
	}
}
