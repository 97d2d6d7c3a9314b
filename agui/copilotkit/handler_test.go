package copilotkit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/copilotkit"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

type chatState struct {
	Turns int `json:"turns"`
}

// chatAgent answers at once; its first state event is a STATE_DELTA.
func chatAgent() server.Agent[chatState] {
	return server.AgentFunc[chatState](func(ctx context.Context, rc *server.RunContext[chatState]) (server.Outcome, error) {
		rc.UpdateState(func(s *chatState) { s.Turns++ })
		if err := rc.PublishStateDelta(); err != nil {
			return server.Outcome{}, err
		}
		return server.Success(), rc.Say("Hello, " + rc.LastUserText())
	})
}

// slowAgent starts a reply, says so on started and waits: for release (it
// then ends the reply) or for its run to be cancelled.
type slowAgent struct {
	started chan string   // the run id, once its first words are out
	release chan struct{} // closed: every waiting run finishes
	mu      sync.Mutex
	causes  map[string]error // run id → why it was cancelled
}

func newSlow() *slowAgent {
	return &slowAgent{started: make(chan string, 8), release: make(chan struct{}), causes: map[string]error{}}
}

func (a *slowAgent) Run(ctx context.Context, rc *server.RunContext[server.NoState]) (server.Outcome, error) {
	m, err := rc.StartTextMessage()
	if err != nil {
		return server.Outcome{}, err
	}
	if err := m.Append("Once upon a time"); err != nil {
		return server.Outcome{}, err
	}
	a.started <- rc.RunID()
	select {
	case <-a.release:
		return server.Success(), m.End()
	case <-ctx.Done():
		a.mu.Lock()
		a.causes[rc.RunID()] = context.Cause(ctx)
		a.mu.Unlock()
		if err := m.End(); err != nil {
			return server.Outcome{}, err
		}
		return server.Cancelled(), nil
	}
}

func (a *slowAgent) cause(runID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.causes[runID]
}

func durable() []server.HandlerOption {
	return []server.HandlerOption{
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll}),
	}
}

