package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/verify"
)

// frame is one SSE frame as a client sees it.
type frame struct {
	id   string
	data string
}

// readSSE reads up to max frames (all when max < 0) from an SSE body.
func readSSE(t *testing.T, r io.Reader, max int) []frame {
	t.Helper()
	var out []frame
	var cur frame
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for (max < 0 || len(out) < max) && sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" {
				out = append(out, cur)
			}
			cur = frame{}
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

// deltaAgent streams a text message of n deltas; after delta `pause` it
// waits for gate (when gate is not nil), so a test can cut the connection
// at a known point.
func deltaAgent(n, pause int, gate <-chan struct{}) server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage(server.WithID("m1"))
		if err != nil {
			return server.Outcome{}, err
		}
		for i := range n {
			if err := m.Append(fmt.Sprintf("d%d ", i)); err != nil {
				return server.Outcome{}, err
			}
			if i == pause && gate != nil {
				select {
				case <-gate:
				case <-ctx.Done():
					return server.Outcome{}, ctx.Err()
				}
			}
		}
		return server.Success(), m.End()
	})
}

// durableServer serves agent with durable runs on /agent.
func durableServer(t *testing.T, agent server.Agent[server.NoState], opts ...server.HandlerOption) *httptest.Server {
	t.Helper()
	h := server.NewHandler(agent, opts...)
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func postRun(t *testing.T, url, thread, run string) *http.Response {
	t.Helper()
	body := fmt.Sprintf(`{"threadId":%q,"runId":%q,"messages":[]}`, thread, run)
	req, _ := http.NewRequest(http.MethodPost, url+"/agent", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func getEvents(t *testing.T, url, run string, header map[string]string, query string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url+"/agent/runs/"+run+"/events"+query, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func postCancel(t *testing.T, url, run string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/agent/runs/"+run+"/cancel", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// errorBody checks a JSON error answer and returns its code and message.
func errorBody(t *testing.T, resp *http.Response, status int) (code agui.HTTPCode, message string) {
	t.Helper()
	defer resp.Body.Close()
	var b struct {
		Error struct {
			Code    agui.HTTPCode
			Message string
		} `json:"error"`
	}
	if resp.StatusCode != status {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, data)
	}
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		t.Fatalf("error body: %v", err)
	}
	return b.Error.Code, b.Error.Message
}

// checkStream checks frames are numbered from first on and accepted by the
// server verifier, and returns their data.
func checkStream(t *testing.T, frames []frame, first int) []string {
	t.Helper()
	docs := make([][]byte, len(frames))
	data := make([]string, len(frames))
	for i, f := range frames {
		if f.id != strconv.Itoa(first+i) {
			t.Fatalf("frame %d has id %q, want %d", i, f.id, first+i)
		}
		docs[i], data[i] = []byte(f.data), f.data
	}
	if rep := verify.Check(verify.ServerProfile, docs); !rep.OK() {
		t.Fatalf("the verifier rejects the stream at %d: %v", rep.Index, rep.Err)
	}
	return data
}

// plainRun is the same agent's stream without durable runs: the reference
// a durable stream must equal.
func plainRun(t *testing.T, agent server.Agent[server.NoState]) []string {
	t.Helper()
	srv := httptest.NewServer(server.NewHandler(agent))
	defer srv.Close()
	resp := postRun(t, srv.URL, "t", "r1")
	defer resp.Body.Close()
	var data []string
	for _, f := range readSSE(t, resp.Body, -1) {
		if f.id != "" {
			t.Fatalf("an id line without durable runs: %q", f.id)
		}
		data = append(data, f.data)
	}
	return data
}

func TestDurableFramesCarryIDs(t *testing.T) {
	agent := deltaAgent(20, -1, nil)
	srv := durableServer(t, agent, server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll}))
	resp := postRun(t, srv.URL, "t", "r1")
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != server.MediaTypeSSE {
		t.Fatalf("content type %q", ct)
	}
	got := checkStream(t, readSSE(t, resp.Body, -1), 1)
	if want := plainRun(t, agent); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("durable stream differs from the plain one:\n%v\n%v", got, want)
	}

	// The finished run replays from any cursor, by header or query.
	for _, tc := range []struct {
		name   string
		header map[string]string
		query  string
		first  int
	}{
		{"whole run", nil, "", 1},
		{"Last-Event-ID", map[string]string{"Last-Event-ID": "5"}, "", 6},
		{"after", nil, "?after=20", 21},
		{"both agreeing", map[string]string{"Last-Event-ID": "3"}, "?after=3", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := getEvents(t, srv.URL, "r1", tc.header, tc.query)
			defer resp.Body.Close()
			frames := readSSE(t, resp.Body, -1)
			if len(frames) != len(got)-(tc.first-1) {
				t.Fatalf("%d frames, want %d", len(frames), len(got)-(tc.first-1))
			}
			for i, f := range frames {
				if f.id != strconv.Itoa(tc.first+i) || f.data != got[tc.first-1+i] {
					t.Fatalf("frame %d = %+v, want id %d %s", i, f, tc.first+i, got[tc.first-1+i])
				}
			}
		})
	}
}

