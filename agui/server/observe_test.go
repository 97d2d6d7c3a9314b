package server_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// recorded is what a test observer heard of one run.
type recorded struct {
	mu         sync.Mutex
	info       server.RunInfo
	header     http.Header
	events     []agui.EventType
	bytes      int
	flushed    int
	rejected   []error
	disconnect error
	cancel     error
	ends       []server.RunEnd
	order      []string // "event", "cancel", "end", … in the order heard
	done       chan struct{}
}

type observedKey struct{}

// recorder is an observer that records the one run it is told of.
func recorder() (server.Observer, *recorded) {
	rec := &recorded{done: make(chan struct{})}
	o := server.Observer{StartRun: func(ctx context.Context, info server.RunInfo) (context.Context, *server.RunTrace) {
		rec.info = info
		if info.Request != nil {
			rec.header = info.Request.Header.Clone()
		}
		note := func(what string) { rec.order = append(rec.order, what) }
		return context.WithValue(ctx, observedKey{}, "observed"), &server.RunTrace{
			Event: func(ev agui.Event, size int) {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				rec.events = append(rec.events, ev.Type())
				rec.bytes += size
				if len(rec.order) == 0 || rec.order[len(rec.order)-1] != "event" {
					note("event")
				}
			},
			Flush: func(size int, err error) {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				if err == nil {
					rec.flushed += size
				}
			},
			Rejected: func(ev agui.Event, err error) {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				rec.rejected = append(rec.rejected, err)
				note("rejected")
			},
			Disconnect: func(cause error) {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				rec.disconnect = cause
				note("disconnect")
			},
			Cancel: func(cause error) {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				rec.cancel = cause
				note("cancel")
			},
			End: func(end server.RunEnd) {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				rec.ends = append(rec.ends, end)
				note("end")
				close(rec.done)
			},
		}
	}}
	return o, rec
}

func (r *recorded) wait(t *testing.T) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run's end was never observed")
	}
}

func (r *recorded) end(t *testing.T) server.RunEnd {
	t.Helper()
	r.wait(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ends) != 1 {
		t.Fatalf("End called %d times", len(r.ends))
	}
	return r.ends[0]
}

func postAgent(t *testing.T, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// observerCase is a run of TestObserverHandlerRun.
type observerCase struct {
	name   string
	agent  server.Agent[server.NoState]
	normal bool
	code   agui.ErrorCode
	last   agui.EventType
	reject bool
}

// verifiedObserverCases are the cases that need the verifier (not
// compiled out with agui_noverify).
var verifiedObserverCases []observerCase

func TestObserverHandlerRun(t *testing.T) {
	tests := []observerCase{
		{"success", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			if ctx.Value(observedKey{}) != "observed" {
				return server.Outcome{}, errors.New("the observer's context does not reach the agent")
			}
			return server.Success(), rc.Say("Hello!")
		}), true, "", agui.EventTypeRunFinished, false},
		{"failure", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return server.Outcome{}, errors.New("boom")
		}), false, agui.CodeAgentError, agui.EventTypeRunError, false},
		{"panic", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			panic("boom")
		}), false, agui.CodeAgentPanic, agui.EventTypeRunError, false},
	}
	tests = append(tests, verifiedObserverCases...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, rec := recorder()
			srv := httptest.NewServer(server.NewHandler(tt.agent, server.WithObserver(o)))
			defer srv.Close()
			resp := postAgent(t, srv.URL)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			end := rec.end(t)
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if end.Normal != tt.normal || end.Code != tt.code {
				t.Errorf("end normal %v code %q, want %v %q (err %v)", end.Normal, end.Code, tt.normal, tt.code, end.Err)
			}
			if (end.Err == nil) != tt.normal {
				t.Errorf("end err %v", end.Err)
			}
			if end.Terminal == nil || end.Terminal.Type() != tt.last {
				t.Errorf("terminal %v, want %s", end.Terminal, tt.last)
			}
			if rec.info.Input.RunID != "r" || rec.info.Request == nil || rec.info.Durable {
				t.Errorf("info %+v", rec.info)
			}
			if rec.header.Get("Traceparent") == "" {
				t.Error("the request's headers did not reach StartRun")
			}
			if rec.events[0] != agui.EventTypeRunStarted || rec.events[len(rec.events)-1] != tt.last {
				t.Errorf("events %v", rec.events)
			}
			if rec.bytes != len(body) || rec.flushed != len(body) {
				t.Errorf("events %d bytes, flushed %d; the body has %d", rec.bytes, rec.flushed, len(body))
			}
			if (len(rec.rejected) > 0) != tt.reject {
				t.Errorf("rejected %v", rec.rejected)
			}
			if rec.cancel != nil || rec.disconnect != nil {
				t.Errorf("cancel %v, disconnect %v: the guard's cancellation is not observed", rec.cancel, rec.disconnect)
			}
		})
	}
}

