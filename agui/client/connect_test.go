package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/internal/tcpcut"
)

type count struct {
	N int `json:"n"`
}

// TestThreadConnect: a second Thread with the first one's id connects and
// holds the same messages, state and pending interrupt; it then follows a
// run that is live when it connects, and a Run after it continues the
// thread on the server.
func TestThreadConnect(t *testing.T) {
	gate := make(chan struct{})
	agent := server.AgentFunc[count](func(ctx context.Context, rc *server.RunContext[count]) (server.Outcome, error) {
		n := rc.State().N + 1
		if err := rc.ChangeState(func(s *count) { s.N = n }); err != nil {
			return server.Outcome{}, err
		}
		switch n {
		case 1:
			return server.Success(), rc.Say("one")
		case 2:
			return server.Interrupted(server.NewInterrupt("approval", "")), nil
		case 3:
			select {
			case <-gate:
			case <-ctx.Done():
				return server.Outcome{}, ctx.Err()
			}
		}
		return server.Success(), rc.Say("more")
	})
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", server.NewHandler[count](agent,
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := client.New(srv.URL + "/agent")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	first := c.NewThread(client.WithThreadID("th"))
	first.AddUserMessage("hi")
	if _, err := first.Run(ctx, client.RunParams{}); err != nil {
		t.Fatal(err)
	}
	first.AddUserMessage("may I?")
	if _, err := first.Run(ctx, client.RunParams{}); err != nil {
		t.Fatal(err)
	}

	second := c.NewThread(client.WithThreadID("th"))
	res, err := second.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	same(t, first, second)
	if res.Outcome.Status != conversation.Interrupted || len(second.Interrupts()) != 1 {
		t.Fatalf("outcome %v, %d interrupts", res.Outcome.Status, len(second.Interrupts()))
	}

	// The first thread answers and runs; the run waits; the second
	// connects meanwhile and follows it to its end.
	if err := first.Resolve(first.Interrupts()[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := first.Run(ctx, client.RunParams{RunID: "live"}); done <- err }()
	deadline := time.Now().Add(10 * time.Second)
	for !live(t, srv.URL, "live") {
		if time.Now().After(deadline) {
			t.Fatal("the run never went live")
		}
		time.Sleep(5 * time.Millisecond)
	}
	third := c.NewThread(client.WithThreadID("th"))
	connected := make(chan *client.Result, 1)
	go func() {
		r, err := third.Connect(ctx)
		if err != nil {
			t.Error(err)
		}
		connected <- r
	}()
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r := <-connected
	if r == nil || r.Outcome.RunID != "live" || r.Outcome.Status != conversation.Succeeded {
		t.Fatalf("connect ended with %+v", r)
	}
	same(t, first, third)

	// A Run after Connect continues the thread.
	third.AddUserMessage("and now?")
	if _, err := third.Run(ctx, client.RunParams{}); err != nil {
		t.Fatal(err)
	}
	if string(third.State()) != `{"n":4}` {
		t.Fatalf("state %s", third.State())
	}
}

// live reports whether run is thread th's live run, from the thread route.
func live(t *testing.T, base, run string) bool {
	t.Helper()
	resp, err := http.Get(base + "/agent/threads/th")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		LiveRunID string `json:"liveRunId"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.LiveRunID == run
}

func same(t *testing.T, want, got *client.Thread) {
	t.Helper()
	enc := func(msgs []agui.Message) []string {
		out := make([]string, len(msgs))
		for i, m := range msgs {
			b, _ := m.AppendJSON(nil)
			out[i] = string(b)
		}
		return out
	}
	if w, g := enc(want.Messages()), enc(got.Messages()); !reflect.DeepEqual(w, g) {
		t.Fatalf("messages\n got  %q\n want %q", g, w)
	}
	if string(want.State()) != string(got.State()) {
		t.Fatalf("state %s, want %s", got.State(), want.State())
	}
}

// TestThreadConnectRefused: an unknown thread is an *HTTPError 404; a
// thread without an id cannot connect.
func TestThreadConnectRefused(t *testing.T) {
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", server.NewHandler(waiting(),
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, _ := client.New(srv.URL + "/agent")
	_, err := c.NewThread(client.WithThreadID("nope")).Connect(context.Background())
	var he *client.HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusNotFound {
		t.Fatalf("got %v, want a 404", err)
	}
	if _, err := c.NewThread().Connect(context.Background()); !errors.Is(err, client.ErrNoThreadID) {
		t.Fatalf("got %v, want ErrNoThreadID", err)
	}
}

// TestThreadConnectReattaches: a connect stream cut mid-way through the
// live run (a TCP reset, 4 KiB in) is opened again after the last event
// read, and the thread ends as the thread that ran it: every delta once.
func TestThreadConnectReattaches(t *testing.T) {
	gate := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if rc.Input().RunID != "live" {
			return server.Success(), rc.Say("history")
		}
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for i := range 300 {
			if i == 150 { // about 12 KiB sent: the cut falls before
				select {
				case <-gate:
				case <-ctx.Done():
					return server.Outcome{}, ctx.Err()
				}
			}
			if err := m.Append(fmt.Sprintf("word %d ", i)); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), m.End()
	})
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", server.NewHandler(agent,
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()
	c, err := client.New(srv.URL + "/agent")
	if err != nil {
		t.Fatal(err)
	}
	first := c.NewThread(client.WithThreadID("th"))
	first.AddUserMessage("hi")
	if _, err := first.Run(ctx, client.RunParams{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := first.Run(ctx, client.RunParams{RunID: "live"}); done <- err }()
	deadline := time.Now().Add(10 * time.Second)
	for !live(t, srv.URL, "live") {
		if time.Now().After(deadline) {
			close(gate)
			t.Fatal("the run never went live")
		}
		time.Sleep(5 * time.Millisecond)
	}

	proxy := tcpcut.New(t, 4<<10, srv.Listener.Addr().String())
	pc, err := client.New(proxy.URL() + "/agent")
	if err != nil {
		t.Fatal(err)
	}
	second := pc.NewThread(client.WithThreadID("th"))
	connected := make(chan error, 1)
	var res *client.Result
	go func() {
		var err error
		res, err = second.Connect(ctx)
		connected <- err
	}()
	for proxy.Cuts() == 0 {
		select {
		case err := <-connected:
			close(gate)
			t.Fatalf("connect ended before the cut: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-connected; err != nil {
		t.Fatalf("connect after the cut: %v", err)
	}
	if res.Outcome.RunID != "live" || res.Outcome.Status != conversation.Succeeded {
		t.Fatalf("connect ended with %+v", res.Outcome)
	}
	same(t, first, second)
}
