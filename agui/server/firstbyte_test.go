package server_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server"
)

// These tests hold the latency budget at an hour, so that anything the
// handler leaves for the budget's timer does not reach the client within the
// test. What must go out at once then deadlocks the run instead: the agent
// waits for the client to have read it, and gives up after giveUp, which
// fails the test. No test measures how long anything took.

const giveUp = 10 * time.Second

// awaitClient is what an agent does while the client reads: it waits for
// seen, and reports a client that never saw what it was waiting for.
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

// readDataLines posts validBody to url and reads the stream frame by frame,
// calling on with each data line; it returns every data line read.
func readDataLines(t *testing.T, url string, on func(line string)) []string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(validBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data: ") {
			lines = append(lines, line)
			on(line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// RUN_STARTED goes to the socket as soon as it is emitted, although the
// agent goes on emitting (less than any buffer bound) and the latency budget
// is far from over: the agent waits for the client to have read it.
func TestRunStartedGoesOutAtOnce(t *testing.T) {
	seen := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for range 20 { // a busy agent, far below a write's worth
			if err := m.Append("thinking "); err != nil {
				return server.Outcome{}, err
			}
		}
		if err := awaitClient(ctx, seen, "RUN_STARTED"); err != nil {
			return server.Outcome{}, err
		}
		return server.Success(), m.End()
	})
	srv := httptest.NewServer(server.NewHandler(agent, server.WithFlushLatency(time.Hour)))
	defer srv.Close()
	lines := readDataLines(t, srv.URL, func(line string) {
		if strings.Contains(line, `"type":"RUN_STARTED"`) {
			close(seen)
		}
	})
	if last := lines[len(lines)-1]; !strings.Contains(last, `"type":"RUN_FINISHED"`) {
		t.Fatalf("the run ended with %s", last)
	}
}

// The terminal event is on the socket when ServeHTTP returns, not left in a
// buffer for a timer or for net/http's own flush at the end of the request:
// the test's handler does not return until the client has read it.
func TestTerminalEventGoesOutAtOnce(t *testing.T) {
	seen := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say("done")
	})
	h := server.NewHandler(agent, server.WithFlushLatency(time.Hour))
	waited := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		waited <- awaitClient(r.Context(), seen, "RUN_FINISHED before the handler returned")
	}))
	defer srv.Close()
	lines := readDataLines(t, srv.URL, func(line string) {
		if strings.Contains(line, `"type":"RUN_FINISHED"`) {
			close(seen)
		}
	})
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if len(lines) != 5 {
		t.Fatalf("%d frames: %q", len(lines), lines)
	}
}
