package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/verify"
	"github.com/agui-go/sdk/internal/tcpcut"
)

// chatty streams a text message of many deltas.
func chatty(n int) server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage(server.WithID("m"))
		if err != nil {
			return server.Outcome{}, err
		}
		for i := range n {
			if err := m.Append(fmt.Sprintf("delta %d ", i)); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), m.End()
	})
}

// durableMux serves agent with durable runs; detach is their
// DurableConfig.Detach (0: none).
func durableMux(agent server.Agent[server.NoState], detach time.Duration) http.Handler {
	h := server.NewHandler(agent, server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: detach}))
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", h)
	return mux
}

// runAll runs in through c and returns each event's JSON.
func runAll(t *testing.T, c *client.Client, in *agui.RunAgentInput) []string {
	t.Helper()
	var out []string
	for d, err := range c.Run(context.Background(), in) {
		ev := d.Event
		if err != nil {
			t.Fatal(err)
		}
		data, err := ev.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(data))
	}
	return out
}

// A proxy drops the TCP connection mid-run; the client reattaches with
// Last-Event-ID and the stream it delivers equals an uncut run, which the
// server verifier accepts.
func TestResumeAfterDroppedConnection(t *testing.T) {
	agent := chatty(300)
	srv := httptest.NewServer(durableMux(agent, time.Minute))
	defer srv.Close()
	proxy := tcpcut.New(t, 4<<10, srv.Listener.Addr().String())
	c, err := client.New(proxy.URL() + "/agent")
	if err != nil {
		t.Fatal(err)
	}
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r1"}
	got := runAll(t, c, in)
	if proxy.Cuts() != 1 {
		t.Fatal("the proxy did not cut the connection")
	}

	plain := httptest.NewServer(server.NewHandler(agent))
	defer plain.Close()
	pc, _ := client.New(plain.URL)
	want := runAll(t, pc, in)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the resumed stream (%d events) differs from an uncut run (%d events)", len(got), len(want))
	}
	docs := make([][]byte, len(got))
	for i, s := range got {
		docs[i] = []byte(s)
	}
	if rep := verify.Check(verify.ServerProfile, docs); !rep.OK() {
		t.Fatalf("the verifier rejects the resumed stream at %d: %v", rep.Index, rep.Err)
	}
}

// Without durable runs nothing is resumed: a cut stream is an error.
func TestNoResumeWithoutIDs(t *testing.T) {
	srv := httptest.NewServer(server.NewHandler(chatty(300)))
	defer srv.Close()
	proxy := tcpcut.New(t, 4<<10, srv.Listener.Addr().String())
	c, _ := client.New(proxy.URL() + "/agent")
	var last error
	for _, err := range c.Run(context.Background(), &agui.RunAgentInput{ThreadID: "t", RunID: "r1"}) {
		last = err
	}
	if last == nil {
		t.Fatal("a cut stream without ids ended without an error")
	}
}

func TestClientCancel(t *testing.T) {
	started := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		close(started)
		<-ctx.Done()
		return server.Outcome{}, ctx.Err()
	})
	srv := httptest.NewServer(durableMux(agent, 0))
	defer srv.Close()
	c, _ := client.New(srv.URL + "/agent")
	done := make(chan []string)
	go func() { done <- runAll(t, c, &agui.RunAgentInput{ThreadID: "t", RunID: "r1"}) }()
	<-started
	if err := c.Cancel(context.Background(), "r1"); err != nil {
		t.Fatal(err)
	}
	events := <-done
	if last := events[len(events)-1]; !strings.Contains(last, `"outcome":{"type":"cancelled"}`) {
		t.Fatalf("last event %s", last)
	}
	var herr *client.HTTPError
	if err := c.Cancel(context.Background(), "r1"); !errors.As(err, &herr) || herr.Status != http.StatusConflict {
		t.Fatalf("cancel of an ended run: %v", err)
	}
}

