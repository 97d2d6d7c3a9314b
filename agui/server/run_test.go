//go:build !agui_noverify

package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/verify"
)

type noState = struct{}

func agentOf(f func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error)) server.Agent[noState] {
	return server.AgentFunc[noState](f)
}

// drain collects a whole stream, failing on an error item.
func drain(t *testing.T, seq func(func(agui.Event, error) bool)) []agui.Event {
	t.Helper()
	var evs []agui.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatalf("error item: %v", err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func terminal(t *testing.T, evs []agui.Event) agui.Event {
	t.Helper()
	n := 0
	for _, ev := range evs {
		if ev.Type() == agui.EventTypeRunFinished || ev.Type() == agui.EventTypeRunError {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d terminal events in %v", n, types(evs))
	}
	if evs[0].Type() != agui.EventTypeRunStarted {
		t.Fatalf("first event %s", evs[0].Type())
	}
	return evs[len(evs)-1]
}

func types(evs []agui.Event) []agui.EventType {
	out := make([]agui.EventType, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type()
	}
	return out
}

func runErrorOf(t *testing.T, ev agui.Event) (string, string) {
	t.Helper()
	e, ok := ev.(*agui.RunError)
	if !ok {
		t.Fatalf("terminal %s, want RUN_ERROR", ev.Type())
	}
	if e.Code == nil {
		return e.Message, ""
	}
	return e.Message, *e.Code
}

func TestRunStartedDeclaresVersion(t *testing.T) {
	evs := drain(t, server.Run(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		return server.Outcome{}, nil
	}), input(), server.WithInputEcho()))
	st := evs[0].(*agui.RunStarted)
	if st.ProtocolVersion == nil || *st.ProtocolVersion != "1.0" || st.Input == nil || st.ThreadID != "t" || st.RunID != "r" {
		t.Fatalf("RUN_STARTED %+v", st)
	}
	fin := terminal(t, evs).(*agui.RunFinished)
	if fin.Outcome != nil || fin.ThreadID != "t" || fin.RunID != "r" {
		t.Fatalf("RUN_FINISHED %+v", fin)
	}
}

func TestOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		outcome server.Outcome
		want    string // JSON of RUN_FINISHED, or "CODE" of RUN_ERROR
	}{
		{"zero", server.Outcome{}, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
		{"success", server.Success(), `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}`},
		{"pending", server.Success("c1"), `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":["c1"]}}`},
		{"result", server.Success().WithResult(map[string]int{"n": 1}), `{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":{"n":1},"outcome":{"type":"success"}}`},
		{"interrupt", server.Interrupted(agui.Interrupt{ID: "i1", Reason: "approval"}), `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"approval"}]}}`},
		{"cancelled", server.Cancelled(), `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"cancelled"}}`},
		{"no interrupts", server.Interrupted(), "PROTOCOL"},
		{"bad result", server.Success().WithResult(func() {}), "SERIALIZATION"},
		{"bad raw result", server.Success().WithResult(json.RawMessage(`{`)), "SERIALIZATION"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := drain(t, server.Run(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
				return tc.outcome, nil
			}), input()))
			last := terminal(t, evs)
			if !strings.HasPrefix(tc.want, "{") {
				if _, code := runErrorOf(t, last); code != tc.want {
					t.Fatalf("code %s, want %s", code, tc.want)
				}
				return
			}
			b, err := last.AppendJSON(nil)
			if err != nil || string(b) != tc.want {
				t.Fatalf("got %s (%v), want %s", b, err, tc.want)
			}
		})
	}
}

func TestErrorsReachCauses(t *testing.T) {
	cause := errors.New("boom")
	evs := drain(t, server.Run(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		return server.Outcome{}, fmt.Errorf("step 2: %w", cause) // a plain error is an agent error
	}), input()))
	msg, code := runErrorOf(t, terminal(t, evs))
	if msg != "agent error: step 2: boom" || code != "AGENT_ERROR" {
		t.Fatalf("%q %q", msg, code)
	}
	err := server.AgentError(cause)
	if !errors.Is(err, cause) || server.IsCancelled(err) || server.IsDisconnected(err) {
		t.Fatal("AgentError does not wrap its cause")
	}
	if !server.IsCancelled(fmt.Errorf("x: %w", context.Canceled)) {
		t.Fatal("a context cancellation is a cancellation")
	}
}

