package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/agui/verify"
)

// sseServer answers every POST with body as an SSE stream and passes the
// request to inspect.
func sseServer(t *testing.T, body string, inspect func(*http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inspect != nil {
			inspect(r)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func frames(docs ...string) string {
	var b strings.Builder
	for _, d := range docs {
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

func input() *agui.RunAgentInput {
	return &agui.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []agui.Message{
		&agui.UserMessage{ID: "u1", Content: agui.TextContent("hi")},
	}}
}

// collect runs c once and returns the delivered types, the warnings and the
// error.
func collect(t *testing.T, c *client.Client, in *agui.RunAgentInput, opts ...client.RunOption) (types []string, warns []agui.Warning, err error) {
	t.Helper()
	opts = append(opts, client.RunWarnings(func(w agui.Warning) { warns = append(warns, w) }))
	for d, e := range c.Run(context.Background(), in, opts...) {
		ev := d.Event
		if e != nil {
			err = e
			break
		}
		types = append(types, string(ev.Type()))
	}
	return
}

const (
	runStarted  = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	runFinished = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
)

func TestRunRequest(t *testing.T) {
	var got *http.Request
	var body []byte
	srv := sseServer(t, frames(runStarted, runFinished), func(r *http.Request) {
		got = r
		body, _ = io.ReadAll(r.Body)
	})
	c, err := client.New(srv.URL, client.WithHeader("Authorization", "Bearer x"), client.WithHeader("Accept", "*/*"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = collect(t, c, input(), client.RunHeader("X-Trace", "42"))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"Content-Type":  "application/json",
		"Accept":        "text/event-stream", // the client's own; a caller's Accept cannot ask for protobuf
		"Authorization": "Bearer x",
		"X-Trace":       "42",
	} {
		if v := got.Header.Get(k); v != want {
			t.Errorf("header %s = %q, want %q", k, v, want)
		}
	}
	if got.Method != http.MethodPost {
		t.Errorf("method %s", got.Method)
	}
	want := `{"threadId":"t","runId":"r","protocolVersion":"` + agui.ProtocolVersion + `","messages":[{"id":"u1","role":"user","content":"hi"}]}`
	if string(body) != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
}

func TestRunHTTPError(t *testing.T) {
	tests := []struct {
		name, ct, body    string
		status            int
		code, msg, inText string
	}{
		{"json error body", "application/json", `{"error":{"code":"INVALID_INPUT","message":"threadId is missing"}}`, 400, "INVALID_INPUT", "threadId is missing", "INVALID_INPUT: threadId is missing"},
		{"other json", "application/json; charset=utf-8", `{"detail":"bad"}`, 422, "", "", `{"detail":"bad"}`},
		{"text", "text/plain", "gateway down\n", 502, "", "", "gateway down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ct)
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c, _ := client.New(srv.URL)
			types, _, err := collect(t, c, input())
			var he *client.HTTPError
			if !errors.As(err, &he) {
				t.Fatalf("err = %v, want *HTTPError", err)
			}
			if len(types) != 0 || he.Status != tt.status || he.ContentType != tt.ct || he.Code != tt.code || he.Message != tt.msg {
				t.Errorf("got %+v after %v", he, types)
			}
			if !strings.Contains(err.Error(), tt.inText) || !strings.Contains(err.Error(), fmt.Sprint(tt.status)) {
				t.Errorf("error text %q lacks %q", err, tt.inText)
			}
		})
	}
}

func TestRunTruncatedIsAnError(t *testing.T) {
	srv := sseServer(t, frames(runStarted, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`), nil)
	c, _ := client.New(srv.URL)
	types, _, err := collect(t, c, input())
	if !errors.Is(err, verify.ErrTruncated) {
		t.Fatalf("err = %v, want ErrTruncated", err)
	}
	if len(types) != 2 {
		t.Errorf("the events before the break must still be delivered, got %v", types)
	}
}

// An empty 200 answer is accepted, as the reference's verifier accepts an
// empty stream: no event, no error, and a Thread's outcome stays NotStarted
// so that the caller can tell nothing ran (agui run exits 1 on it). This
// is the contract the README states.
func TestRunEmptyAnswer(t *testing.T) {
	srv := sseServer(t, "", nil)
	c, _ := client.New(srv.URL)
	types, _, err := collect(t, c, input())
	if err != nil || len(types) != 0 {
		t.Fatalf("Run: events %v, err %v; want none and no error", types, err)
	}
	th := c.NewThread()
	th.AddUserMessage("hi")
	res, err := th.Run(t.Context(), client.RunParams{})
	if err != nil || res.Outcome.Status != conversation.NotStarted || len(th.Messages()) != 1 {
		t.Fatalf("Thread.Run: %+v, %v, %d messages; want NotStarted, no error, the user's message alone", res, err, len(th.Messages()))
	}
}

func TestRunFrameLimit(t *testing.T) {
	big := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("x", 2000) + `"}`
	srv := sseServer(t, frames(runStarted, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`, big), nil)
	c, _ := client.New(srv.URL, client.WithMaxFrame(1024))
	types, _, err := collect(t, c, input())
	if !errors.Is(err, sse.ErrFrameTooLarge) {
		t.Fatalf("err = %v, want ErrFrameTooLarge", err)
	}
	var se *client.StreamError
	if !errors.As(err, &se) || se.Index != 2 || len(types) != 2 {
		t.Errorf("err %v after %v", err, types)
	}
}

// TestRunCancel cancels the context mid-stream: the loop ends with the
// context's error and the server sees the connection close. A cancel with a
// cause (issue 23) gives an error matching both context.Canceled and the
// cause.
func TestRunCancel(t *testing.T) {
	errStop := errors.New("user pressed stop")
	for _, tc := range []struct {
		name  string
		cause error
	}{
		{"plain", nil},
		{"with a cause", errStop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			closed := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, frames(runStarted, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`))
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				close(closed)
			}))
			defer srv.Close()
			c, _ := client.New(srv.URL)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var err error
			for d, e := range c.Run(ctx, input()) {
				if e != nil {
					err = e
					break
				}
				if d.Event.Type() == agui.EventTypeTextMessageStart {
					cancel(tc.cause)
				}
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Fatalf("err = %v, want it to match the cause %v", err, tc.cause)
			}
			select {
			case <-closed:
			case <-time.After(30 * time.Second): // a hang guard
				t.Fatal("the server never saw the request end")
			}
		})
	}
}

