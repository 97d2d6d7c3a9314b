package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/server"
)

// counterState is the typed state of the counting agent.
type counterState struct {
	Count int    `json:"count"`
	Note  string `json:"note,omitempty"`
}

// counting answers each turn with what the user said last and the turn's
// count, which it keeps in the state.
func counting() server.Agent[counterState] {
	return server.AgentFunc[counterState](func(ctx context.Context, rc *server.RunContext[counterState]) (server.Outcome, error) {
		rc.UpdateState(func(s *counterState) { s.Count++ })
		if err := rc.PublishState(); err != nil {
			return server.Outcome{}, err
		}
		st := rc.State()
		return server.Success(), rc.Say(fmt.Sprintf("%s #%d %s", rc.LastUserText(), st.Count, st.Note))
	})
}

// threadOn returns a thread on a test server serving agent.
func threadOn[S any](t *testing.T, agent server.Agent[S], opts ...client.ThreadOption) *client.Thread {
	t.Helper()
	srv := httptest.NewServer(server.NewHandler(agent))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c.NewThread(opts...)
}

// lastText is the content of the thread's last message, an assistant's.
func lastText(t *testing.T, th *client.Thread) string {
	t.Helper()
	msgs := th.Messages()
	am, ok := msgs[len(msgs)-1].(*agui.AssistantMessage)
	if !ok || am.Content == nil {
		t.Fatalf("the last message is %#v, not an assistant's text", msgs[len(msgs)-1])
	}
	return *am.Content
}

// One Thread, three turns: the subscriber registered before the first
// sees every run, the thread id stays, the state a turn leaves (the
// reducer's, from the agent's deltas) is what the next sends, and a state
// set between turns is what the agent gets.
func TestThreadManyTurns(t *testing.T) {
	th := threadOn(t, counting())
	var runs []string
	th.Subscribe(func(d client.Delivery) {
		if rs, ok := d.Event.(*agui.RunStarted); ok {
			runs = append(runs, rs.RunID)
		}
	})
	ctx := context.Background()

	th.AddUserMessage("hello")
	res, err := th.Run(ctx, client.RunParams{})
	if err != nil || res.Outcome.Status != conversation.Succeeded {
		t.Fatalf("turn 1: %v, %v", res.Outcome.Status, err)
	}
	thread := th.ThreadID()
	if got := lastText(t, th); got != "hello #1 " {
		t.Fatalf("turn 1 answered %q", got)
	}
	if string(res.State) != `{"count":1}` || string(th.State()) != `{"count":1}` {
		t.Fatalf("turn 1 state: result %s, thread %s", res.State, th.State())
	}

	th.AddUserMessage("again")
	res, err = th.Run(ctx, client.RunParams{})
	if err != nil {
		t.Fatal(err)
	}
	if got := lastText(t, th); got != "again #2 " {
		t.Fatalf("turn 2 answered %q", got)
	}
	if string(res.Input.State) != `{"count":1}` {
		t.Fatalf("turn 2 sent state %s, want the reducer's {\"count\":1}", res.Input.State)
	}

	if err := th.SetState(counterState{Count: 10, Note: "set"}); err != nil {
		t.Fatal(err)
	}
	if err := th.SetState(func() {}); err == nil {
		t.Fatal("a state that does not encode was taken")
	}
	th.AddMessages(&agui.UserMessage{ID: "u3", Content: agui.TextContent("third")})
	res, err = th.Run(ctx, client.RunParams{})
	if err != nil {
		t.Fatal(err)
	}
	if got := lastText(t, th); got != "third #11 set" {
		t.Fatalf("turn 3 answered %q", got)
	}
	if len(runs) != 3 || th.ThreadID() != thread {
		t.Fatalf("the subscriber saw runs %v; thread %s, then %s", runs, thread, th.ThreadID())
	}
	if n := len(th.Messages()); n != 6 || len(res.Input.Messages) != 5 {
		t.Fatalf("%d messages in the thread, %d sent with turn 3; want 6 and 5", n, len(res.Input.Messages))
	}
	if len(res.NewMessages) != 1 {
		t.Fatalf("turn 3 made %d new messages, want its answer alone", len(res.NewMessages))
	}
}

// frontendTool calls the client's tool "pick_color" and ends the run with
// the call pending; a run whose last message is the tool's result answers
// with it.
func frontendTool() server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		msgs := rc.Messages()
		if tm, ok := msgs[len(msgs)-1].(*agui.ToolMessage); ok {
			return server.Success(), rc.Say("the tool said " + tm.Content.String() + " for " + tm.ToolCallID)
		}
		if len(rc.Tools()) != 1 || rc.Tools()[0].Name != "pick_color" {
			return server.Outcome{}, server.AgentError(errors.New("the client declared no pick_color tool"))
		}
		tc, err := rc.StartToolCall("pick_color", server.WithID("call-1"))
		if err != nil {
			return server.Outcome{}, err
		}
		if err := tc.Args(`{"among":["red","blue"]}`); err != nil {
			return server.Outcome{}, err
		}
		if err := tc.End(); err != nil {
			return server.Outcome{}, err
		}
		return server.Success(tc.ID()), nil
	})
}

