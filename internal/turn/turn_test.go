package turn_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/turn"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// script is a Conversation whose replies are functions of the turn.
type script struct {
	replies []func(t *turn.Turn) error
	usage   int64
	results [][]turn.Result
	n       int
}

func (s *script) Next(ctx context.Context, t *turn.Turn) (agui.TokenUsage, error) {
	if s.n >= len(s.replies) {
		return agui.TokenUsage{}, errors.New("no more replies")
	}
	f := s.replies[s.n]
	s.n++
	return agui.TokenUsage{InputTokens: turn.Count(s.usage), OutputTokens: turn.Count(1)}, f(t)
}

func (s *script) AddResults(r []turn.Result) { s.results = append(s.results, r) }

func run(t *testing.T, loop *turn.Loop, conv turn.Conversation) ([]agui.Event, *agui.RunFinished, *agui.RunError) {
	t.Helper()
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return loop.Run(ctx, &rc.Emitter, conv, agui.TokenUsage{})
	})
	var events []agui.Event
	var fin *agui.RunFinished
	var failed *agui.RunError
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
	for ev, err := range server.Run(context.Background(), agent, in) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
		switch ev := ev.(type) { //agui:nonexhaustive only the terminal event matters
		case *agui.RunFinished:
			fin = ev
		case *agui.RunError:
			failed = ev
		}
	}
	return events, fin, failed
}

func types(events []agui.Event) string {
	var s []string
	for _, ev := range events {
		s = append(s, string(ev.Type()))
	}
	return strings.Join(s, " ")
}

// Reasoning closes before the answer; tool calls share the reply's message
// as parent and close after the text; everything is closed when the run
// finishes.
func TestTurnOrder(t *testing.T) {
	conv := &script{replies: []func(*turn.Turn) error{func(tr *turn.Turn) error {
		return errors.Join(
			tr.Reasoning("", "thinking"),
			tr.ReasoningEncrypted("", "sig"),
			tr.Text("Hello"),
			tr.StartTool("0", "call-1", "ui_tool"),
			tr.ToolArgs("0", `{"a":1}`),
			tr.Text(" world"),
		)
	}}}
	loop := &turn.Loop{Frontend: map[string]bool{"ui_tool": true}}
	events, fin, failed := run(t, loop, conv)
	if failed != nil {
		t.Fatalf("RUN_ERROR %s", failed.Message)
	}
	want := "RUN_STARTED REASONING_START REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_ENCRYPTED_VALUE REASONING_MESSAGE_END REASONING_END " +
		"TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TOOL_CALL_START TOOL_CALL_ARGS TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END TOOL_CALL_END RUN_FINISHED"
	if got := types(events); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	var textID, parent string
	for _, ev := range events {
		switch ev := ev.(type) { //agui:nonexhaustive only the ids of the message and the call
		case *agui.TextMessageStart:
			textID = ev.MessageID
		case *agui.ToolCallStart:
			parent = *ev.ParentMessageID
		}
	}
	if textID == "" || parent != textID {
		t.Errorf("tool call parent %q, text message %q: want the same", parent, textID)
	}
	if out, ok := fin.Outcome.(*agui.RunFinishedSuccessOutcome); !ok || !slices.Equal(out.PendingToolCallIDs, []string{"call-1"}) {
		t.Errorf("outcome %+v", fin.Outcome)
	}
}

// TestToolChunk: Chat Completions style deltas open a call on its first
// delta, give a call sent without an id one of its own, and gather the
// arguments of calls whose deltas interleave.
func TestToolChunk(t *testing.T) {
	conv := &script{replies: []func(*turn.Turn) error{func(tr *turn.Turn) error {
		return errors.Join(
			tr.ToolChunk("0", "call-a", "ui_tool", `{"a":`),
			tr.ToolChunk("1", "", "ui_tool", `{"b":`),
			tr.ToolChunk("0", "", "", `1}`),
			tr.ToolChunk("1", "", "", `2}`),
		)
	}}}
	events, fin, failed := run(t, &turn.Loop{Frontend: map[string]bool{"ui_tool": true}}, conv)
	if failed != nil {
		t.Fatalf("RUN_ERROR %s", failed.Message)
	}
	args := map[string]string{}
	for _, ev := range events {
		if a, ok := ev.(*agui.ToolCallArgs); ok {
			args[a.ToolCallID] += a.Delta
		}
	}
	out, ok := fin.Outcome.(*agui.RunFinishedSuccessOutcome)
	if !ok || len(out.PendingToolCallIDs) != 2 || out.PendingToolCallIDs[0] != "call-a" || !strings.HasPrefix(out.PendingToolCallIDs[1], "call_") {
		t.Fatalf("outcome %+v", fin.Outcome)
	}
	if args["call-a"] != `{"a":1}` || args[out.PendingToolCallIDs[1]] != `{"b":2}` {
		t.Errorf("arguments %v", args)
	}
}

