package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// runOnce runs in against url with the Go client and returns the events,
// the text they streamed and the run's end.
func runOnce(t *testing.T, url string, in *agui.RunAgentInput) ([]agui.Event, string, *agui.RunFinished) {
	t.Helper()
	c, err := client.New(url)
	if err != nil {
		t.Fatal(err)
	}
	var evs []agui.Event
	var text strings.Builder
	for d, err := range c.Run(t.Context(), in) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, d.Event)
		if d, ok := d.Event.(*agui.TextMessageContent); ok {
			text.WriteString(d.Delta)
		}
	}
	fin, ok := evs[len(evs)-1].(*agui.RunFinished)
	if !ok {
		t.Fatalf("the run ended with %+v", evs[len(evs)-1])
	}
	return evs, text.String(), fin
}

// The example does the whole task: state, a tool call with its result,
// streamed text, an interrupt and the run that resumes it.
func TestServeExample(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	user := &agui.UserMessage{ID: "u1", Content: agui.TextContent("Paris")}
	evs, text, fin := runOnce(t, srv.URL, &agui.RunAgentInput{ThreadID: "t", RunID: "r1", Messages: []agui.Message{user}})

	var state, toolResult string
	var deltas int
	for _, ev := range evs {
		switch e := ev.(type) { //agui:nonexhaustive the test looks for three kinds of event
		case *agui.StateSnapshot:
			state = string(e.Snapshot)
		case *agui.ToolCallResult:
			toolResult = e.Content.String()
		case *agui.TextMessageContent:
			deltas++
		}
	}
	if state != `{"city":"Paris","booked":false}` || toolResult != `{"highC":24,"sky":"sunny"}` {
		t.Fatalf("state %s, tool result %s", state, toolResult)
	}
	if text != "It is sunny in Paris. Shall I book it?" || deltas < 2 {
		t.Fatalf("text %q in %d deltas, want it streamed", text, deltas)
	}
	out, ok := fin.Outcome.(*agui.RunFinishedInterruptOutcome)
	if !ok || len(out.Interrupts) != 1 || out.Interrupts[0].Reason != "approval" {
		t.Fatalf("outcome %+v, want one approval interrupt", fin.Outcome)
	}

	evs, text, fin = runOnce(t, srv.URL, &agui.RunAgentInput{ThreadID: "t", RunID: "r2", Messages: []agui.Message{user},
		State:  json.RawMessage(state),
		Resume: []agui.ResumeEntry{{InterruptID: out.Interrupts[0].ID, Status: agui.ResumeStatusResolved}}})
	var change string // the state's change, as a snapshot or a patch: whichever is smaller
	for _, ev := range evs {
		switch e := ev.(type) { //agui:nonexhaustive only the state's change matters here
		case *agui.StateSnapshot:
			change = string(e.Snapshot)
		case *agui.StateDelta:
			b, _ := json.Marshal(e.Delta)
			change = string(b)
		}
	}
	if text != "Booked." || (change != `{"city":"Paris","booked":true}` && !strings.Contains(change, `"/booked"`)) {
		t.Fatalf("resumed run: text %q, state change %s", text, change)
	}
	if _, ok := fin.Outcome.(*agui.RunFinishedSuccessOutcome); fin.Outcome != nil && !ok {
		t.Fatalf("resumed run's outcome %+v", fin.Outcome)
	}
}

// A browser front end on the allowed origin passes the preflight.
func TestServeExampleCORS(t *testing.T) {
	req := httptest.NewRequest(http.MethodOptions, "/", nil)
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Access-Control-Request-Method", "POST")
	w := httptest.NewRecorder()
	handler().ServeHTTP(w, req)
	if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
		t.Fatalf("preflight: %d %v", w.Code, w.Header())
	}
}

// SIGTERM stops the server cleanly: serve returns nil and nothing listens.
func TestServeExampleDrainsOnSIGTERM(t *testing.T) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln) }()
	runOnce(t, "http://"+ln.Addr().String(), &agui.RunAgentInput{ThreadID: "t", RunID: "r1",
		Messages: []agui.Message{&agui.UserMessage{ID: "u1", Content: agui.TextContent("Oslo")}}})
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("serve after SIGTERM: %v", err)
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Fatal("still listening after SIGTERM")
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Logf("dial after shutdown: %v", err)
	}
}