// Resume reads a run after a given event, and the error of a run the
// server does not know is an *HTTPError 404.
func TestClientResume(t *testing.T) {
	srv := httptest.NewServer(durableMux(chatty(10), 0))
	defer srv.Close()
	c, _ := client.New(srv.URL + "/agent")
	all := runAll(t, c, &agui.RunAgentInput{ThreadID: "t", RunID: "r1"})
	for _, after := range []uint64{0, 3, uint64(len(all))} {
		var got []string
		for d, err := range c.Resume(context.Background(), "r1", client.Position{Seq: after}) {
			ev := d.Event
			if err != nil {
				t.Fatal(err)
			}
			data, _ := ev.AppendJSON(nil)
			got = append(got, string(data))
		}
		if strings.Join(got, "\n") != strings.Join(all[after:], "\n") {
			t.Fatalf("after %d: %v", after, got)
		}
	}
	// A cursor past the run's last event is an error, not an empty run.
	var n int
	var last error
	for d, err := range c.Resume(context.Background(), "r1", client.Position{Seq: uint64(len(all) + 5)}) {
		ev := d.Event
		if ev != nil {
			n++
		}
		last = err
	}
	if n != 0 || !errors.Is(last, client.ErrCursorPastEnd) {
		t.Fatalf("resume after %d of %d events: %d events, error %v", len(all)+5, len(all), n, last)
	}
	var herr *client.HTTPError
	for _, err := range c.Resume(context.Background(), "nope", client.Position{}) {
		if !errors.As(err, &herr) || herr.Status != http.StatusNotFound {
			t.Fatalf("unknown run: %v", err)
		}
	}
}

// refusingGets answers the first refuse GETs of a run's events with status
// and Retry-After retry (when not empty), recording when each GET came, and
// hands everything else to h.
type refusingGets struct {
	h      http.Handler
	refuse int
	status int
	retry  string

	mu   sync.Mutex
	gets []time.Time
}

func (s *refusingGets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/events") {
		s.mu.Lock()
		s.gets = append(s.gets, time.Now())
		n := len(s.gets)
		s.mu.Unlock()
		if n <= s.refuse {
			if s.retry != "" {
				w.Header().Set("Retry-After", s.retry)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(s.status)
			fmt.Fprintf(w, `{"error":{"code":"REFUSED","message":"refused %d"}}`, n)
			return
		}
	}
	s.h.ServeHTTP(w, r)
}

func (s *refusingGets) times() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.gets)
}

// A reattach refused with 503 and Retry-After waits that long before asking
// again (not the 50ms backoff), then delivers the whole run.
func TestResumeHonoursRetryAfter(t *testing.T) {
	agent := chatty(300)
	gate := &refusingGets{h: durableMux(agent, time.Minute), refuse: 1, status: http.StatusServiceUnavailable, retry: "1"}
	srv := httptest.NewServer(gate)
	defer srv.Close()
	proxy := tcpcut.New(t, 4<<10, srv.Listener.Addr().String())
	c, _ := client.New(proxy.URL() + "/agent")
	got := runAll(t, c, &agui.RunAgentInput{ThreadID: "t", RunID: "r1"})

	gets := gate.times()
	if len(gets) != 2 {
		t.Fatalf("%d reattaches, want the refused one and one more", len(gets))
	}
	if gap := gets[1].Sub(gets[0]); gap < 900*time.Millisecond {
		t.Fatalf("asked again %v after a Retry-After of 1s", gap)
	}
	plain := httptest.NewServer(server.NewHandler(agent))
	defer plain.Close()
	pc, _ := client.New(plain.URL)
	if want := runAll(t, pc, &agui.RunAgentInput{ThreadID: "t", RunID: "r1"}); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the resumed stream (%d events) differs from an uncut run (%d events)", len(got), len(want))
	}
}

// A reattach answered with a status that asking again cannot change (410:
// the missed events are gone) stops at once, and the error says both what
// broke and why it could not be mended.
func TestResumeStopsOnFinalRefusal(t *testing.T) {
	gate := &refusingGets{h: durableMux(chatty(300), time.Minute), refuse: 100, status: http.StatusGone}
	srv := httptest.NewServer(gate)
	defer srv.Close()
	proxy := tcpcut.New(t, 4<<10, srv.Listener.Addr().String())
	c, _ := client.New(proxy.URL() + "/agent")
	var last error
	for _, err := range c.Run(context.Background(), &agui.RunAgentInput{ThreadID: "t", RunID: "r1"}) {
		last = err
	}
	if n := len(gate.times()); n != 1 {
		t.Fatalf("%d reattaches after a 410, want 1", n)
	}
	var herr *client.HTTPError
	if !errors.As(last, &herr) || herr.Status != http.StatusGone || !strings.Contains(last.Error(), "reattaching failed") {
		t.Fatalf("error %v, want the cut and the 410", last)
	}
}