// A frontend tool's round trip: the run leaves the call pending, the
// client runs it and adds its result, and the next run carries it, right
// after the call, to the agent.
func TestThreadFrontendToolResult(t *testing.T) {
	th := threadOn(t, frontendTool())
	ctx := context.Background()
	tools := []agui.Tool{{Name: "pick_color", Description: "Ask the user for a color.", Parameters: json.RawMessage(`{"type":"object"}`)}}
	th.AddUserMessage("pick a color")
	res, err := th.Run(ctx, client.RunParams{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.Status != conversation.Succeeded || strings.Join(res.Outcome.PendingToolCallIDs, ",") != "call-1" {
		t.Fatalf("outcome %v, pending %v", res.Outcome.Status, res.Outcome.PendingToolCallIDs)
	}
	pending := th.PendingToolCalls()
	if len(pending) != 1 || pending[0].Function.Name != "pick_color" || pending[0].Function.Arguments != `{"among":["red","blue"]}` {
		t.Fatalf("pending tool calls %+v", pending)
	}

	if _, err := th.AddToolResult("call-9", agui.TextContent("x")); !errors.Is(err, client.ErrUnknownToolCall) {
		t.Fatalf("a result for an unknown call: %v", err)
	}
	id, err := th.AddToolResult(pending[0].ID, agui.TextContent("blue"))
	if err != nil {
		t.Fatal(err)
	}
	if left := th.PendingToolCalls(); len(left) != 0 {
		t.Fatalf("still pending after the result: %+v", left)
	}
	res, err = th.Run(ctx, client.RunParams{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if got := lastText(t, th); got != "the tool said blue for call-1" {
		t.Fatalf("the agent answered %q", got)
	}
	var roles []string
	for _, m := range res.Input.Messages {
		roles = append(roles, string(m.Role()))
	}
	if strings.Join(roles, " ") != "user assistant tool" || res.Input.Messages[2].MessageID() != id {
		t.Fatalf("the second run sent %v", roles)
	}
}

// asking raises two interrupts; a run that resumes them answers with what
// it was given.
func asking() server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if resume := rc.Resume(); len(resume) > 0 {
			var parts []string
			for _, e := range resume {
				parts = append(parts, fmt.Sprintf("%s=%s:%s", e.InterruptID, e.Status, e.Payload))
			}
			return server.Success(), rc.Say(strings.Join(parts, " "))
		}
		approve := server.NewInterrupt("approval", "Book it?")
		approve.ID = "approve"
		color := server.NewInterrupt("question", "Which color?")
		color.ID = "color"
		return server.Interrupted(approve, color), nil
	})
}

// The interrupts of a run are answered on the thread and sent with the
// next: a run missing an answer is refused before anything is sent, an
// answer to an interrupt that is not pending is refused at once, a later
// answer replaces an earlier one, and the answers are spent once a run
// finishes.
func TestThreadInterruptAnswered(t *testing.T) {
	th := threadOn(t, asking())
	events := 0
	th.Subscribe(func(client.Delivery) { events++ })
	ctx := context.Background()
	th.AddUserMessage("book a table")
	res, err := th.Run(ctx, client.RunParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.Status != conversation.Interrupted || len(th.Interrupts()) != 2 {
		t.Fatalf("outcome %v, interrupts %v", res.Outcome.Status, th.Interrupts())
	}
	firstRun := events

	if err := th.Resolve("nope", nil); !errors.Is(err, client.ErrNotPending) {
		t.Fatalf("an answer to no interrupt: %v", err)
	}
	if err := th.Resolve("approve", nil); err != nil {
		t.Fatal(err)
	}
	var re *conversation.ResumeError
	if _, err := th.Run(ctx, client.RunParams{}); !errors.As(err, &re) || re.Kind != conversation.Unanswered || strings.Join(re.IDs, ",") != "color" {
		t.Fatalf("a run with one interrupt unanswered: %v", err)
	}
	if events != firstRun {
		t.Fatal("a refused run delivered events")
	}
	if err := th.Decline("color"); err != nil {
		t.Fatal(err)
	}
	if err := th.Resolve("color", json.RawMessage(`{"color":"blue"}`)); err != nil { // replaces the Decline
		t.Fatal(err)
	}
	if err := th.Resolve("color", json.RawMessage(`{`)); err == nil {
		t.Fatal("a payload that is not JSON was taken")
	}
	res, err = th.Run(ctx, client.RunParams{})
	if err != nil {
		t.Fatal(err)
	}
	if got := lastText(t, th); got != `approve=resolved: color=resolved:{"color":"blue"}` {
		t.Fatalf("the agent saw %q", got)
	}
	if res.Outcome.Status != conversation.Succeeded || len(th.Interrupts()) != 0 || events <= firstRun {
		t.Fatalf("after the resume: %v, interrupts %v, %d events", res.Outcome.Status, th.Interrupts(), events)
	}
	// The answers went with that run: the next one sends none.
	th.AddUserMessage("thanks")
	res, err = th.Run(ctx, client.RunParams{})
	if err != nil || res.Input.Resume != nil || res.Outcome.Status != conversation.Interrupted {
		t.Fatalf("the run after: resume %v, %v, %v", res.Input.Resume, res.Outcome.Status, err)
	}
}

// A CLI answers every interrupt with an approval, or one with a JSON value
// from its command line, in a line or two.
func TestThreadAnswersFromACommandLine(t *testing.T) {
	th := threadOn(t, asking())
	ctx := context.Background()
	if _, err := th.Run(ctx, client.RunParams{}); err != nil {
		t.Fatal(err)
	}
	for _, in := range th.Interrupts() { // --approve
		if err := th.Resolve(in.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	arg := `color={"color":"red"}` // --resume-with ID=JSON
	id, value, _ := strings.Cut(arg, "=")
	if err := th.Resolve(id, json.RawMessage(value)); err != nil {
		t.Fatal(err)
	}
	if _, err := th.Run(ctx, client.RunParams{}); err != nil {
		t.Fatal(err)
	}
	if got := lastText(t, th); got != `approve=resolved: color=resolved:{"color":"red"}` {
		t.Fatalf("the agent saw %q", got)
	}
}