func TestPanicIsRunErrorAndLogged(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	evs := drain(t, server.Run(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		msg, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		_ = msg.Append("half a sent")
		panic("nil map somewhere")
	}), input(), server.WithLogger(logger)))
	msg, code := runErrorOf(t, terminal(t, evs))
	if code != string(agui.CodeAgentPanic) || msg != "agent panicked" {
		t.Fatalf("%q %q", msg, code)
	}
	// The open message is not closed as if it had succeeded.
	for _, ev := range evs {
		if ev.Type() == agui.EventTypeTextMessageEnd {
			t.Fatal("the driver closed the agent's message")
		}
	}
	if !strings.Contains(logs.String(), "nil map somewhere") || !strings.Contains(logs.String(), "run_test.go") {
		t.Fatalf("log lacks the panic or its stack:\n%s", logs.String())
	}
}

func TestOpenEntityAtFinishIsReported(t *testing.T) {
	evs := drain(t, server.Run(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		if _, err := rc.StartTextMessage(server.WithID("msg-1")); err != nil {
			return server.Outcome{}, err
		}
		return server.Success(), nil // forgot End
	}), input()))
	msg, code := runErrorOf(t, terminal(t, evs))
	if code != "PROTOCOL_VIOLATION" || !strings.Contains(msg, "open-at-finish") || !strings.Contains(msg, "msg-1") {
		t.Fatalf("%q %q", msg, code)
	}
}

func TestViolationIsStickyButRunStillEnds(t *testing.T) {
	var first, second error
	evs := drain(t, server.Run(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		first = rc.Emit(agui.NewTextMessageEnd("nope"))
		second = rc.Say("ignored the error") // rejected too: the verifier is sticky
		return server.Success(), nil
	}), input()))
	var v *verify.Error
	if !errors.As(first, &v) || v.Rule != verify.NotOpen || second == nil {
		t.Fatalf("first %v, second %v", first, second)
	}
	if _, code := runErrorOf(t, terminal(t, evs)); code != "PROTOCOL_VIOLATION" {
		t.Fatal(code)
	}
	if len(evs) != 2 {
		t.Fatalf("rejected events leaked: %v", types(evs))
	}
}

func TestDriverOwnsLifecycleEvents(t *testing.T) {
	rc, _ := server.NewRunContext[noState](context.Background(), input())
	for _, ev := range []agui.Event{agui.NewRunStarted("t", "r"), agui.NewRunFinished("t", "r"), agui.NewRunError("x"), nil} {
		var e *server.Error
		if err := rc.Emit(ev); !errors.As(err, &e) || e.Code != agui.CodeProtocol {
			t.Errorf("emit %v: %v", ev, err)
		}
	}
}

func TestSerializationError(t *testing.T) {
	rc, events := server.NewRunContext[noState](context.Background(), input())
	err := rc.Emit(agui.NewCustom("x", json.RawMessage(`{"broken"`)))
	var e *server.Error
	if !errors.As(err, &e) || e.Code != agui.CodeSerialization {
		t.Fatalf("%v", err)
	}
	if err := rc.Custom("y", make(chan int)); !errors.As(err, &e) || e.Code != agui.CodeSerialization {
		t.Fatalf("%v", err)
	}
	n := 0
	for range events {
		n++
	}
	if n != 1 {
		t.Fatalf("%d events; the bad ones must not be sent", n)
	}
}

func TestConsumerBreakDisconnects(t *testing.T) {
	emitErr := make(chan error, 1)
	ctxErr := make(chan error, 1)
	agent := agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		msg, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for i := 0; ; i++ {
			if err := msg.Append("x"); err != nil {
				emitErr <- err
				ctxErr <- context.Cause(ctx)
				return server.Outcome{}, err
			}
		}
	})
	n := 0
	for range server.Run(context.Background(), agent, input()) {
		if n++; n == 5 {
			break
		}
	}
	// The loop statement returned only after the agent did.
	err := <-emitErr
	if !server.IsDisconnected(err) || !errors.Is(err, server.ErrConsumerStopped) {
		t.Fatalf("emit after break: %v", err)
	}
	if cause := <-ctxErr; !errors.Is(cause, server.ErrConsumerStopped) {
		t.Fatalf("run context cause %v", cause)
	}
}

