package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/chunks"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/server/threads"
	"github.com/agui-go/sdk/agui/verify"
)

// turnState is the state of the reload test's agent: it counts its turns.
type turnState struct {
	Turns    int  `json:"turns"`
	Approved bool `json:"approved,omitempty"`
}

// turnAgent answers four turns: text; a tool call and text; an interrupt;
// and, resumed, a long text that stops after its sixth delta until gate is
// closed (reached is closed then), so that a test can drop its client and
// connect while the run is live. Each turn changes the state.
func turnAgent(reached chan<- struct{}, gate <-chan struct{}) server.Agent[turnState] {
	return server.AgentFunc[turnState](func(ctx context.Context, rc *server.RunContext[turnState]) (server.Outcome, error) {
		turn := rc.State().Turns + 1
		if err := rc.ChangeState(func(s *turnState) { s.Turns = turn }); err != nil {
			return server.Outcome{}, err
		}
		switch turn {
		case 1:
			return server.Success(), rc.Say("Hello! How can I help?")
		case 2:
			if _, err := rc.EmitToolCall("lookup", map[string]string{"q": "answer"}, map[string]int{"answer": 42}); err != nil {
				return server.Outcome{}, err
			}
			return server.Success(), rc.Say("The answer is 42.")
		case 3:
			return server.Interrupted(server.NewInterrupt("approval", "May I go on?")), nil
		}
		if err := rc.ChangeState(func(s *turnState) { s.Approved = len(rc.Resume()) == 1 }); err != nil {
			return server.Outcome{}, err
		}
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for i := range 20 {
			if err := m.Append("word "); err != nil {
				return server.Outcome{}, err
			}
			if i == 5 && gate != nil {
				close(reached)
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

// threadServer serves agent on /agent with durable runs and threads.
func threadServer[S any](t *testing.T, agent server.Agent[S], tc server.ThreadConfig, opts ...server.HandlerOption) *httptest.Server {
	t.Helper()
	opts = append([]server.HandlerOption{
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}),
		server.WithThreads(tc),
	}, opts...)
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", server.NewHandler(agent, opts...))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// sseReader reads SSE frames one at a time.
type sseReader struct {
	sc *bufio.Scanner
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return &sseReader{sc: sc}
}

// next returns the next frame, or false at the end of the stream.
func (s *sseReader) next() (frame, bool) {
	var cur frame
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "":
			if cur.data != "" {
				return cur, true
			}
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return frame{}, false
}

func connect(t *testing.T, url, thread, lastID string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url+"/agent/threads/"+thread+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	noErr(t, err)
	return resp
}

// reduce folds a stream's frames into a conversation, as a client does.
func reduce(t *testing.T, c *conversation.Conversation, frames []frame) *conversation.Conversation {
	t.Helper()
	if c == nil {
		c = conversation.New(nil, nil)
	}
	var x chunks.Expander
	for _, f := range frames {
		ev, err := agui.DecodeEvent([]byte(f.data))
		noErr(t, err)
		evs, err := x.Expand(nil, ev)
		noErr(t, err)
		for _, ev := range evs {
			c.Apply(ev)
		}
	}
	return c
}

// checkClient runs a stream through the client verifier.
func checkClient(t *testing.T, frames []frame) {
	t.Helper()
	docs := make([][]byte, len(frames))
	for i, f := range frames {
		docs[i] = []byte(f.data)
	}
	rep := verify.Check(verify.ClientProfile, docs)
	truth(t, true, rep.OK(), "stream rejected at %d (%s): %v", rep.Index, rep.Event, rep.Err)
	equal(t, true, 0, len(rep.Warnings))
}

func messagesJSON(t *testing.T, msgs []agui.Message) string {
	t.Helper()
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		b, err := m.AppendJSON(nil)
		noErr(t, err)
		out[i] = b
	}
	b, err := json.Marshal(out)
	noErr(t, err)
	return string(b)
}

// TestThreadReload is the page reload: three turns with a tool call, an
// interrupt and a state change; the client drops out of the fourth run;
// a new reader connects and ends with the messages and state of a client
// that saw everything, following the live run to its end. A second reader
// drops out of the connect stream and resumes it with Last-Event-ID.
func TestThreadReload(t *testing.T) {
	reached, gate := make(chan struct{}), make(chan struct{})
	srv := threadServer(t, turnAgent(reached, gate), server.ThreadConfig{Authorize: server.AllowAll})
	c, err := client.New(srv.URL + "/agent")
	noErr(t, err)
	ct := c.NewThread(client.WithThreadID("th-1"))
	ctx := context.Background()

	ct.AddUserMessage("hi")
	_, err = ct.Run(ctx, client.RunParams{RunID: "run-1"})
	noErr(t, err)
	ct.AddUserMessage("what is the answer?")
	_, err = ct.Run(ctx, client.RunParams{RunID: "run-2"})
	noErr(t, err)
	ct.AddUserMessage("go on")
	res, err := ct.Run(ctx, client.RunParams{RunID: "run-3"})
	noErr(t, err)
	equal(t, true, conversation.Interrupted, res.Outcome.Status)

	// After three turns, connect replays the thread: what the client holds.
	resp := connect(t, srv.URL, "th-1", "")
	equal(t, true, http.StatusOK, resp.StatusCode)
	replay := readSSE(t, resp.Body, -1)
	resp.Body.Close()
	checkClient(t, replay)
	got := reduce(t, nil, replay)
	equal(t, false, messagesJSON(t, ct.Messages()), messagesJSON(t, got.Messages()))
	jsonEq(t, string(ct.State()), string(got.State()))
	equal(t, true, 1, len(got.Interrupts()))
	equal(t, false, ct.Interrupts()[0].ID, got.Interrupts()[0].ID)

	// The fourth run: the client answers the interrupt and drops out.
	noErr(t, ct.Resolve(ct.Interrupts()[0].ID, nil))
	ctx4, drop := context.WithCancel(ctx)
	ran := make(chan *client.Result, 1)
	go func() {
		r, _ := ct.Run(ctx4, client.RunParams{RunID: "run-4"})
		ran <- r
	}()
	<-reached
	drop()
	res4 := <-ran

	// A new reader connects while the run waits, and a second one that
	// will drop out after the replay and three events of the live run.
	resp = connect(t, srv.URL, "th-1", "")
	equal(t, true, http.StatusOK, resp.StatusCode)
	rd := newSSEReader(resp.Body)
	var frames []frame
	for {
		f, ok := rd.next()
		truth(t, true, ok, "the stream ended before the live run")
		frames = append(frames, f)
		if strings.HasPrefix(f.id, "r") {
			break // the live run's first event
		}
	}
	resp2 := connect(t, srv.URL, "th-1", "")
	rd2 := newSSEReader(resp2.Body)
	var part1 []frame
	for len(part1) == 0 || !strings.HasPrefix(part1[len(part1)-1].id, "r") || len(part1) < len(frames)+2 {
		f, ok := rd2.next()
		truth(t, true, ok)
		part1 = append(part1, f)
	}
	resp2.Body.Close()
	lastID := ""
	for _, f := range part1 {
		if f.id != "" {
			lastID = f.id
		}
	}

	close(gate)
	for f, ok := rd.next(); ok; f, ok = rd.next() {
		frames = append(frames, f)
	}
	resp.Body.Close()
	checkClient(t, frames)

	// The uninterrupted client: what the dropped one had before the run,
	// and all of the run.
	all := getEvents(t, srv.URL, "run-4", nil, "")
	run4 := readSSE(t, all.Body, -1)
	all.Body.Close()
	want := reduce(t, conversation.New(res4.Input.Messages, res4.Input.State), run4)
	got = reduce(t, nil, frames)
	equal(t, false, messagesJSON(t, want.Messages()), messagesJSON(t, got.Messages()))
	jsonEq(t, string(want.State()), string(got.State()))
	jsonEq(t, `{"turns":4,"approved":true}`, string(got.State()))
	equal(t, false, 0, len(got.Interrupts()))
	equal(t, false, conversation.Succeeded, got.Outcome().Status)
	equal(t, false, "run-4", got.Outcome().RunID)

	// The second reader resumes: nothing it saw comes again.
	resp2 = connect(t, srv.URL, "th-1", lastID)
	equal(t, true, http.StatusOK, resp2.StatusCode)
	part2 := readSSE(t, resp2.Body, -1)
	resp2.Body.Close()
	joined := append(append([]frame(nil), part1...), part2...)
	checkClient(t, joined)
	equal(t, false, len(frames), len(joined), "the resumed stream replays nothing")
	resumed := reduce(t, nil, joined)
	equal(t, false, messagesJSON(t, want.Messages()), messagesJSON(t, resumed.Messages()))

	// The thread as JSON: the record after four runs.
	var body struct {
		ThreadID   string            `json:"threadId"`
		Messages   []json.RawMessage `json:"messages"`
		State      json.RawMessage   `json:"state"`
		Interrupts []json.RawMessage `json:"interrupts"`
		LiveRunID  string            `json:"liveRunId"`
		Runs       []threads.Run     `json:"runs"`
	}
	getJSON(t, srv.URL+"/agent/threads/th-1", http.StatusOK, &body)
	equal(t, false, "th-1", body.ThreadID)
	equal(t, false, len(want.Messages()), len(body.Messages))
	jsonEq(t, `{"turns":4,"approved":true}`, string(body.State))
	equal(t, false, 0, len(body.Interrupts))
	equal(t, false, "", body.LiveRunID)
	equal(t, true, 4, len(body.Runs))
	equal(t, false, "run-4", body.Runs[0].RunID, "newest first")
	equal(t, false, threads.OutcomeSucceeded, body.Runs[0].Outcome)
	equal(t, false, threads.OutcomeInterrupted, body.Runs[1].Outcome)

	// Connecting again with the replay's cursor, after the run ended, gets
	// the thread afresh: its cursor counted three ended runs.
	resp = connect(t, srv.URL, "th-1", "s3")
	again := readSSE(t, resp.Body, -1)
	resp.Body.Close()
	checkClient(t, again)
	equal(t, false, messagesJSON(t, want.Messages()), messagesJSON(t, reduce(t, nil, again).Messages()))
	// With the current one it gets nothing: nothing happened since.
	resp = connect(t, srv.URL, "th-1", again[len(again)-1].id)
	equal(t, false, 0, len(readSSE(t, resp.Body, -1)))
	resp.Body.Close()
}

func getJSON(t *testing.T, url string, status int, v any) {
	t.Helper()
	resp, err := http.Get(url)
	noErr(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	noErr(t, err)
	equal(t, true, status, resp.StatusCode, string(data))
	noErr(t, json.Unmarshal(data, v))
}

// runTo posts a run and reads its stream to the end: the handler has
// recorded it by then.
func runTo(t *testing.T, url, thread, run string) {
	t.Helper()
	resp := postRun(t, url, thread, run)
	defer resp.Body.Close()
	equal(t, true, http.StatusOK, resp.StatusCode)
	_, err := io.Copy(io.Discard, resp.Body)
	noErr(t, err)
}

var errNotYours = errors.New("not your thread")

// TestThreadRoutesReject: each refusal has its status and the JSON error
// body of every rejection.
func TestThreadRoutesReject(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	store := threads.NewMemory(threads.MemoryOptions{TTL: time.Hour, Now: func() time.Time { return now }})
	auth := func(r *http.Request, thread, run string) error {
		if thread == "secret" {
			return errNotYours
		}
		return nil
	}
	srv := threadServer(t, deltaAgent(3, -1, nil), server.ThreadConfig{Store: store, Authorize: auth})
	runTo(t, srv.URL, "t1", "r1")
	runTo(t, srv.URL, "old", "r2")
	runTo(t, srv.URL, "t1", "r3")
	// "old" passes its TTL; t1 is used again meanwhile.
	now = now.Add(50 * time.Minute)
	getJSON(t, srv.URL+"/agent/threads/t1", http.StatusOK, new(map[string]any))
	now = now.Add(20 * time.Minute)

	noAuth := threadServer(t, deltaAgent(1, -1, nil), server.ThreadConfig{})
	for _, tc := range []struct {
		name, url, method, lastID string
		status                    int
		code                      agui.HTTPCode
	}{
		{"unknown", "/agent/threads/nope", http.MethodGet, "", 404, agui.HTTPCodeRunNotFound},
		{"unknown connect", "/agent/threads/nope/events", http.MethodGet, "", 404, agui.HTTPCodeRunNotFound},
		{"expired", "/agent/threads/old", http.MethodGet, "", 410, agui.HTTPCodeRunExpired},
		{"expired connect", "/agent/threads/old/events", http.MethodGet, "", 410, agui.HTTPCodeRunExpired},
		{"bad cursor", "/agent/threads/t1?cursor=abc", http.MethodGet, "", 400, agui.HTTPCodeInvalidCursor},
		{"cursor past the runs", "/agent/threads/t1?cursor=9", http.MethodGet, "", 400, agui.HTTPCodeInvalidCursor},
		{"bad limit", "/agent/threads/t1?limit=0", http.MethodGet, "", 400, agui.HTTPCodeInvalidCursor},
		{"bad Last-Event-ID", "/agent/threads/t1/events", http.MethodGet, "x12", 400, agui.HTTPCodeInvalidCursor},
		{"forbidden", "/agent/threads/secret", http.MethodGet, "", 403, agui.HTTPCodeForbidden},
		{"forbidden connect", "/agent/threads/secret/events", http.MethodGet, "", 403, agui.HTTPCodeForbidden},
		{"method", "/agent/threads/t1", http.MethodDelete, "", 405, agui.HTTPCodeMethodNotAllowed},
		{"no hook", "noauth:/agent/threads/t1", http.MethodGet, "", 403, agui.HTTPCodeForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := srv.URL
			url := tc.url
			if u, ok := strings.CutPrefix(url, "noauth:"); ok {
				base, url = noAuth.URL, u
			}
			req, _ := http.NewRequest(tc.method, base+url, nil)
			if tc.lastID != "" {
				req.Header.Set("Last-Event-ID", tc.lastID)
			}
			resp, err := http.DefaultClient.Do(req)
			noErr(t, err)
			defer resp.Body.Close()
			equal(t, true, tc.status, resp.StatusCode)
			equal(t, false, "application/json", resp.Header.Get("Content-Type"))
			var body struct {
				Error struct {
					Code    agui.HTTPCode `json:"code"`
					Message string        `json:"message"`
				} `json:"error"`
			}
			noErr(t, json.NewDecoder(resp.Body).Decode(&body))
			equal(t, false, tc.code, body.Error.Code)
			truth(t, false, body.Error.Message != "")
		})
	}
}

// TestThreadRunsPages: runs come newest first, a page at a time, and the
// cursor walks them to the first.
func TestThreadRunsPages(t *testing.T) {
	srv := threadServer(t, deltaAgent(2, -1, nil), server.ThreadConfig{Authorize: server.AllowAll, PageSize: 2})
	for _, id := range []string{"r1", "r2", "r3", "r4", "r5"} {
		runTo(t, srv.URL, "t", id)
	}
	var ids []string
	cursor := ""
	for range 5 {
		var body struct {
			Runs       []threads.Run `json:"runs"`
			NextCursor string        `json:"nextCursor"`
		}
		url := srv.URL + "/agent/threads/t"
		if cursor != "" {
			url += "?cursor=" + cursor
		}
		getJSON(t, url, http.StatusOK, &body)
		for _, r := range body.Runs {
			ids = append(ids, r.RunID)
			equal(t, false, threads.OutcomeSucceeded, r.Outcome)
			truth(t, false, !r.Ended.Before(r.Started))
		}
		if cursor = body.NextCursor; cursor == "" {
			break
		}
	}
	equal(t, false, []string{"r5", "r4", "r3", "r2", "r1"}, ids)
}

// TestWithThreadsNeedsDurableRuns: threads without a run log are a
// programming error, told at once.
func TestWithThreadsNeedsDurableRuns(t *testing.T) {
	defer func() { truth(t, false, recover() != nil, "NewHandler did not panic") }()
	server.NewHandler(deltaAgent(1, -1, nil), server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll}))
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// equal reports want != got, and stops the test when fatal.
func equal(t *testing.T, fatal bool, want, got any, msg ...any) {
	t.Helper()
	if reflect.DeepEqual(want, got) {
		return
	}
	text := fmt.Sprintf("got %v, want %v", got, want)
	if len(msg) > 0 {
		text += ": " + fmt.Sprint(msg...)
	}
	if fatal {
		t.Fatal(text)
	}
	t.Error(text)
}

// truth reports a false cond, and stops the test when fatal.
func truth(t *testing.T, fatal, cond bool, msg ...any) {
	t.Helper()
	if cond {
		return
	}
	text := "condition failed"
	if len(msg) > 0 {
		if f, ok := msg[0].(string); ok {
			text = fmt.Sprintf(f, msg[1:]...)
		}
	}
	if fatal {
		t.Fatal(text)
	}
	t.Error(text)
}

func jsonEq(t *testing.T, want, got string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got %s: %v", got, err)
	}
	if !reflect.DeepEqual(w, g) {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestThreadConcurrentRuns: two runs of one thread that overlap, the later
// one ending first, each leave their messages in the record, merged by id.
func TestThreadConcurrentRuns(t *testing.T) {
	gates := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	started := make(chan string, 2)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		started <- rc.RunID()
		select {
		case <-gates[rc.RunID()]:
		case <-ctx.Done():
			return server.Outcome{}, ctx.Err()
		}
		return server.Success(), rc.Say("reply to " + rc.RunID())
	})
	srv := threadServer(t, agent, server.ThreadConfig{Authorize: server.AllowAll})
	done := make(chan struct{}, 2)
	for _, run := range []string{"a", "b"} {
		go func() {
			resp := postRunWith(t, srv.URL, "t", run, `[{"id":"u-`+run+`","role":"user","content":"hi"}]`)
			resp.Body.Close()
			done <- struct{}{}
		}()
		<-started
	}
	close(gates["b"])
	<-done
	close(gates["a"])
	<-done
	var body struct {
		Messages  []json.RawMessage `json:"messages"`
		LiveRunID string            `json:"liveRunId"`
		Runs      []threads.Run     `json:"runs"`
	}
	getJSON(t, srv.URL+"/agent/threads/t", http.StatusOK, &body)
	var texts []string
	for _, m := range body.Messages {
		texts = append(texts, string(m))
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{`"id":"u-a"`, `"id":"u-b"`, "reply to a", "reply to b"} {
		truth(t, false, strings.Contains(all, want), "the record lacks %s:\n%s", want, all)
	}
	equal(t, false, 4, len(body.Messages))
	equal(t, false, "", body.LiveRunID)
	equal(t, true, 2, len(body.Runs))
	for _, r := range body.Runs {
		equal(t, false, threads.OutcomeSucceeded, r.Outcome)
	}
}

// failingLog is a memory log whose writers refuse every append after the
// first few, as a backend that went away does.
type failingLog struct {
	*runlog.Memory
	after int
}

func (l failingLog) Start(ctx context.Context, info runlog.Info) (runlog.Writer, error) {
	w, err := l.Memory.Start(ctx, info)
	if err != nil {
		return nil, err
	}
	return &failingWriter{Writer: w, left: l.after}, nil
}

type failingWriter struct {
	runlog.Writer
	left int
}

func (w *failingWriter) Append(data []byte, terminal bool) (uint64, error) {
	if w.left == 0 {
		return 0, runlog.ErrUnavailable
	}
	w.left--
	return w.Writer.Append(data, terminal)
}

// TestThreadRunWithoutTerminal: a run whose log refused its terminal event
// is still recorded, as failed, and nothing waits for the event.
func TestThreadRunWithoutTerminal(t *testing.T) {
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", server.NewHandler(deltaAgent(5, -1, nil),
		server.WithDurableRuns(server.DurableConfig{Log: failingLog{runlog.NewMemory(runlog.MemoryOptions{}), 3}, Authorize: server.AllowAll}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	runTo(t, srv.URL, "t", "r1")
	var body struct {
		LiveRunID string        `json:"liveRunId"`
		Runs      []threads.Run `json:"runs"`
	}
	getJSON(t, srv.URL+"/agent/threads/t", http.StatusOK, &body)
	equal(t, false, "", body.LiveRunID)
	equal(t, true, 1, len(body.Runs))
	equal(t, false, threads.OutcomeFailed, body.Runs[0].Outcome)
}