// Backend tools run until the model stops calling them; an unknown tool and
// a failing tool are reported to the model, not to the run.
func TestLoop(t *testing.T) {
	call := func(id, name, args string) func(*turn.Turn) error {
		return func(tr *turn.Turn) error {
			return errors.Join(tr.StartTool(id, id, name), tr.ToolArgs(id, args))
		}
	}
	conv := &script{usage: 10, replies: []func(*turn.Turn) error{
		func(tr *turn.Turn) error {
			return errors.Join(call("c1", "add", `{"a":1,"b":2}`)(tr), call("c2", "nope", `{}`)(tr), call("c3", "broken", ``)(tr))
		},
		func(tr *turn.Turn) error { return tr.Text("3") },
	}}
	var gotArgs []string
	loop := &turn.Loop{Backend: map[string]turn.Tool{
		"add": {Name: "add", Func: func(ctx context.Context, args json.RawMessage) (string, error) {
			gotArgs = append(gotArgs, string(args))
			return "3", nil
		}},
		"broken": {Name: "broken", Func: func(ctx context.Context, args json.RawMessage) (string, error) {
			gotArgs = append(gotArgs, string(args))
			return "", errors.New("disk on fire")
		}},
	}}
	_, fin, failed := run(t, loop, conv)
	if failed != nil {
		t.Fatalf("RUN_ERROR %s", failed.Message)
	}
	if !slices.Equal(gotArgs, []string{`{"a":1,"b":2}`, `{}`}) {
		t.Errorf("tools ran with %q (empty arguments read as {})", gotArgs)
	}
	want := []turn.Result{
		{CallID: "c1", Name: "add", Content: "3"},
		{CallID: "c2", Name: "nope", Content: `error: there is no tool named "nope"`, IsError: true},
		{CallID: "c3", Name: "broken", Content: "error: disk on fire", IsError: true},
	}
	if len(conv.results) != 1 || !slices.Equal(conv.results[0], want) {
		t.Errorf("results sent back %+v, want %+v", conv.results, want)
	}
	if u := fin.Usage; len(u) != 1 || *u[0].InputTokens != 20 || *u[0].OutputTokens != 2 || u[0].TotalTokens != nil {
		t.Errorf("usage %+v, want the sum of both requests (and no total nobody reported)", u)
	}
}

// A model that never stops calling tools ends the run at the step limit.
func TestLoopStepLimit(t *testing.T) {
	forever := func(tr *turn.Turn) error {
		id := agui.NewID()
		return tr.StartTool(id, id, "again")
	}
	conv := &script{replies: []func(*turn.Turn) error{forever, forever, forever, forever}}
	loop := &turn.Loop{MaxSteps: 3, Backend: map[string]turn.Tool{"again": {Name: "again",
		Func: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}}}
	_, fin, failed := run(t, loop, conv)
	if fin != nil || failed == nil || !strings.Contains(failed.Message, "the model kept calling tools past the step limit (3 requests)") {
		t.Errorf("finished %v, error %+v", fin, failed)
	}
	if conv.n != 3 {
		t.Errorf("%d requests, want 3", conv.n)
	}
	if u := failed.Usage; len(u) != 1 || *u[0].OutputTokens != 3 {
		t.Errorf("usage %+v, want the three requests' tokens on RUN_ERROR", u)
	}
}

// A run that fails after spending tokens reports them on its RUN_ERROR: the
// first request's usage survives the second request's failure.
func TestLoopFailureKeepsUsage(t *testing.T) {
	conv := &script{usage: 10, replies: []func(*turn.Turn) error{
		func(tr *turn.Turn) error { return tr.StartTool("c1", "c1", "add") },
		func(tr *turn.Turn) error { return errors.New("provider broke off") },
	}}
	loop := &turn.Loop{Backend: map[string]turn.Tool{"add": {Name: "add",
		Func: func(context.Context, json.RawMessage) (string, error) { return "3", nil }}}}
	_, fin, failed := run(t, loop, conv)
	if fin != nil || failed == nil || failed.Message != "agent error: provider broke off" {
		t.Fatalf("finished %v, error %+v", fin, failed)
	}
	if u := failed.Usage; len(u) != 1 || *u[0].InputTokens != 20 || *u[0].OutputTokens != 2 {
		t.Errorf("usage %+v, want both requests' tokens", u)
	}
}

func TestInstructions(t *testing.T) {
	got := turn.Instructions("Be brief.", []agui.Context{{Description: "tz", Value: "UTC"}}, json.RawMessage(`{ "a" : 1 }`))
	want := "Be brief.\n\nContext from the application:\n- tz: UTC\n\nThe application's current shared state (JSON): {\"a\":1}"
	if got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	if got := turn.Instructions("", nil, json.RawMessage("null")); got != "" {
		t.Errorf("nothing to say gave %q", got)
	}
}

func TestSchema(t *testing.T) {
	m, err := turn.Schema("t", json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","maximum":12345678901234567890}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(m)
	if !strings.Contains(string(b), "12345678901234567890") {
		t.Errorf("numbers not kept exact: %s", b)
	}
	if _, err := turn.Schema("t", json.RawMessage(`true`)); err == nil || !strings.Contains(err.Error(), `tool "t"`) {
		t.Errorf("a non-object schema gave %v", err)
	}
}