func TestSecondIterationFails(t *testing.T) {
	seq := server.Run(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		return server.Outcome{}, nil
	}), input())
	drain(t, seq)
	for ev, err := range seq {
		if ev != nil || !errors.Is(err, server.ErrAlreadyStarted) {
			t.Fatalf("%v %v", ev, err)
		}
	}
	for _, err := range server.Run[noState](context.Background(), nil, input()) {
		if err == nil {
			t.Fatal("nil agent")
		}
	}
}

func TestParentCancelBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("shutting down")
	cancel(cause)
	called := false
	evs := drain(t, server.Run(ctx, agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		called = true
		return server.Outcome{}, nil
	}), input()))
	msg, code := runErrorOf(t, terminal(t, evs))
	if called || code != "CANCELLED" || msg != "run cancelled: shutting down" {
		t.Fatalf("called %v, %q %q", called, msg, code)
	}
}

func TestTimeout(t *testing.T) {
	evs := drain(t, server.Run(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the run's context has no deadline")
		}
		<-ctx.Done()
		if ctx.Err() == nil || !errors.Is(context.Cause(ctx), server.ErrDeadline) {
			t.Errorf("cause %v", context.Cause(ctx))
		}
		return server.Outcome{}, ctx.Err()
	}), input(), server.WithTimeout(20*time.Millisecond)))
	msg, code := runErrorOf(t, terminal(t, evs))
	if code != "CANCELLED" || msg != "run cancelled: run deadline exceeded" {
		t.Fatalf("%q %q", msg, code)
	}
}

// The guard: a run that did not finish normally cancels what it started; a
// run that did keeps its context alive, even after the parent ends.
func TestGuard(t *testing.T) {
	for _, fail := range []bool{false, true} {
		parent, cancelParent := context.WithCancel(context.Background())
		var runCtx context.Context
		evs := drain(t, server.Run(parent, agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
			runCtx = ctx
			if fail {
				return server.Outcome{}, errors.New("failed")
			}
			return server.Outcome{}, nil
		}), input()))
		terminal(t, evs)
		cancelParent()
		time.Sleep(10 * time.Millisecond)
		if got := runCtx.Err() != nil; got != fail {
			t.Errorf("fail=%v: run context cancelled=%v", fail, got)
		}
	}
}