// A client that leaves mid-run is heard as a cancellation, before the end.
func TestObserverClientLeaves(t *testing.T) {
	gate := make(chan struct{})
	o, rec := recorder()
	srv := httptest.NewServer(server.NewHandler(deltaAgent(10, 2, gate), server.WithObserver(o)))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readSSE(t, resp.Body, 3) // RUN_STARTED, the start and a delta
	cancel()
	resp.Body.Close()
	end := rec.end(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if end.Normal || (end.Code != agui.CodeCancelled && end.Code != agui.CodeDisconnected) {
		t.Errorf("end %+v", end)
	}
	if !errors.Is(rec.cancel, server.ErrClientDisconnected) {
		t.Errorf("cancel cause %v", rec.cancel)
	}
	if i, j := slices.Index(rec.order, "cancel"), slices.Index(rec.order, "end"); i < 0 || i > j || j != len(rec.order)-1 {
		t.Errorf("heard %v", rec.order)
	}
}

// A consumer of Run that stops pulling is heard as a disconnect; the
// options of Run take the observer too.
func TestObserverRunConsumerStops(t *testing.T) {
	o, rec := recorder()
	for ev, err := range server.Run(t.Context(), deltaAgent(10, -1, nil), input(), server.WithObserver(o)) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type() == agui.EventTypeTextMessageContent {
			break
		}
	}
	end := rec.end(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !errors.Is(rec.disconnect, server.ErrConsumerStopped) || end.Normal || rec.info.Request != nil {
		t.Errorf("disconnect %v, end %+v, info %+v", rec.disconnect, end, rec.info)
	}
}

// A Runner with a nil agent is ended where it fails to start.
func TestObserverRunnerNilAgent(t *testing.T) {
	o, rec := recorder()
	r := server.NewRunner[server.NoState](t.Context(), nil, input(), server.WithObserver(o))
	if err := r.Stream(func(agui.Event, []byte) error { return nil }); err == nil {
		t.Fatal("a nil agent started")
	}
	if end := rec.end(t); end.Normal || end.Err == nil {
		t.Errorf("end %+v", end)
	}
}

// A reader that reattaches to a durable run is observed, and the run too.
func TestObserverReattach(t *testing.T) {
	o, rec := recorder()
	type reattach struct {
		info server.ReattachInfo
		end  server.ReattachEnd
	}
	reattached := make(chan reattach, 1)
	o.Reattach = func(ctx context.Context, info server.ReattachInfo) func(server.ReattachEnd) {
		return func(end server.ReattachEnd) { reattached <- reattach{info, end} }
	}
	srv := durableServer(t, deltaAgent(5, -1, nil), server.WithObserver(o),
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}))
	resp := postRun(t, srv.URL, "t", "r")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if end := rec.end(t); !end.Normal || !rec.info.Durable {
		t.Errorf("end %+v, info %+v", end, rec.info)
	}
	resp = getEvents(t, srv.URL, "r", nil, "?after=3")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	select {
	case got := <-reattached:
		if got.info.RunID != "r" || got.info.ThreadID != "t" || got.info.After != 3 || !got.end.Ended || got.end.Cause != nil {
			t.Errorf("reattach %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reattach was never observed")
	}
}

// A run without an observer and one whose observer has no StartRun run the
// same.
func TestObserverEmpty(t *testing.T) {
	for _, o := range []server.Observer{{}, {Reattach: func(context.Context, server.ReattachInfo) func(server.ReattachEnd) { return nil }}} {
		n := 0
		for _, err := range server.Run(t.Context(), deltaAgent(3, -1, nil), input(), server.WithObserver(o)) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 7 {
			t.Errorf("%d events", n)
		}
	}
}