// newRuntime serves agents "chat" and "slow" under /ck.
func newRuntime(t testing.TB, slow *slowAgent, opts ...copilotkit.Option) http.Handler {
	t.Helper()
	rt, err := copilotkit.New([]copilotkit.Agent{
		{ID: "chat", Description: "Says hello", Handler: server.NewHandler(chatAgent(), durable()...),
			Capabilities: &agui.AgentCapabilities{State: &agui.StateCapabilities{Deltas: new(true)}}},
		{ID: "slow", Description: "Takes its time", Handler: server.NewHandler[server.NoState](slow, durable()...)},
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	copilotkit.Mount(mux, "/ck", rt)
	return mux
}

func runInput(thread, run, text string) string {
	return `{"threadId":"` + thread + `","runId":"` + run + `","state":{},"messages":[{"id":"m-` + run + `","role":"user","content":"` + text + `"}],"tools":[],"context":[],"forwardedProps":{}}`
}

func post(h http.Handler, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// events reads the events of an SSE body.
func events(t testing.TB, body string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for line := range strings.SplitSeq(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func types(evs []map[string]any) []string {
	var ts []string
	for _, ev := range evs {
		ts = append(ts, ev["type"].(string))
	}
	return ts
}

func TestNewRefuses(t *testing.T) {
	h := http.NotFoundHandler()
	for _, tc := range []struct {
		name   string
		agents []copilotkit.Agent
		want   string
	}{
		{"no id", []copilotkit.Agent{{Handler: h}}, "has no id"},
		{"no handler", []copilotkit.Agent{{ID: "a"}}, "has no handler"},
		{"twice", []copilotkit.Agent{{ID: "a", Handler: h}, {ID: "a", Handler: h}}, "two agents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := copilotkit.New(tc.agents); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestInfo: both forms answer the same runtime info, in the shape the
// client reads (agents by id, with their capabilities) and with the
// features this runtime does not serve off.
func TestInfo(t *testing.T) {
	h := newRuntime(t, newSlow())
	get := httptest.NewRecorder()
	h.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "/ck/info", nil))
	env := post(h, "/ck", `{"method":"info"}`)
	for name, rec := range map[string]*httptest.ResponseRecorder{"GET /info": get, "envelope": env} {
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
		}
		var info struct {
			Version string `json:"version"`
			Mode    string `json:"mode"`
			Agents  map[string]struct {
				Name, Description string
				Capabilities      map[string]any
			} `json:"agents"`
			Suggestions     bool `json:"suggestions"`
			ThreadEndpoints map[string]bool
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &info); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if info.Version != copilotkit.RuntimeVersion || info.Mode != "sse" || info.Suggestions || info.ThreadEndpoints["list"] {
			t.Errorf("%s: %s", name, rec.Body)
		}
		if c := info.Agents["chat"]; c.Name != "chat" || c.Description != "Says hello" || c.Capabilities["state"] == nil {
			t.Errorf("%s: chat is %+v", name, c)
		}
		if s := info.Agents["slow"]; s.Description != "Takes its time" || s.Capabilities != nil {
			t.Errorf("%s: slow is %+v", name, s)
		}
	}
	if get.Body.String() != env.Body.String() {
		t.Errorf("the forms answer different infos:\n%s\n%s", get.Body, env.Body)
	}
}

// TestRefusals: whatever is wrong with a request, the answer is a 4xx (or
// 501) with the JSON error body, and the top-level message the client
// shows.
func TestRefusals(t *testing.T) {
	denied := errors.New("not yours")
	h := newRuntime(t, newSlow(), copilotkit.WithAuthorize(func(r *http.Request, agentID string) error {
		if r.Header.Get("X-User") == "mallory" {
			return denied
		}
		return nil
	}))
	for _, tc := range []struct {
		name, method, path, ct, body string
		header                       string
		status                       int
		code                         string
	}{
		{"unknown agent, route", "POST", "/ck/agent/nope/run", "application/json", runInput("t", "r", "hi"), "", 404, "AGENT_NOT_FOUND"},
		{"unknown agent, envelope", "POST", "/ck", "application/json", `{"method":"agent/run","params":{"agentId":"nope"},"body":{}}`, "", 404, "AGENT_NOT_FOUND"},
		{"unknown method", "POST", "/ck", "application/json", `{"method":"agent/fly"}`, "", 400, "UNKNOWN_METHOD"},
		{"method not served", "POST", "/ck", "application/json", `{"method":"agent/suggest","params":{"agentId":"chat"}}`, "", 501, "NOT_IMPLEMENTED"},
		{"no method", "POST", "/ck", "application/json", `{"params":{}}`, "", 400, "INVALID_INPUT"},
		{"method not a string", "POST", "/ck", "application/json", `{"method":7}`, "", 400, "INVALID_INPUT"},
		{"not JSON", "POST", "/ck", "application/json", `{"method":`, "", 400, "INVALID_INPUT"},
		{"an array", "POST", "/ck", "application/json", `[]`, "", 400, "INVALID_INPUT"},
		{"params not an object", "POST", "/ck", "application/json", `{"method":"agent/run","params":"chat","body":{}}`, "", 400, "INVALID_INPUT"},
		{"no agent id", "POST", "/ck", "application/json", `{"method":"agent/run","body":{}}`, "", 400, "INVALID_INPUT"},
		{"no body", "POST", "/ck", "application/json", `{"method":"agent/run","params":{"agentId":"chat"}}`, "", 400, "INVALID_INPUT"},
		{"stop without thread", "POST", "/ck", "application/json", `{"method":"agent/stop","params":{"agentId":"chat"}}`, "", 400, "INVALID_INPUT"},
		{"not json", "POST", "/ck", "text/plain", `{"method":"info"}`, "", 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"GET a run", "GET", "/ck/agent/chat/run", "", "", "", 405, "METHOD_NOT_ALLOWED"},
		{"POST info", "POST", "/ck/info", "application/json", `{}`, "", 405, "METHOD_NOT_ALLOWED"},
		{"GET elsewhere", "GET", "/ck/elsewhere", "", "", "", 404, "NOT_FOUND"},
		{"escaped unknown agent", "POST", "/ck/agent/ch%2Fat/run", "application/json", runInput("t", "r", "hi"), "", 404, "AGENT_NOT_FOUND"},
		{"bad input", "POST", "/ck/agent/chat/run", "application/json", `{"threadId":1}`, "", 400, "INVALID_INPUT"},
		{"bad connect", "POST", "/ck/agent/chat/connect", "application/json", `{"runId":"r"}`, "", 400, "INVALID_INPUT"},
		{"bad stop", "POST", "/ck/agent/chat/stop/t", "application/json", `{"runId":""}`, "", 400, "INVALID_INPUT"},
		{"stop body not an object", "POST", "/ck/agent/chat/stop/t", "application/json", `[1]`, "", 400, "INVALID_INPUT"},
		{"refused", "POST", "/ck/agent/chat/run", "application/json", runInput("t", "r", "hi"), "mallory", 403, "FORBIDDEN"},
		{"refused info", "GET", "/ck/info", "", "", "mallory", 403, "FORBIDDEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.ct != "" {
				req.Header.Set("Content-Type", tc.ct)
			}
			if tc.header != "" {
				req.Header.Set("X-User", tc.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var body struct {
				Error struct{ Code, Message string }
			}
			if rec.Code != tc.status || json.Unmarshal(rec.Body.Bytes(), &body) != nil || body.Error.Code != tc.code || body.Error.Message == "" {
				t.Fatalf("%d %s, want %d with code %s", rec.Code, rec.Body, tc.status, tc.code)
			}
			if tc.status == 405 && rec.Header().Get("Allow") == "" {
				t.Error("a 405 without Allow")
			}
		})
	}
}

// TestRunBothForms: a run through either form is the agent's stream,
// its first state event a STATE_DELTA, declared 1.0 for an input that
// declares no version (the pinned client's).
func TestRunBothForms(t *testing.T) {
	h := newRuntime(t, newSlow())
	for name, rec := range map[string]*httptest.ResponseRecorder{
		"route":    post(h, "/ck/agent/chat/run", runInput("t1", "r1", "Ada")),
		"envelope": post(h, "/ck", `{"method":"agent/run","params":{"agentId":"chat"},"body":`+runInput("t2", "r2", "Ada")+`}`),
	} {
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			t.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
		}
		evs := events(t, rec.Body.String())
		want := []string{"RUN_STARTED", "STATE_DELTA", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"}
		if got := types(evs); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("%s: %v, want %v", name, got, want)
		}
		if v := evs[0]["protocolVersion"]; v != nil && v != "1.0" {
			t.Errorf("%s: a 1.0 consumer got protocolVersion %v", name, v)
		}
		if evs[3]["delta"] != "Hello, Ada" {
			t.Errorf("%s: said %v", name, evs[3]["delta"])
		}
	}
}

// TestConnect: a thread nothing ran on is an empty stream; one that ran is
// its history as one replayed run, state included (from a STATE_DELTA on
// nothing).
func TestConnect(t *testing.T) {
	h := newRuntime(t, newSlow())
	for _, path := range []string{"/ck/agent/chat/connect", "/ck"} {
		body := `{"threadId":"never","runId":"x","messages":[],"state":{},"tools":[],"context":[]}`
		if path == "/ck" {
			body = `{"method":"agent/connect","params":{"agentId":"chat"},"body":` + body + `}`
		}
		rec := post(h, path, body)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") || rec.Body.Len() != 0 {
			t.Fatalf("%s, unknown thread: %d %q %q", path, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
	}
	if rec := post(h, "/ck/agent/chat/run", runInput("t", "r1", "Ada")); rec.Code != http.StatusOK {
		t.Fatal(rec.Code, rec.Body)
	}
	rec := post(h, "/ck/agent/chat/connect", `{"threadId":"t","runId":"x","messages":[]}`)
	evs := events(t, rec.Body.String())
	if got := strings.Join(types(evs), " "); got != "RUN_STARTED MESSAGES_SNAPSHOT STATE_SNAPSHOT RUN_FINISHED" {
		t.Fatalf("connect: %s\n%s", got, rec.Body)
	}
	msgs := evs[1]["messages"].([]any)
	if len(msgs) != 2 || msgs[1].(map[string]any)["content"] != "Hello, Ada" {
		t.Errorf("connect: messages %v", msgs)
	}
	if s := evs[2]["snapshot"].(map[string]any); s["turns"] != float64(1) {
		t.Errorf("connect: state %v", s)
	}
}

// stopAnswer is what a stop answers.
type stopAnswer struct {
	Stopped   bool   `json:"stopped"`
	Message   string `json:"message"`
	RunID     string `json:"runId"`
	Interrupt *struct {
		Type, Code string
	} `json:"interrupt"`
}

func stop(t *testing.T, h http.Handler, path, body string) stopAnswer {
	t.Helper()
	rec := post(h, path, body)
	var a stopAnswer
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &a) != nil {
		t.Fatalf("stop %s %s: %d %s", path, body, rec.Code, rec.Body)
	}
	return a
}

// TestStop: a stop reaches the thread's live run, and only it: not a run
// the client names that is not the live one, not a thread with no live
// run, not the next run on the thread. A client following the run (a
// reloaded page's connect) sees it end with RUN_ERROR "abort", the words
// its client knows; the agent's own handler says RUN_FINISHED cancelled.
func TestStop(t *testing.T) {
	slow := newSlow()
	srv := httptest.NewServer(newRuntime(t, slow))
	defer srv.Close()
	h := srv.Config.Handler

	if a := stop(t, h, "/ck/agent/slow/stop/nothing", ""); a.Stopped {
		t.Errorf("stopped a thread with no run: %+v", a)
	}

	// run r1, followed by a connect from a second page.
	type result struct {
		body string
		err  error
	}
	runOn := func(path, body string) chan result {
		ch := make(chan result, 1)
		go func() {
			resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
			if err != nil {
				ch <- result{err: err}
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			ch <- result{string(b), err}
		}()
		return ch
	}
	first := runOn("/ck/agent/slow/run", runInput("t", "r1", "story"))
	if id := <-slow.started; id != "r1" {
		t.Fatalf("started %s", id)
	}
	// The second page's connect: its replayed run, then the live one. The
	// stop waits until the stream is past the replay, following r1.
	follow := make(chan result, 1)
	following := make(chan struct{})
	go func() {
		resp, err := http.Post(srv.URL+"/ck/agent/slow/connect", "application/json", strings.NewReader(`{"threadId":"t","runId":"x","messages":[]}`))
		if err != nil {
			close(following)
			follow <- result{err: err}
			return
		}
		defer resp.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		replayed := false
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if !replayed && strings.Contains(sc.Text(), `"type":"RUN_FINISHED"`) {
				replayed = true
				close(following)
			}
		}
		if !replayed {
			close(following)
		}
		follow <- result{b.String(), sc.Err()}
	}()
	<-following

	if a := stop(t, h, "/ck/agent/slow/stop/t", `{"runId":"r0"}`); a.Stopped {
		t.Errorf("a stop naming another run stopped this one: %+v", a)
	}
	if a := stop(t, h, "/ck", `{"method":"agent/stop","params":{"agentId":"slow","threadId":"t"},"body":{"runId":"r1"}}`); !a.Stopped || a.RunID != "r1" || a.Interrupt == nil || a.Interrupt.Code != "abort" {
		t.Errorf("stop r1: %+v", a)
	}
	for _, ch := range []chan result{first, follow} {
		select {
		case r := <-ch:
			if r.err != nil {
				t.Fatal(r.err)
			}
			evs := events(t, r.body)
			last := evs[len(evs)-1]
			if last["type"] != "RUN_ERROR" || last["code"] != "abort" {
				t.Errorf("the stopped run ends %v\n%s", last, r.body)
			}
		case <-time.After(giveUp):
			t.Fatal("the stopped run's streams did not end")
		}
	}
	if c := slow.cause("r1"); !errors.Is(c, server.ErrCancelRequested) {
		t.Errorf("r1 was cancelled by %v", c)
	}
	if a := stop(t, h, "/ck/agent/slow/stop/t", `{"runId":"r1"}`); a.Stopped {
		t.Errorf("stopped r1 twice: %+v", a)
	}

	// r2, the next run on the thread: a stop meant for r1 does not reach it.
	second := runOn("/ck/agent/slow/run", runInput("t", "r2", "story"))
	if id := <-slow.started; id != "r2" {
		t.Fatalf("started %s", id)
	}
	if a := stop(t, h, "/ck/agent/slow/stop/t", `{"runId":"r1"}`); a.Stopped {
		t.Errorf("a stop for r1 stopped r2: %+v", a)
	}
	close(slow.release)
	r := <-second
	evs := events(t, r.body)
	if last := evs[len(evs)-1]; last["type"] != "RUN_FINISHED" || slow.cause("r2") != nil {
		t.Errorf("r2 ends %v (cancelled by %v)", last, slow.cause("r2"))
	}
}

// TestCORS: preflights from an allowed origin are answered, others
// refused; answers to an allowed origin carry the header.
func TestCORS(t *testing.T) {
	h := newRuntime(t, newSlow(), copilotkit.WithCORS("http://app.test"))
	for _, tc := range []struct {
		origin string
		status int
	}{{"http://app.test", 204}, {"http://evil.test", 403}, {"", 204}} {
		req := httptest.NewRequest(http.MethodOptions, "/ck/agent/chat/run", nil)
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("preflight from %q: %d %s", tc.origin, rec.Code, rec.Body)
		}
		if tc.status == 204 && tc.origin != "" && (rec.Header().Get("Access-Control-Allow-Origin") != tc.origin || rec.Header().Get("Access-Control-Allow-Headers") != "content-type") {
			t.Errorf("preflight from %q: headers %v", tc.origin, rec.Header())
		}
	}
	req := httptest.NewRequest(http.MethodGet, "/ck/info", nil)
	req.Header.Set("Origin", "http://app.test")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Header().Get("Access-Control-Allow-Origin") != "http://app.test" {
		t.Errorf("info to an allowed origin: headers %v", rec.Header())
	}
}

// TestAgentHooksSeeTheClient: connect and stop reach the agent's own
// hooks (the thread's and the durable runs' Authorize) with the headers
// the client sent, and a refusal there reaches the client as it is.
func TestAgentHooksSeeTheClient(t *testing.T) {
	owner := func(r *http.Request, threadID, runID string) error {
		if r.Header.Get("X-User") != "ada" {
			return errors.New("not your thread")
		}
		return nil
	}
	h := server.NewHandler(chatAgent(),
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: owner, Detach: time.Minute}),
		server.WithThreads(server.ThreadConfig{Authorize: owner}))
	rt, err := copilotkit.New([]copilotkit.Agent{{ID: "chat", Handler: h}})
	if err != nil {
		t.Fatal(err)
	}
	if rec := post(rt, "/ck/agent/chat/run", runInput("t", "r1", "Ada")); rec.Code != http.StatusOK {
		t.Fatal(rec.Code, rec.Body)
	}
	for _, tc := range []struct {
		user, path, body string
		status           int
	}{
		{"ada", "/ck/agent/chat/connect", `{"threadId":"t"}`, 200},
		{"bob", "/ck/agent/chat/connect", `{"threadId":"t"}`, 403},
		{"ada", "/ck/agent/chat/stop/t", ``, 200},
		{"bob", "/ck/agent/chat/stop/t", ``, 403},
	} {
		req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User", tc.user)
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("%s as %s: %d %s, want %d", tc.path, tc.user, rec.Code, rec.Body, tc.status)
		}
		if tc.status == 403 && !strings.Contains(rec.Body.String(), `"code":"FORBIDDEN"`) {
			t.Errorf("%s as %s: %s", tc.path, tc.user, rec.Body)
		}
	}
}