// Tool calls run in parallel goroutines; every event is serialised and
// verified in the one order the consumer sees; -race checks the rest.
func TestParallelToolCalls(t *testing.T) {
	const calls, deltas = 8, 50
	agent := agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		var wg sync.WaitGroup
		errs := make(chan error, calls)
		for i := range calls {
			wg.Go(func() {
				call, err := rc.StartToolCall(fmt.Sprintf("tool-%d", i))
				if err != nil {
					errs <- err
					return
				}
				for range deltas {
					if err := call.Args("x"); err != nil {
						errs <- err
						return
					}
				}
				if err := call.ResultJSON(i); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		return server.Success(), <-errs
	})
	var srv verify.Server
	var client verify.Client
	counts := map[agui.EventType]int{}
	for ev, err := range server.Run(context.Background(), agent, input()) {
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Observe(ev); err != nil {
			t.Fatalf("server profile: %v", err)
		}
		if err := client.Observe(ev); err != nil {
			t.Fatalf("client profile: %v", err)
		}
		counts[ev.Type()]++
	}
	if counts[agui.EventTypeToolCallArgs] != calls*deltas || counts[agui.EventTypeToolCallResult] != calls || counts[agui.EventTypeRunFinished] != 1 {
		t.Fatalf("counts %v", counts)
	}
}

func TestOwnerMismatch(t *testing.T) {
	rc, _ := server.NewRunContext[noState](context.Background(), input())
	a, err := rc.StartSubagent("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := rc.StartSubagent("b")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := a.StartTextMessage(server.WithID("m"))
	if err != nil {
		t.Fatal(err)
	}
	err = b.Emit(agui.NewTextMessageContent("m", "not yours"))
	var v *verify.Error
	if !errors.As(err, &v) || v.Rule != verify.OwnerMismatch {
		t.Fatalf("%v", err)
	}
	_ = msg
}

func TestSubagentAttribution(t *testing.T) {
	rc, events := server.NewRunContext[noState](context.Background(), input())
	sub, err := rc.StartSubagent("helper", server.WithDescription("helps"))
	if err != nil {
		t.Fatal(err)
	}
	nested, err := sub.StartSubagent("nested")
	if err != nil {
		t.Fatal(err)
	}
	if err := nested.Say("deep"); err != nil {
		t.Fatal(err)
	}
	if err := nested.Fail(server.AgentError(errors.New("gave up"))); err != nil {
		t.Fatal(err)
	}
	if err := sub.Emit(agui.NewCustom("note", json.RawMessage(`1`))); err != nil {
		t.Fatal(err)
	}
	if err := sub.Finish("done"); err != nil || sub.Finish(nil) != nil || sub.Suspend() != nil {
		t.Fatal("ending a subagent is idempotent")
	}
	var got []string
	for ev := range events {
		b, _ := ev.AppendJSON(nil)
		got = append(got, string(b))
	}
	want := fmt.Sprintf(`"subagentRunId":%q`, nested.ID())
	if !strings.Contains(got[3], want) || !strings.Contains(got[2], `"parentSubagentRunId":"`+sub.ID()+`"`) {
		t.Fatalf("attribution:\n%s", strings.Join(got, "\n"))
	}
	if !strings.Contains(got[6], `"code":"AGENT_ERROR"`) || !strings.Contains(got[7], sub.ID()) {
		t.Fatalf("events:\n%s", strings.Join(got, "\n"))
	}
}

func TestHelpersAreIdempotent(t *testing.T) {
	rc, events := server.NewRunContext[noState](context.Background(), input())
	step, _ := rc.StartStep("s")
	r, _ := rc.StartReasoning()
	if err := r.Think("hmm"); err != nil {
		t.Fatal(err)
	}
	if err := r.EncryptedValue("opaque"); err != nil {
		t.Fatal(err)
	}
	call, _ := rc.StartToolCall("t")
	if err := call.ArgsJSON(map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if err := call.Result(agui.TextContent("ok")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		for _, end := range []func() error{step.End, r.End, call.End} {
			if err := end(); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []agui.EventType
	for ev := range events {
		got = append(got, ev.Type())
	}
	want := "[RUN_STARTED STEP_STARTED REASONING_START REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_MESSAGE_END REASONING_ENCRYPTED_VALUE TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END TOOL_CALL_RESULT STEP_FINISHED REASONING_END]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got  %v\nwant %s", got, want)
	}
}

type counterState struct {
	Count int               `json:"count"`
	Notes []string          `json:"notes"`
	Meta  map[string]string `json:"meta"`
}

func TestStateSnapshotThenDelta(t *testing.T) {
	in := input()
	in.State = json.RawMessage(`{"count":1,"notes":["a"],"meta":{"owner":"ann","long":"` + strings.Repeat("x", 80) + `"}}`)
	rc, events := server.NewRunContext[counterState](context.Background(), in)
	if s := rc.State(); s.Count != 1 || s.Meta["owner"] != "ann" {
		t.Fatalf("initial state %+v", s)
	}
	if err := rc.PublishState(); err != nil { // unchanged: nothing
		t.Fatal(err)
	}
	rc.UpdateState(func(s *counterState) { s.Count++; s.Notes = append(s.Notes, "b") })
	if err := rc.PublishState(); err != nil {
		t.Fatal(err)
	}
	rc.SetState(counterState{Count: 7})
	if err := rc.PublishState(); err != nil { // everything changed: snapshot is smaller
		t.Fatal(err)
	}
	if err := rc.PublishStateSnapshot(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev := range events {
		b, _ := ev.AppendJSON(nil)
		got = append(got, string(b))
	}
	want := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}`,
		`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/count","value":2},{"op":"add","path":"/notes/1","value":"b"}]}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"count":7,"notes":null,"meta":null}}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"count":7,"notes":null,"meta":null}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBadInputState(t *testing.T) {
	in := input()
	in.State = json.RawMessage(`{"count":"many"}`)
	evs := drain(t, server.Run(context.Background(), server.AgentFunc[counterState](func(ctx context.Context, rc *server.RunContext[counterState]) (server.Outcome, error) {
		t.Error("the agent ran on an undecodable state")
		return server.Outcome{}, nil
	}), in))
	if _, code := runErrorOf(t, terminal(t, evs)); code != "SERIALIZATION" {
		t.Fatal(code)
	}
}

func TestActivityUpdate(t *testing.T) {
	rc, events := server.NewRunContext[noState](context.Background(), input())
	long := strings.Repeat("y", 60)
	a, err := rc.StartActivity("progress", map[string]any{"percent": 10, "text": long}, server.WithID("act"))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Update(map[string]any{"percent": 90, "text": long}); err != nil {
		t.Fatal(err)
	}
	if err := a.Update(map[string]any{"percent": 90, "text": long}); err != nil { // unchanged
		t.Fatal(err)
	}
	if _, err := rc.StartActivity("bad", []int{1}); err == nil {
		t.Fatal("activity content must be an object")
	}
	var got []string
	for ev := range events {
		b, _ := ev.AppendJSON(nil)
		got = append(got, string(b))
	}
	if len(got) != 3 || got[2] != `{"type":"ACTIVITY_DELTA","messageId":"act","activityType":"progress","patch":[{"op":"replace","path":"/percent","value":90}]}` {
		t.Fatalf("%s", strings.Join(got, "\n"))
	}
}

func TestLastUserText(t *testing.T) {
	in := input()
	in.Messages = []agui.Message{
		&agui.UserMessage{ID: "1", Content: agui.TextContent("first")},
		&agui.AssistantMessage{ID: "2"},
		&agui.UserMessage{ID: "3", Content: agui.PartsContent(&agui.TextPart{Text: "second"})},
	}
	rc, _ := server.NewRunContext[noState](context.Background(), in)
	if got := rc.LastUserText(); got != "second" {
		t.Fatal(got)
	}
}

func TestStreamPushesEncodedEvents(t *testing.T) {
	r := server.NewRunner(context.Background(), hello(), input())
	var frames []string
	err := r.Stream(func(ev agui.Event, data []byte) error {
		frames = append(frames, string(data)) // copied: data is reused
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}`
	if len(frames) != 5 || frames[0] != want || !strings.HasPrefix(frames[4], `{"type":"RUN_FINISHED"`) {
		t.Fatalf("%q", frames)
	}
	if err := r.Stream(func(agui.Event, []byte) error { return nil }); !errors.Is(err, server.ErrAlreadyStarted) {
		t.Fatal(err)
	}
}

func TestStreamSendFailureDisconnects(t *testing.T) {
	broken := errors.New("connection reset")
	var emitErr, cause error
	r := server.NewRunner(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		emitErr = rc.Say("lost")
		cause = context.Cause(ctx)
		return server.Outcome{}, emitErr
	}), input())
	n := 0
	err := r.Stream(func(agui.Event, []byte) error {
		if n++; n == 2 {
			return broken
		}
		return nil
	})
	if !errors.Is(err, broken) || !server.IsDisconnected(emitErr) || !errors.Is(emitErr, broken) || !errors.Is(cause, broken) {
		t.Fatalf("stream %v, emit %v, cause %v", err, emitErr, cause)
	}
	if n != 2 {
		t.Fatalf("%d sends after the failure", n-2)
	}
}

func TestGoexitIsReported(t *testing.T) {
	evs := drain(t, server.Run(context.Background(), agentOf(func(ctx context.Context, rc *server.RunContext[noState]) (server.Outcome, error) {
		runtime.Goexit()
		return server.Outcome{}, nil
	}), input()))
	if _, code := runErrorOf(t, terminal(t, evs)); code != "AGENT_PANIC" {
		t.Fatal(code)
	}
}