// TestRunBreakAborts stops consuming early: the request is aborted.
func TestRunBreakAborts(t *testing.T) {
	var done atomic.Bool
	closed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, frames(runStarted))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		done.Store(true)
		close(closed)
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL)
	for range c.Run(context.Background(), input()) {
		break
	}
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("breaking out of the loop did not abort the request")
	}
}

func TestRunWarningsAndDrops(t *testing.T) {
	srv := sseServer(t, frames(
		runStarted,
		`{"type":"FUTURE_EVENT","x":1}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","futureProp":true}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		runFinished), nil)
	var global []agui.Warning
	c, _ := client.New(srv.URL, client.WithWarnings(func(w agui.Warning) { global = append(global, w) }))
	types, warns, err := collect(t, c, input())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(types, " "); got != "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_END RUN_FINISHED" {
		t.Errorf("types %s", got)
	}
	if len(warns) != 2 || len(global) != 2 {
		t.Fatalf("warnings %v / %v", warns, global)
	}
	if warns[0].Kind != agui.WarnDropped || warns[0].Index != 1 || !strings.Contains(warns[0].Message, "FUTURE_EVENT") {
		t.Errorf("warning 0: %+v", warns[0])
	}
	if warns[1].Kind != agui.WarnStripped || warns[1].Index != 2 || !strings.Contains(warns[1].Message, "/futureProp") {
		t.Errorf("warning 1: %+v", warns[1])
	}
}

func TestOptionsRejectBadValues(t *testing.T) {
	for _, o := range []client.Option{
		client.WithMaxProtocolVersion("one"),
		client.WithMaxProtocolVersion("1"),
		client.WithMaxFrame(0),
		client.WithHTTPClient(nil),
	} {
		if _, err := client.New("http://x", o); err == nil {
			t.Errorf("option accepted")
		}
	}
}

func TestRunCRLFWarns(t *testing.T) {
	srv := sseServer(t, "data: "+runStarted+"\r\n\r\ndata: "+runFinished+"\r\n\r\n", nil)
	c, _ := client.New(srv.URL)
	types, warns, err := collect(t, c, input())
	if err != nil || len(types) != 2 {
		t.Fatalf("%v %v", types, err)
	}
	if len(warns) != 1 || warns[0].Kind != agui.WarnFraming || warns[0].Index != 0 {
		t.Errorf("warnings %v", warns)
	}
}

// TestReducerWarningsKeepTheirKind: what the conversation cannot apply
// reaches the hooks with the reducer's own kind and the frame's index, on
// the low-level Run with RunConversation and on an Agent alike.
func TestReducerWarningsKeepTheirKind(t *testing.T) {
	badDelta := `{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/missing"}]}`
	srv := sseServer(t, frames(runStarted, badDelta, runFinished), nil)
	c, _ := client.New(srv.URL)
	check := func(name string, warns []agui.Warning) {
		t.Helper()
		if len(warns) != 1 || warns[0].Kind != conversation.StatePatchFailed || warns[0].Index != 1 || warns[0].Offset != -1 {
			t.Errorf("%s: warnings %v", name, warns)
		}
	}

	conv := conversation.New(nil, json.RawMessage(`{}`))
	_, warns, err := collect(t, c, input(), client.RunConversation(conv))
	if err != nil {
		t.Fatal(err)
	}
	check("Run", warns)

	a := c.NewThread(client.WithThreadID("t"), client.WithState(json.RawMessage(`{}`)))
	res, err := a.Run(context.Background(), client.RunParams{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	check("Agent", res.Warnings)
}