// A client cut off mid-run reattaches with Last-Event-ID and gets exactly
// the events it missed: the two halves make the uncut run.
func TestDurableReattachAfterCut(t *testing.T) {
	gate := make(chan struct{})
	agent := deltaAgent(30, 9, gate)
	srv := durableServer(t, agent, server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}))
	resp := postRun(t, srv.URL, "t", "r1")
	head := readSSE(t, resp.Body, 5) // RUN_STARTED, TEXT_MESSAGE_START, three deltas
	resp.Body.Close()                // the connection drops
	close(gate)

	resp = getEvents(t, srv.URL, "r1", map[string]string{"Last-Event-ID": head[len(head)-1].id}, "")
	defer resp.Body.Close()
	tail := readSSE(t, resp.Body, -1)
	got := checkStream(t, append(head, tail...), 1)
	want := plainRun(t, deltaAgent(30, -1, nil))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reassembled stream differs from an uncut run:\n%v\n%v", got, want)
	}
}

// Without Detach a run is cancelled when its client leaves, as without
// durable runs; the log still ends with the terminal event.
func TestDurableDisconnectCancelsByDefault(t *testing.T) {
	gate := make(chan struct{})
	defer close(gate)
	log := runlog.NewMemory(runlog.MemoryOptions{})
	srv := durableServer(t, deltaAgent(30, 2, gate), server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: server.AllowAll}))
	resp := postRun(t, srv.URL, "t", "r1")
	readSSE(t, resp.Body, 3)
	resp.Body.Close()
	// Follow the log itself: a reader through the route would count as a
	// client of the run and keep it going.
	last := string(followLog(t, log, "r1")[0].Data)
	if !strings.Contains(last, `"code":"CANCELLED"`) || !strings.Contains(last, "client disconnected") {
		t.Fatalf("last event %s, want RUN_ERROR CANCELLED (client disconnected)", last)
	}
}

// followLog reads a run's log to its end and returns its entries, last
// first.
func followLog(t *testing.T, log runlog.Log, runID string) []runlog.Entry {
	t.Helper()
	var all []runlog.Entry
	for e, err := range log.Read(context.Background(), runID, 0) {
		if err != nil {
			t.Fatal(err)
		}
		all = append([]runlog.Entry{e}, all...)
	}
	if len(all) == 0 || !all[0].Terminal {
		t.Fatal("the log has no terminal event")
	}
	return all
}

// A detached run nobody comes back to is cancelled after the grace.
func TestDurableDetachGraceExpires(t *testing.T) {
	gate := make(chan struct{})
	defer close(gate)
	log := runlog.NewMemory(runlog.MemoryOptions{})
	srv := durableServer(t, deltaAgent(30, 2, gate), server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: server.AllowAll, Detach: 20 * time.Millisecond}))
	resp := postRun(t, srv.URL, "t", "r1")
	readSSE(t, resp.Body, 3)
	resp.Body.Close()
	last := string(followLog(t, log, "r1")[0].Data)
	if !strings.Contains(last, `"code":"CANCELLED"`) || !strings.Contains(last, "grace") {
		t.Fatalf("last event %s, want RUN_ERROR CANCELLED naming the grace", last)
	}
}

