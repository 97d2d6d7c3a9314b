package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// blockingAgent says one thing and then waits for release or for its
// cancellation; a run of thread "quick" ends at once.
func blockingAgent(release <-chan struct{}) server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("working"); err != nil {
			return server.Outcome{}, err
		}
		if rc.Input().ThreadID == "quick" {
			return server.Success(), nil
		}
		select {
		case <-release:
			return server.Success(), nil
		case <-ctx.Done():
			return server.Outcome{}, ctx.Err()
		}
	})
}

// returnSignal wraps h so that every POST that starts a run reports when
// its ServeHTTP returned: the moment a detached run has no request left.
func returnSignal(h http.Handler) (http.Handler, <-chan string) {
	returned := make(chan string, 16)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Method == http.MethodPost && !strings.Contains(r.URL.Path, "/runs/") {
			returned <- r.URL.Path
		}
	}), returned
}

// closeSignal is a run log whose writers report their run's id on closed
// once closed. Its writers are as visible as the log's (runlog.Visible).
type closeSignal struct {
	runlog.Log
	closed chan string
}

func (l closeSignal) Start(ctx context.Context, info runlog.Info) (runlog.Writer, error) {
	w, err := l.Log.Start(ctx, info)
	if err != nil {
		return nil, err
	}
	return signalledWriter{Writer: w, id: info.RunID, closed: l.closed}, nil
}

type signalledWriter struct {
	runlog.Writer
	id     string
	closed chan<- string
}

func (w signalledWriter) AppendsVisible() bool {
	v, ok := w.Writer.(runlog.Visible)
	return ok && v.AppendsVisible()
}

func (w signalledWriter) Close() error {
	err := w.Writer.Close()
	w.closed <- w.id
	return err
}

// openStream sends req on a connection of its own (so that closing the
// body cuts exactly that connection) and reads frames until it has n.
func openStream(t *testing.T, req *http.Request, n int) (*http.Response, []frame) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		code, msg := errorBody(t, resp, http.StatusOK)
		t.Fatalf("%s %s: %s %s", req.Method, req.URL.Path, code, msg)
	}
	return resp, readSSE(t, resp.Body, n)
}

func postReq(url, thread, run string) *http.Request {
	body := fmt.Sprintf(`{"threadId":%q,"runId":%q,"messages":[]}`, thread, run)
	req, _ := http.NewRequest(http.MethodPost, url+"/agent", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return req
}

func getReq(url, run string) *http.Request {
	req, _ := http.NewRequest(http.MethodGet, url+"/agent/runs/"+run+"/events", nil)
	return req
}

// eventually polls cond until it holds, failing the test after giveUp.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(giveUp); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("still not the case after %v: %s", giveUp, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// overloaded checks resp is the cap's answer: 503, Retry-After, the JSON
// error body with code OVERLOADED.
func overloaded(t *testing.T, what string, resp *http.Response) {
	t.Helper()
	if ra := resp.Header.Get("Retry-After"); ra != "1" {
		t.Errorf("%s: Retry-After %q, want 1", what, ra)
	}
	if code, _ := errorBody(t, resp, http.StatusServiceUnavailable); code != agui.HTTPCodeOverloaded {
		t.Fatalf("%s: code %s, want %s", what, code, agui.HTTPCodeOverloaded)
	}
}

// With durable runs WithMaxConcurrentRuns counts what holds the server's
// resources: a run from its POST to its terminal event, whether or not its
// POST is still there (a detached run), and every GET stream while it
// streams. A cancel is never refused by the cap. Each gives its slot back
// when it ends.
func TestDurableMaxConcurrentRunsCountsEveryStream(t *testing.T) {
	release := make(chan struct{})
	log := closeSignal{Log: runlog.NewMemory(runlog.MemoryOptions{}), closed: make(chan string, 16)}
	h := server.NewHandler(blockingAgent(release), server.WithMaxConcurrentRuns(2),
		server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: server.AllowAll, Detach: time.Minute}))
	h, returned := returnSignal(h)
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer http.DefaultClient.CloseIdleConnections()

	do := func(req *http.Request) *http.Response {
		t.Helper()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// probe replays a run that ended: 200 when a slot is free, which it
	// gives back at once.
	probe := func() bool {
		resp := do(getReq(srv.URL, "z"))
		defer resp.Body.Close()
		readSSE(t, resp.Body, -1)
		return resp.StatusCode == http.StatusOK
	}
	resp, _ := openStream(t, postReq(srv.URL, "quick", "z"), -1)
	resp.Body.Close()
	<-returned
	// The run's own goroutine gives its slot back, then closes its
	// writer: a probe alone would also pass with that slot still held,
	// one of the two being free.
	<-log.closed
	if !probe() {
		t.Fatal("the slot of a run that ended is not free")
	}

	// A detached run holds a slot with no request.
	a, _ := openStream(t, postReq(srv.URL, "ta", "a"), 1)
	a.Body.Close()
	<-returned
	b, _ := openStream(t, postReq(srv.URL, "tb", "b"), 1)
	defer b.Body.Close()

	overloaded(t, "a third POST", do(postReq(srv.URL, "tc", "c")))
	overloaded(t, "a GET of a live run", do(getReq(srv.URL, "a")))
	overloaded(t, "a GET of a run that ended", do(getReq(srv.URL, "z")))

	// A cancel gets through at the cap, and the detached run it ends gives
	// its slot back.
	cresp := postCancel(t, srv.URL, "a")
	cresp.Body.Close()
	if cresp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel at the cap: %d", cresp.StatusCode)
	}
	eventually(t, "the detached run's slot is back once it ended", probe)

	// A GET stream holds a slot while it follows, and gives it back when
	// its client leaves.
	g, frames := openStream(t, getReq(srv.URL, "b"), 3)
	if len(frames) != 3 {
		t.Fatalf("the GET of b got %d frames", len(frames))
	}
	overloaded(t, "a POST while a GET follows", do(postReq(srv.URL, "td", "d")))
	if probe() {
		t.Fatal("a replay got a slot while a POST and a GET held both")
	}
	g.Body.Close()
	eventually(t, "the GET's slot is back once its client left", probe)

	close(release)
	readSSE(t, b.Body, -1)
	b.Body.Close()
	<-returned
	eventually(t, "every slot is back once the last run ended", func() bool {
		r1 := do(getReq(srv.URL, "z"))
		defer r1.Body.Close()
		r2 := do(getReq(srv.URL, "b"))
		defer r2.Body.Close()
		return r1.StatusCode == http.StatusOK && r2.StatusCode == http.StatusOK
	})
}