// TestResumeUnderTheInterruptedRunsID: CopilotKit's useInterrupt answers an
// interrupt under the id of the run that asked. The runtime runs that
// resume under a new id, in both forms, while a run that reuses an id
// without resuming is still refused (409), as the agent handler refuses it.
func TestResumeUnderTheInterruptedRunsID(t *testing.T) {
	asker := server.AgentFunc[server.NoState](func(ctx context.Context, rc *server.RunContext[server.NoState]) (server.Outcome, error) {
		if len(rc.Resume()) > 0 {
			return server.Success(), rc.Say("Booked.")
		}
		return server.Interrupted(server.NewInterrupt("approval", "Book it?")), nil
	})
	rt, err := copilotkit.New([]copilotkit.Agent{{ID: "ask", Handler: server.NewHandler(asker, durable()...)}}, copilotkit.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	h := http.NewServeMux()
	copilotkit.Mount(h, "/ck", rt)
	for _, form := range []string{"route", "envelope"} {
		t.Run(form, func(t *testing.T) {
			thread, run := "t-"+form, "r-"+form
			send := func(body string) *httptest.ResponseRecorder {
				if form == "route" {
					return post(h, "/ck/agent/ask/run", body)
				}
				return post(h, "/ck", `{"method":"agent/run","params":{"agentId":"ask"},"body":`+body+`}`)
			}
			first := events(t, send(runInput(thread, run, "book")).Body.String())
			fin := first[len(first)-1]
			outcome, _ := fin["outcome"].(map[string]any)
			ints, _ := outcome["interrupts"].([]any)
			if fin["type"] != "RUN_FINISHED" || len(ints) != 1 {
				t.Fatalf("the first run ended %v", fin)
			}
			id := ints[0].(map[string]any)["id"].(string)
			resume := strings.TrimSuffix(runInput(thread, run, "book"), "}") + `,"resume":[{"interruptId":"` + id + `","status":"resolved","payload":{}}]}`
			rec := send(resume)
			if rec.Code != http.StatusOK {
				t.Fatalf("the resume under the interrupted run's id: %d %s", rec.Code, rec.Body)
			}
			evs := events(t, rec.Body.String())
			if got := evs[0]["runId"]; got == run || got == "" || got == nil {
				t.Errorf("the resume ran under run id %v", got)
			}
			if last := evs[len(evs)-1]; last["type"] != "RUN_FINISHED" || last["runId"] != evs[0]["runId"] {
				t.Errorf("the resume ended %v", last)
			}
			if rec := send(runInput(thread, run, "again")); rec.Code != http.StatusConflict {
				t.Errorf("a reused run id without a resume: %d %s, want 409", rec.Code, rec.Body)
			}
		})
	}
}