func TestDurableBadRequests(t *testing.T) {
	now := time.Unix(1e9, 0)
	clock := func() time.Time { return now }
	log := runlog.NewMemory(runlog.MemoryOptions{TTL: time.Minute, Now: clock})
	deny := func(r *http.Request, thread, run string) error {
		if r.Header.Get("X-User") != thread {
			return errors.New("thread " + thread + " is not yours")
		}
		return nil
	}
	srv := durableServer(t, deltaAgent(3, -1, nil), server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: deny}))
	resp := postRun(t, srv.URL, "alice", "r1")
	n := len(readSSE(t, resp.Body, -1))
	resp.Body.Close()
	alice := map[string]string{"X-User": "alice"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{"X-User": "alice"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		do     func() *http.Response
		status int
		code   agui.HTTPCode
	}{
		{"malformed Last-Event-ID", func() *http.Response { return getEvents(t, srv.URL, "r1", with("Last-Event-ID", "x7"), "") }, 400, agui.HTTPCodeInvalidCursor},
		{"negative after", func() *http.Response { return getEvents(t, srv.URL, "r1", alice, "?after=-1") }, 400, agui.HTTPCodeInvalidCursor},
		{"future Last-Event-ID", func() *http.Response {
			return getEvents(t, srv.URL, "r1", with("Last-Event-ID", strconv.Itoa(n+1)), "")
		}, 400, agui.HTTPCodeInvalidCursor},
		{"cursors disagree", func() *http.Response { return getEvents(t, srv.URL, "r1", with("Last-Event-ID", "1"), "?after=2") }, 400, agui.HTTPCodeInvalidCursor},
		{"another thread's run", func() *http.Response { return getEvents(t, srv.URL, "r1", map[string]string{"X-User": "mallory"}, "") }, 403, agui.HTTPCodeForbidden},
		{"cancel another thread's run", func() *http.Response {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/agent/runs/r1/cancel", nil)
			req.Header.Set("X-User", "mallory")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}, 403, agui.HTTPCodeForbidden},
		{"cancel a finished run", func() *http.Response {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/agent/runs/r1/cancel", nil)
			req.Header.Set("X-User", "alice")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}, 409, agui.HTTPCodeRunEnded},
		{"unknown run", func() *http.Response { return getEvents(t, srv.URL, "nope", alice, "") }, 404, agui.HTTPCodeRunNotFound},
		{"GET on cancel", func() *http.Response {
			resp, err := http.Get(srv.URL + "/agent/runs/r1/cancel")
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}, 405, agui.HTTPCodeMethodNotAllowed},
		{"run id reused", func() *http.Response { return postRun(t, srv.URL, "alice", "r1") }, 409, agui.HTTPCodeRunExists},
		{"expired run", func() *http.Response {
			now = now.Add(2 * time.Minute)
			return getEvents(t, srv.URL, "r1", alice, "")
		}, 410, agui.HTTPCodeRunExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, msg := errorBody(t, tc.do(), tc.status)
			if code != tc.code || msg == "" {
				t.Fatalf("code %q message %q, want code %q", code, msg, tc.code)
			}
			t.Log(msg)
		})
	}
}

func TestDurableNoAuthorizationHookDenies(t *testing.T) {
	srv := durableServer(t, deltaAgent(1, -1, nil), server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{})}))
	resp := postRun(t, srv.URL, "t", "r1")
	readSSE(t, resp.Body, -1)
	resp.Body.Close()
	if code, _ := errorBody(t, getEvents(t, srv.URL, "r1", nil, ""), 403); code != agui.HTTPCodeForbidden {
		t.Fatal(code)
	}
}

