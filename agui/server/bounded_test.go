package server_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/internal/testlog"
)

// readStream posts body to a live server over loopback and reads the whole
// stream with the SDK's own SSE reader at its default frame limit, failing the
// test on any frame it refuses.
func readStream(t *testing.T, h http.Handler, body string) []agui.Event {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var evs []agui.Event
	for data, err := range sse.Frames(resp.Body) {
		if err != nil {
			t.Fatalf("after %d events, our own reader refused the stream: %v", len(evs), err)
		}
		ev, err := agui.DecodeEvent(data)
		if err != nil {
			t.Fatalf("event %d: %v", len(evs), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// terminal returns the stream's last event as a RUN_ERROR, or fails.
func runError(t *testing.T, evs []agui.Event) *agui.RunError {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("empty stream")
	}
	re, ok := evs[len(evs)-1].(*agui.RunError)
	if !ok {
		t.Fatalf("last event is %s, want RUN_ERROR", evs[len(evs)-1].Type())
	}
	return re
}

// WithInputEcho on a body at the size limit must not produce a RUN_STARTED
// that our own reader refuses: the echo is dropped, the run goes on. A small
// body is still echoed.
func TestInputEchoStaysUnderFrameLimit(t *testing.T) {
	const limit = 10 << 20 // the default body limit, equal to the frame limit
	head := `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"`
	tail := `"}]}`
	big := head + strings.Repeat("x", limit-len(head)-len(tail)) + tail
	if len(big) != limit {
		t.Fatalf("body is %d bytes", len(big))
	}
	for _, tc := range []struct {
		name string
		body string
		echo bool
	}{{"at the limit", big, false}, {"small", validBody, true}} {
		t.Run(tc.name, func(t *testing.T) {
			evs := readStream(t, server.NewHandler(hello(), server.WithInputEcho()), tc.body)
			rs, ok := evs[0].(*agui.RunStarted)
			if !ok {
				t.Fatalf("first event %s", evs[0].Type())
			}
			if got := rs.Input != nil; got != tc.echo {
				t.Fatalf("echoed: %v, want %v", got, tc.echo)
			}
			if _, ok := evs[len(evs)-1].(*agui.RunFinished); !ok {
				t.Fatalf("last event %s, want RUN_FINISHED", evs[len(evs)-1].Type())
			}
		})
	}
}

// An event larger than the frame limit is not sent: the emit fails with
// SERIALIZATION wrapping ErrEventTooLarge, the stream stays readable to its
// end, and that first failure is what the run reports, whatever the agent
// returns after it. An agent error with a huge message is cut to fit.
func TestNothingSentOverFrameLimit(t *testing.T) {
	huge := strings.Repeat("y", agui.DefaultMaxFrame)
	var emitErr error
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		emitErr = rc.Say(huge)
		return server.Outcome{}, server.AgentError(errors.New("something else"))
	})
	evs := readStream(t, server.NewHandler(agent, server.WithLogger(testlog.New(t))), validBody)
	if !errors.Is(emitErr, server.ErrEventTooLarge) || server.CodeOf(emitErr) != agui.CodeSerialization {
		t.Fatalf("emit error %v, want SERIALIZATION wrapping ErrEventTooLarge", emitErr)
	}
	if re := runError(t, evs); re.Code == nil || *re.Code != string(agui.CodeSerialization) || !strings.Contains(re.Message, "larger than the stream's frame limit") {
		t.Fatalf("RUN_ERROR %+v, want the oversized emit's SERIALIZATION", re)
	}

	agent = server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Outcome{}, server.AgentError(errors.New(huge))
	})
	evs = readStream(t, server.NewHandler(agent, server.WithLogger(testlog.New(t))), validBody)
	re := runError(t, evs)
	if len(re.Message) > 32<<10 || !strings.HasPrefix(re.Message, "agent error: yyy") || !strings.HasSuffix(re.Message, "more bytes)") {
		t.Fatalf("message is %d bytes, ends %q", len(re.Message), re.Message[max(0, len(re.Message)-40):])
	}
}
