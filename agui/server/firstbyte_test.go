package server_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/agui/server"
)

// These tests hold the latency budget at an hour, so that anything the
// handler leaves for the budget's timer does not reach the client within the
// test. What must go out at once then deadlocks the run instead: the agent
// (or the test's handler) waits for the client to have read it, and gives up
// after giveUp, which fails the test. No test measures how long anything
// took.

const giveUp = 10 * time.Second

// awaitClient waits for seen, and reports a client that never saw what it
// was waiting for.
func awaitClient(ctx context.Context, seen <-chan struct{}, what string) error {
	select {
	case <-seen:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(giveUp):
		return errors.New("the client never read " + what)
	}
}

// bindings are the two encodings a stream can have, by Accept header.
var bindings = []struct{ name, accept string }{
	{"SSE", server.MediaTypeSSE},
	{"protobuf", server.MediaTypeProtobuf},
}

// readEvents posts validBody to url and reads the stream event by event in
// the binding accept names, calling on with each as it arrives; it returns
// the types of all of them.
func readEvents(t *testing.T, url, accept string, on func(agui.EventType)) []agui.EventType {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(validBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var types []agui.EventType
	got := func(ev agui.Event, err error) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type())
		on(ev.Type())
	}
	if accept == server.MediaTypeProtobuf {
		for msg, err := range protoframe.Frames(resp.Body) {
			if err != nil {
				t.Fatal(err)
			}
			got(agui.DecodeEventProto(msg))
		}
		return types
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			got(agui.DecodeEvent([]byte(data)))
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return types
}

// RUN_STARTED goes to the socket as soon as it is emitted, although the
// agent goes on emitting (less than any buffer bound): the agent waits for
// the client to have read it.
func TestRunStartedGoesOutAtOnce(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			seen := make(chan struct{})
			agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
				m, err := rc.StartTextMessage()
				if err != nil {
					return server.Outcome{}, err
				}
				for range 20 { // a busy agent, far below a batch's worth
					if err := m.Append("thinking "); err != nil {
						return server.Outcome{}, err
					}
				}
				if err := awaitClient(ctx, seen, "RUN_STARTED"); err != nil {
					return server.Outcome{}, err
				}
				return server.Success(), m.End()
			})
			srv := httptest.NewServer(server.NewHandler(agent))
			defer srv.Close()
			types := readEvents(t, srv.URL, b.accept, func(typ agui.EventType) {
				if typ == agui.EventTypeRunStarted {
					close(seen)
				}
			})
			if last := types[len(types)-1]; last != agui.EventTypeRunFinished {
				t.Fatalf("the run ended with %s (events %v)", last, types)
			}
		})
	}
}

// The terminal event is on the socket when ServeHTTP returns, not left in a
// buffer for a timer or for net/http's own flush at the end of the request:
// the test's handler does not return until the client has read it.
func TestTerminalEventGoesOutAtOnce(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			seen := make(chan struct{})
			agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
				return server.Success(), rc.Say("done")
			})
			h := server.NewHandler(agent)
			waited := make(chan error, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r)
				waited <- awaitClient(r.Context(), seen, "RUN_FINISHED before the handler returned")
			}))
			defer srv.Close()
			types := readEvents(t, srv.URL, b.accept, func(typ agui.EventType) {
				if typ == agui.EventTypeRunFinished {
					close(seen)
				}
			})
			if err := <-waited; err != nil {
				t.Fatal(err)
			}
			if len(types) != 5 {
				t.Fatalf("events %v", types)
			}
		})
	}
}
