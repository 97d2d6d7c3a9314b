package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
)

// binding is one way a client asks to be answered: the options it is made
// with, and the Content-Type the demo server must answer with.
type binding struct {
	name string
	opts []client.Option
	want string
}

var bindings = []binding{
	{"sse", nil, "text/event-stream"},
	{"protobuf", []client.Option{client.WithProtobuf()}, "application/vnd.ag-ui.event+proto"},
}

// eachBinding runs test once per binding, as a subtest.
func eachBinding(t *testing.T, test func(*testing.T, binding)) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// demoAgent serves the demo agent over loopback HTTP, and fails the test if
// a response is not in b's binding. The counters it returns follow the slow
// answer's words as the server writes them.
func demoAgent(t *testing.T, b binding, cfg demo.Config) (url string, words *wordCounter) {
	t.Helper()
	inner := demo.NewAgent(cfg)
	words = &wordCounter{cancelled: make(chan int64, 8)}
	agent := server.AgentFunc[demo.State](func(ctx context.Context, rc *server.RunContext[demo.State]) (server.Outcome, error) {
		stop := context.AfterFunc(ctx, func() { words.cancelled <- words.written.Load() })
		defer stop()
		return inner.Run(ctx, rc)
	})
	h := server.NewHandler(agent)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(wordWriter{w, words}, r)
		if ct := w.Header().Get("Content-Type"); ct != b.want {
			t.Errorf("the server answered %q, want %q", ct, b.want)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, words
}

// wordCounter follows the demo's slow answer ("word1 word2 …") on the
// server's side: written is the highest word the server has written to a
// response so far, and cancelled receives what written was when the agent's
// context was cancelled, once per cancelled run.
type wordCounter struct {
	written   atomic.Int64
	cancelled chan int64
}

// wordWriter notes the words of what the server writes (in either binding:
// a delta's text is in the protobuf frame as it is) in its counter.
type wordWriter struct {
	http.ResponseWriter
	words *wordCounter
}

func (w wordWriter) Write(p []byte) (int, error) {
	for rest := p; ; {
		i := bytes.Index(rest, []byte("word"))
		if i < 0 {
			break
		}
		rest = rest[i+4:]
		n := int64(0)
		for len(rest) > 0 && '0' <= rest[0] && rest[0] <= '9' {
			n = n*10 + int64(rest[0]-'0')
			rest = rest[1:]
		}
		if n > w.words.written.Load() {
			w.words.written.Store(n) // a response's writes do not overlap
		}
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets the handler's http.ResponseController reach the real writer.
func (w wordWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func userSays(text string) client.ThreadOption {
	return client.WithMessages(&agui.UserMessage{ID: agui.NewID(), Content: agui.TextContent(text)})
}

// TestDemoTour runs the demo's full tour: every kind of entity, a state
// snapshot then a delta, a subagent; the conversation ends with the
// assistant's answer, the tool result after its call, and the state.
func TestDemoTour(t *testing.T) { eachBinding(t, testDemoTour) }

func testDemoTour(t *testing.T, b binding) {
	url, _ := demoAgent(t, b, demo.Config{})
	c, _ := client.New(url, b.opts...)
	a := c.NewThread(userSays("What is the weather in Paris?"))
	var types []string
	a.Subscribe(func(d client.Delivery) { types = append(types, string(d.Event.Type())) })
	res, err := a.Run(context.Background(), client.RunParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.Status != conversation.Succeeded || len(res.Warnings) != 0 {
		t.Fatalf("outcome %v, warnings %v", res.Outcome.Status, res.Warnings)
	}
	for _, want := range []string{"REASONING_MESSAGE_CONTENT", "TOOL_CALL_ARGS", "TOOL_CALL_RESULT", "STATE_SNAPSHOT", "STATE_DELTA", "ACTIVITY_DELTA", "SUBAGENT_STARTED"} {
		if !strings.Contains(strings.Join(types, " "), want) {
			t.Errorf("no %s delivered", want)
		}
	}
	var st demo.State
	if err := json.Unmarshal(res.State, &st); err != nil || st.Forecast == nil || st.Forecast.City != "Paris" {
		t.Errorf("state %s (%v)", res.State, err)
	}
	roles := ""
	for _, m := range a.Messages() {
		b, _ := json.Marshal(m)
		var v struct{ Role string }
		json.Unmarshal(b, &v)
		roles += v.Role + " "
	}
	// user, reasoning, assistant (text + the call), tool (its result right
	// after), activity, the subagent's assistant message, the final answer.
	if want := "user reasoning assistant tool activity assistant assistant "; roles != want {
		t.Errorf("roles %q, want %q", roles, want)
	}
	if len(res.NewMessages) != len(a.Messages())-1 {
		t.Errorf("%d new messages of %d", len(res.NewMessages), len(a.Messages()))
	}
}

// TestDemoInterruptResume: the run ends interrupted; a resume that does not
// cover the interrupt is refused locally; one that does finishes the thread.
func TestDemoInterruptResume(t *testing.T) { eachBinding(t, testDemoInterruptResume) }

func testDemoInterruptResume(t *testing.T, b binding) {
	url, _ := demoAgent(t, b, demo.Config{})
	c, _ := client.New(url, b.opts...)
	a := c.NewThread(userSays("Book a table, but interrupt for approval."))
	res, err := a.Run(context.Background(), client.RunParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.Status != conversation.Interrupted || len(a.Interrupts()) != 1 {
		t.Fatalf("outcome %v, interrupts %v", res.Outcome.Status, a.Interrupts())
	}
	thread := a.ThreadID()
	if _, err := a.Run(context.Background(), client.RunParams{}); !errors.Is(err, conversation.ErrResume) {
		t.Fatalf("a run ignoring the interrupt: err = %v, want ErrResume", err)
	}
	stale := []agui.ResumeEntry{{InterruptID: "not-pending", Status: agui.ResumeStatusResolved}}
	if _, err := a.Run(context.Background(), client.RunParams{Resume: stale}); !errors.Is(err, conversation.ErrResume) {
		t.Fatalf("a stale resume: err = %v, want ErrResume", err)
	}
	resume := []agui.ResumeEntry{{InterruptID: a.Interrupts()[0].ID, Status: agui.ResumeStatusResolved, Payload: json.RawMessage(`{"approved":true}`)}}
	res, err = a.Run(context.Background(), client.RunParams{Resume: resume})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.Status != conversation.Succeeded || len(a.Interrupts()) != 0 || a.ThreadID() != thread {
		t.Fatalf("after resume: %v, %v, thread %s→%s", res.Outcome.Status, a.Interrupts(), thread, a.ThreadID())
	}
	if len(res.Input.Resume) != 1 || !strings.Contains(string(res.State), `"approved":true`) {
		t.Errorf("input resume %v, state %s", res.Input.Resume, res.State)
	}
	last := res.NewMessages[len(res.NewMessages)-1].(*agui.AssistantMessage)
	if last.Content == nil || !strings.Contains(*last.Content, "Booked") {
		t.Errorf("last message %v", last.Content)
	}
}

// TestDemoFailure: the agent's RUN_ERROR is an outcome, not an error.
func TestDemoFailure(t *testing.T) { eachBinding(t, testDemoFailure) }

func testDemoFailure(t *testing.T, b binding) {
	url, _ := demoAgent(t, b, demo.Config{})
	c, _ := client.New(url, b.opts...)
	a := c.NewThread(userSays("please fail"))
	res, err := a.Run(context.Background(), client.RunParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.Status != conversation.Failed || res.Outcome.Error == nil || !strings.Contains(res.Outcome.Error.Message, "asked to fail") {
		t.Fatalf("outcome %+v", res.Outcome)
	}
	if len(res.NewMessages) != 1 {
		t.Errorf("the words said before failing are kept: %d new messages", len(res.NewMessages))
	}
}

// TestDemoAbort cancels a slow run after its first words: Run returns the
// cancellation, and the agent's context is cancelled promptly: within five
// of its words (100ms at its pace). Counting the words the server wrote
// between the client's cancel and the agent's, rather than the time, keeps
// the bound when the machine is loaded: a stalled process writes no words
// either, while an agent that went on until its run ended (or until a write
// failed a while later) does.
func TestDemoAbort(t *testing.T) { eachBinding(t, testDemoAbort) }

func testDemoAbort(t *testing.T, b binding) {
	url, words := demoAgent(t, b, demo.Config{SlowDelay: 20 * time.Millisecond, SlowWords: 500})
	c, _ := client.New(url, b.opts...)
	a := c.NewThread(userSays("go slow"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var at int64
	contents := 0
	a.Subscribe(func(d client.Delivery) {
		ev := d.Event
		if ev.Type() == agui.EventTypeTextMessageContent {
			if contents++; contents == 3 {
				at = words.written.Load()
				cancel()
			}
		}
	})
	res, err := a.Run(ctx, client.RunParams{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || res.Outcome.Status != conversation.Running || contents < 3 {
		t.Fatalf("result %+v after %d deltas", res, contents)
	}
	select {
	case seen := <-words.cancelled:
		if d := seen - at; d > 5 {
			t.Errorf("the agent saw the cancellation %d words after the client cancelled (at word %d), want ≤ 5", d, at)
		} else {
			t.Logf("the agent saw the cancellation %d words after the client cancelled", d)
		}
	case <-time.After(30 * time.Second): // a hang guard: the run lasts 10s
		t.Fatal("the agent never saw the cancellation")
	}
}

// TestThreadReadsDuringRun reads the conversation from another goroutine
// while a run streams into it, and unsubscribes midway (run with -race).
func TestThreadReadsDuringRun(t *testing.T) { eachBinding(t, testThreadReadsDuringRun) }

func testThreadReadsDuringRun(t *testing.T, b binding) {
	url, _ := demoAgent(t, b, demo.Config{SlowDelay: time.Millisecond, SlowWords: 200})
	c, _ := client.New(url, b.opts...)
	a := c.NewThread(userSays("slow please"))
	seen := 0
	var unsubscribe func()
	unsubscribe = a.Subscribe(func(client.Delivery) {
		if seen++; seen == 50 {
			unsubscribe()
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			_ = a.Messages()
			_ = a.State()
			_ = a.ThreadID()
			time.Sleep(100 * time.Microsecond)
		}
	}()
	res, err := a.Run(context.Background(), client.RunParams{})
	<-done
	if err != nil || res.Outcome.Status != conversation.Succeeded {
		t.Fatalf("%v %v", res.Outcome.Status, err)
	}
	if seen != 50 {
		t.Errorf("the subscriber saw %d events after unsubscribing at 50", seen)
	}
	last := a.Messages()[len(a.Messages())-1].(*agui.AssistantMessage)
	if !strings.HasSuffix(*last.Content, "word200 ") {
		t.Errorf("the answer is incomplete: …%s", (*last.Content)[max(0, len(*last.Content)-20):])
	}
}