func TestDurableOneRunPerThread(t *testing.T) {
	gate := make(chan struct{})
	srv := durableServer(t, deltaAgent(3, 0, gate),
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, OneRunPerThread: true}))
	first := postRun(t, srv.URL, "t", "r1")
	defer first.Body.Close()
	readSSE(t, first.Body, 2)
	code, msg := errorBody(t, postRun(t, srv.URL, "t", "r2"), http.StatusConflict)
	if code != agui.HTTPCodeThreadBusy || !strings.Contains(msg, "r1") {
		t.Fatalf("code %q message %q, want THREAD_BUSY naming r1", code, msg)
	}
	other := postRun(t, srv.URL, "u", "r3") // another thread is free
	close(gate)
	readSSE(t, other.Body, -1)
	other.Body.Close()
	readSSE(t, first.Body, -1)
	// The thread is free again once its run ended.
	again := postRun(t, srv.URL, "t", "r4")
	if again.StatusCode != http.StatusOK {
		t.Fatalf("status %d after the live run ended", again.StatusCode)
	}
	readSSE(t, again.Body, -1)
	again.Body.Close()
}

// A run asked for in protobuf is durable too: its POST gets exactly the
// bytes it would get without durable runs (the binding has no place for
// sequence numbers), and the run is in the log, so an SSE client can
// reattach to it and read it with its sequence numbers.
func TestDurableProtobufRunIsLogged(t *testing.T) {
	agent := deltaAgent(5, -1, nil)
	protobufRun := func(url string) []byte {
		req, _ := http.NewRequest(http.MethodPost, url+"/agent", strings.NewReader(`{"threadId":"t","runId":"r1","messages":[]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", server.MediaTypeProtobuf)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != server.MediaTypeProtobuf {
			t.Fatalf("content type %q", ct)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	plain := durableServer(t, agent)
	want := protobufRun(plain.URL)
	srv := durableServer(t, agent, server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll}))
	if got := protobufRun(srv.URL); !bytes.Equal(got, want) {
		t.Fatalf("the durable protobuf stream differs from the plain one:\n%x\n%x", got, want)
	}
	resp := getEvents(t, srv.URL, "r1", nil, "")
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reattaching over SSE: %d", resp.StatusCode)
	}
	got := checkStream(t, readSSE(t, resp.Body, -1), 1)
	if wantSSE := plainRun(t, agent); strings.Join(got, "\n") != strings.Join(wantSSE, "\n") {
		t.Fatalf("the logged run differs from the plain SSE run:\n%v\n%v", got, wantSSE)
	}

	// A protobuf reader resumes with ?after=: the frames after the second.
	resp = getEvents(t, srv.URL, "r1", map[string]string{"Accept": server.MediaTypeProtobuf}, "?after=2")
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != server.MediaTypeProtobuf {
		t.Fatalf("protobuf GET: %d %q %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	rest := want
	for range 2 {
		rest = rest[4+binary.BigEndian.Uint32(rest):]
	}
	if !bytes.Equal(body, rest) {
		t.Fatalf("the protobuf GET after 2 differs from the plain run's frames after the second")
	}
	code, _ := errorBody(t, getEvents(t, srv.URL, "r1", map[string]string{"Accept": "image/png"}, ""), http.StatusNotAcceptable)
	if code != agui.HTTPCodeNotAcceptable {
		t.Fatal(code)
	}
}

// An event larger than an SSE reader accepts fails at its emit, as without
// durable runs, instead of going into the log and breaking every stream of
// the run: the stream stays valid and ends with that emit's SERIALIZATION.
func TestDurableRefusesOversizedEvent(t *testing.T) {
	emitErr := make(chan error, 1)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		emitErr <- m.Append(strings.Repeat("x", agui.DefaultMaxFrame))
		return server.Success(), m.End()
	})
	log := runlog.NewMemory(runlog.MemoryOptions{})
	srv := durableServer(t, agent, server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: server.AllowAll}))
	resp := postRun(t, srv.URL, "t", "r1")
	frames := readSSE(t, resp.Body, -1)
	resp.Body.Close()
	if err := <-emitErr; !errors.Is(err, server.ErrEventTooLarge) {
		t.Fatalf("the oversized emit returned %v, want ErrEventTooLarge", err)
	}
	checkStream(t, frames, 1)
	if last := frames[len(frames)-1].data; !strings.Contains(last, "RUN_ERROR") || !strings.Contains(last, "SERIALIZATION") {
		t.Fatalf("the run ended with %s", last)
	}
}
