package demo_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/verify"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func userInput(text string) *agui.RunAgentInput {
	return &agui.RunAgentInput{
		ThreadID: "thread", RunID: "run-" + text,
		State:    json.RawMessage(`{}`),
		Messages: []agui.Message{&agui.UserMessage{ID: "u1", Content: agui.TextContent(text)}},
	}
}

func collect(t *testing.T, in *agui.RunAgentInput) []agui.Event {
	t.Helper()
	var evs []agui.Event
	var client verify.Client
	for ev, err := range server.Run(context.Background(), demo.NewAgent(demo.Config{SlowDelay: time.Millisecond, SlowWords: 5}), in) {
		if err != nil {
			t.Fatal(err)
		}
		if err := client.Observe(ev); err != nil {
			t.Fatalf("client profile rejects the demo's stream: %v", err)
		}
		evs = append(evs, ev)
	}
	if err := client.Finish(); err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestScenarios(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		last       agui.EventType
		code       string
		outcome    string
	}{
		{name: "tour", text: "hello", last: agui.EventTypeRunFinished, outcome: "success"},
		{name: "interrupt", text: "please interrupt", last: agui.EventTypeRunFinished, outcome: "interrupt"},
		{name: "fail", text: "fail now", last: agui.EventTypeRunError, code: "AGENT_ERROR"},
		{name: "slow", text: "go slow", last: agui.EventTypeRunFinished, outcome: "success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := collect(t, userInput(tc.text))
			seen := map[agui.EventType]int{}
			for _, ev := range evs {
				seen[ev.Type()]++
			}
			last := evs[len(evs)-1]
			if last.Type() != tc.last {
				t.Fatalf("last event %s, want %s", last.Type(), tc.last)
			}
			if ev, ok := last.(*agui.RunError); ok {
				if ev.Code == nil || *ev.Code != tc.code {
					t.Errorf("code %v, want %s", ev.Code, tc.code)
				}
			}
			if ev, ok := last.(*agui.RunFinished); ok {
				b, _ := ev.AppendJSON(nil)
				var fin struct {
					Outcome struct{ Type string } `json:"outcome"`
				}
				_ = json.Unmarshal(b, &fin)
				if fin.Outcome.Type != tc.outcome {
					t.Errorf("outcome %s, want %s (%s)", fin.Outcome.Type, tc.outcome, b)
				}
			}
			if tc.name == "tour" {
				for _, want := range []agui.EventType{
					agui.EventTypeStepStarted, agui.EventTypeReasoningStart, agui.EventTypeReasoningMessageContent,
					agui.EventTypeReasoningEncryptedValue, agui.EventTypeTextMessageContent, agui.EventTypeToolCallArgs,
					agui.EventTypeToolCallResult, agui.EventTypeStateSnapshot, agui.EventTypeStateDelta,
					agui.EventTypeActivitySnapshot, agui.EventTypeActivityDelta, agui.EventTypeSubagentStarted,
					agui.EventTypeSubagentFinished,
				} {
					if seen[want] == 0 {
						t.Errorf("the tour emits no %s", want)
					}
				}
			}
		})
	}
}

// TestSlowIsCancellable: cancelling a slow run stops it at the next word.
// It counts words, not time: a run that went on after the cancel (to its
// thousandth word, ten seconds on) shows as words however fast the machine.
func TestSlowIsCancellable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	agent := demo.NewAgent(demo.Config{SlowDelay: 10 * time.Millisecond, SlowWords: 1000})
	var last agui.Event
	n := 0
	for ev := range server.Run(ctx, agent, userInput("slow")) {
		if ev.Type() == agui.EventTypeTextMessageContent {
			if n++; n == 3 {
				cancel()
			}
		}
		last = ev
	}
	if e, ok := last.(*agui.RunError); !ok || *e.Code != "CANCELLED" {
		t.Fatalf("last event %#v, want RUN_ERROR CANCELLED", last)
	}
	// The agent may have passed its pause before it saw the cancel: then
	// it says one word more.
	if n > 4 {
		t.Fatalf("the run said %d words, %d after it was cancelled", n, n-3)
	}
}

// TestExercise runs every scenario of Exercise against the demo over HTTP.
func TestExercise(t *testing.T) {
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close()
	var out strings.Builder
	if err := demo.Exercise(t.Context(), srv.URL, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"RUN_FINISHED outcome interrupt", "RUN_ERROR agent error: the demo was asked to fail", "hung up mid-stream"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