// logTerminal reads a run's whole log and returns its terminal event,
// failing unless there is exactly one, last.
func logTerminal(t *testing.T, log runlog.Log, runID string) (typ, code, message string) {
	t.Helper()
	var entries []runlog.Entry
	for e, err := range log.Read(context.Background(), runID, 0) {
		if err != nil {
			t.Fatal(err)
		}
		e.Data = bytes.Clone(e.Data) // valid until the read goes on
		entries = append(entries, e)
	}
	var ev struct{ Type, Code, Message string }
	terminals := 0
	for i, e := range entries {
		if err := json.Unmarshal(e.Data, &ev); err != nil {
			t.Fatalf("entry %d: %v", e.Seq, err)
		}
		if ev.Type == "RUN_FINISHED" || ev.Type == "RUN_ERROR" {
			terminals++
			if i != len(entries)-1 || !e.Terminal {
				t.Fatalf("run %s: a terminal event at %d of %d", runID, e.Seq, len(entries))
			}
		}
	}
	if terminals != 1 {
		t.Fatalf("run %s: %d terminal events", runID, terminals)
	}
	return ev.Type, ev.Code, ev.Message
}

// HTTPServer.Shutdown ends every durable run, the detached ones that no
// request waits for included, each with one terminal event naming the
// shutdown, in the log before Shutdown returns.
func TestHTTPServerShutdownEndsDetachedRuns(t *testing.T) {
	for _, grace := range []time.Duration{0, time.Minute} {
		t.Run(fmt.Sprintf("grace=%v", grace), func(t *testing.T) {
			log := runlog.NewMemory(runlog.MemoryOptions{})
			h, returned := returnSignal(server.NewHandler(blockingAgent(nil),
				server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: server.AllowAll, Detach: grace})))
			mux := http.NewServeMux()
			server.Mount(mux, "/agent", h)
			url, shutdown := serveHTTP(t, mux)

			attached, _ := openStream(t, postReq(url, "t1", "attached"), 1)
			defer attached.Body.Close()
			var runs = []string{"attached"}
			if grace > 0 {
				cut, _ := openStream(t, postReq(url, "t2", "detached"), 1)
				cut.Body.Close()
				<-returned // nothing but the log holds this run now
				runs = append(runs, "detached")
			}
			shutdown()
			for _, run := range runs {
				info, err := log.Info(context.Background(), run)
				if err != nil || !info.Ended {
					t.Fatalf("run %s after Shutdown returned: %+v %v", run, info, err)
				}
				typ, code, msg := logTerminal(t, log, run)
				if typ != "RUN_ERROR" || code != "CANCELLED" || msg != "run cancelled: the server is shutting down" {
					t.Fatalf("run %s ended with %s %s %q", run, typ, code, msg)
				}
			}
			// The attached client got the same terminal event.
			frames := readSSE(t, attached.Body, -1)
			if n := len(frames); n == 0 || !strings.Contains(frames[n-1].data, "the server is shutting down") {
				t.Fatalf("the attached client's stream ends with %v", frames)
			}
		})
	}
}

// WithKeepAlive holds for durable streams too: the POST and a reattached
// GET of a run whose agent is thinking each get keep-alive comments, and
// the events after them still arrive.
func TestDurableKeepAlive(t *testing.T) {
	release := make(chan struct{})
	log := runlog.NewMemory(runlog.MemoryOptions{})
	srv := durableServer(t, blockingAgent(release), server.WithKeepAlive(10*time.Millisecond),
		server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: server.AllowAll}))
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	// untilKeepAlive reads lines until a keep-alive comment, returning the
	// reader positioned after it.
	untilKeepAlive := func(what string, resp *http.Response) *bufio.Reader {
		t.Helper()
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: no keep-alive before %v", what, err)
			}
			if line == ": keep-alive\n" {
				return br
			}
		}
	}
	post, err := client.Do(postReq(srv.URL, "t", "r1"))
	if err != nil {
		t.Fatal(err)
	}
	defer post.Body.Close()
	postBody := untilKeepAlive("POST", post)
	get, err := client.Do(getReq(srv.URL, "r1"))
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	getBody := untilKeepAlive("GET", get)
	close(release)
	for what, body := range map[string]io.Reader{"POST": postBody, "GET": getBody} {
		frames := readSSE(t, body, -1)
		if n := len(frames); n == 0 || !strings.Contains(frames[n-1].data, "RUN_FINISHED") {
			t.Fatalf("%s: the stream after the keep-alive ends with %v", what, frames)
		}
	}
}
