package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/verify"
	"go.uber.org/goleak"
)

// sseServer answers every request with these SSE data documents, then
// ends the body.
func sseServer(t *testing.T, docs ...string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, d := range docs {
			fmt.Fprintf(w, "data: %s\n\n", d)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// breaksRule is a stream whose event 2 breaks not-open in both profiles.
var breaksRule = []string{
	`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"hi"}`,
	`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
	`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
}

// stoppedRun is a run cancelled while its message was open.
var stoppedRun = []string{
	`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}`,
	`{"type":"RUN_ERROR","code":"CANCELLED","message":"run cancelled by request"}`,
}

// badServers are the answers that are not an AG-UI run, by name.
func badServers(t *testing.T) map[string]string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + ln.Addr().String() + "/agent"
	ln.Close() // nothing listens there any more
	handler := func(status int, ct, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	return map[string]string{
		"unreachable": unreachable,
		"json":        handler(200, "application/json", `{"answer":"I am a REST API"}`),
		"html":        handler(502, "text/html; charset=utf-8", "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"),
		"truncated":   sseServer(t, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`),
		"empty":       sseServer(t),
		"not json":    sseServer(t, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, `<b>oops</b>`),
	}
}

func TestInspectCheck(t *testing.T) {
	noLeaks(t)
	url := demoURL(t)
	bad := badServers(t)
	dir := t.TempDir()
	input := filepath.Join(dir, "input.json")
	os.WriteFile(input, []byte(`{"threadId":"th","messages":[{"id":"u","role":"user","content":"weather?"}]}`), 0o644)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"demo tour", []string{"--check", url, "--input", input}, ExitOK,
			[]string{"events (SSE)", "client profile: valid (protocol 1.1)", "server profile: valid (protocol 1.1)"}, nil},
		{"demo over protobuf", []string{"--check", url, "--message", "hello", "--proto"}, ExitOK,
			[]string{"events (protobuf)", "client profile: valid", "server profile: valid"}, nil},
		{"a broken rule", []string{"--check", sseServer(t, breaksRule...), "--message", "x"}, ExitRejected,
			[]string{"client profile: rejected at event 2 of 5 (TEXT_MESSAGE_CONTENT", "server profile: rejected at event 2 of 5", "not-open", "content and terminators require a matching start"}, nil},
		{"cancelled", []string{"--check", sseServer(t, stoppedRun...), "--message", "x"}, ExitOK,
			[]string{"client profile: valid", "server profile: valid"}, []string{"cancelled: the run ended with RUN_ERROR CANCELLED: run cancelled by request"}},
		{"truncated", []string{"--check", bad["truncated"], "--message", "x"}, ExitRejected,
			[]string{"client profile: rejected at the end of the stream, after 2 events", "server profile: rejected at the end"}, nil},
		{"unreachable", []string{"--check", bad["unreachable"], "--message", "x"}, ExitUsage,
			nil, []string{"cannot reach " + bad["unreachable"], "connection refused"}},
		{"not AG-UI", []string{"--check", bad["json"], "--message", "x"}, ExitUsage,
			nil, []string{`not an AG-UI stream: the answer's Content-Type is "application/json"`, "I am a REST API"}},
		{"HTML error page", []string{"--check", bad["html"], "--message", "x"}, ExitUsage,
			nil, []string{`HTTP 502 Bad Gateway with an HTML error page (title "502 Bad Gateway")`}},
		{"empty", []string{"--check", bad["empty"], "--message", "x"}, ExitUsage,
			nil, []string{"the answer held no events at all"}},
		{"usage: URL twice", []string{"--check", url, url}, ExitUsage, nil, []string{"one too many"}},
		{"usage: --json without --check", []string{"--json"}, ExitUsage, nil, []string{"go with --check"}},
		{"usage: not a URL", []string{"--check", "localhost:1"}, ExitUsage, nil, []string{"must start with http://"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"inspect"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, &stdout, &stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, &stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, &stderr)
				}
			}
		})
	}
}

// TestInspectCheckJSONMatchesVerify: --check --json's verdicts are agui
// verify --json's verdicts of the same stream, profile by profile.
func TestInspectCheckJSONMatchesVerify(t *testing.T) {
	noLeaks(t)
	for name, docs := range map[string][]string{
		"broken rule": breaksRule,
		"truncated":   breaksRule[:2],
		"valid":       {breaksRule[0], breaksRule[4]},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main([]string{"inspect", "--check", sseServer(t, docs...), "--message", "x", "--json"}, strings.NewReader(""), &stdout, &stderr)
			var cv checkVerdict
			if err := json.Unmarshal(stdout.Bytes(), &cv); err != nil {
				t.Fatalf("stdout is not one JSON object: %v\n%s", err, &stdout)
			}
			capture := strings.Join(docs, "\n") + "\n"
			worst := ExitOK
			for profile, got := range map[string]verdict{"client": cv.Client, "server": cv.Server} {
				var vout bytes.Buffer
				vcode := Main([]string{"verify", "--json", "--profile", profile}, strings.NewReader(capture), &vout, io.Discard)
				worst = max(worst, vcode)
				var want verdict
				json.Unmarshal(vout.Bytes(), &want)
				if got.OK != want.OK || got.Rule != want.Rule || got.Index != want.Index || got.Message != want.Message || got.Protocol != want.Protocol {
					t.Errorf("%s profile: inspect says %+v, verify says %+v", profile, got, want)
				}
			}
			if code != worst {
				t.Errorf("inspect exits %d, verify's worst profile %d", code, worst)
			}
		})
	}
}

// inspectAPI serves an inspector for a test and returns its URL.
func inspectAPI(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(newInspector(ctx, target{}).handler())
	t.Cleanup(func() { cancel(); srv.Close() })
	return srv.URL
}

func postJSON(t *testing.T, url string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]any
	json.NewDecoder(resp.Body).Decode(&doc)
	return resp.StatusCode, doc
}

// finished waits for a session to end and returns its page.
func finished(t *testing.T, api, id string) framesPage {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(api + "/api/sessions/" + id + "?wait=1")
		if err != nil {
			t.Fatal(err)
		}
		var p framesPage
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if p.Done {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s not done after 30s", id)
		}
	}
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	json.NewDecoder(resp.Body).Decode(v)
	return resp.StatusCode
}

// TestInspectBadInput: each answer that is not a run is said in words on
// the session (the page shows problem and end), never an empty session.
func TestInspectBadInput(t *testing.T) {
	noLeaks(t)
	api := inspectAPI(t)
	bad := badServers(t)
	tests := []struct {
		server  string
		problem string // substring of the problem; "" for none
		end     string // rule of a finding at the end of the stream
		frame   int    // frame with a rejection, -1 for none
	}{
		{"unreachable", "cannot reach", "", -1},
		{"json", "not an AG-UI stream", "", -1},
		{"html", `HTML error page (title "502 Bad Gateway")`, "", -1},
		{"empty", "no events at all", "", -1},
		{"truncated", "", "truncated", -1},
		{"not json", "", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			code, doc := postJSON(t, api+"/api/runs", map[string]any{"url": bad[tt.server], "input": map[string]any{}})
			if code != 200 {
				t.Fatalf("POST /api/runs: %d %v", code, doc)
			}
			p := finished(t, api, doc["id"].(string))
			if tt.problem == "" && p.Problem != "" || !strings.Contains(p.Problem, tt.problem) {
				t.Errorf("problem %q, want %q", p.Problem, tt.problem)
			}
			if tt.end != "" && (len(p.End) == 0 || p.End[0].Rule != tt.end || p.End[0].Description == "") {
				t.Errorf("end findings %+v, want rule %s with its description", p.End, tt.end)
			}
			if tt.frame >= 0 && (tt.frame >= len(p.Frames) || p.Frames[tt.frame].Errors == 0) {
				t.Errorf("frames %+v: want a rejection on frame %d", p.Frames, tt.frame)
			}
		})
	}
	// Requests the page cannot make are 400s with the JSON error body.
	for name, body := range map[string]any{
		"no URL":        map[string]any{"input": map[string]any{}},
		"bad header":    map[string]any{"url": "http://x", "headers": []string{"nocolon"}},
		"bad input":     map[string]any{"url": "http://x", "input": map[string]any{"messages": 3}},
		"reattach bare": map[string]any{"url": "http://x"},
	} {
		path := "/api/runs"
		if name == "reattach bare" {
			path = "/api/reattach"
		}
		code, doc := postJSON(t, api+path, body)
		e, _ := doc["error"].(map[string]any)
		if code != 400 || e == nil || e["message"] == "" {
			t.Errorf("%s: %d %v, want 400 with an error body", name, code, doc)
		}
	}
}

// TestInspectFindingsPinned: a stream breaking a rule has the finding of
// each profile on the event that broke it, with the rule's description.
func TestInspectFindingsPinned(t *testing.T) {
	noLeaks(t)
	api := inspectAPI(t)
	_, doc := postJSON(t, api+"/api/runs", map[string]any{"url": sseServer(t, breaksRule...)})
	id := doc["id"].(string)
	p := finished(t, api, id)
	for i, f := range p.Frames {
		if (f.Errors > 0) != (i == 2) {
			t.Errorf("frame %d has %d rejections", i, f.Errors)
		}
	}
	var d frameDetail
	getJSON(t, api+"/api/sessions/"+id+"/frames/2", &d)
	got := map[string]bool{}
	for _, f := range d.Findings {
		if f.Severity == "error" && f.Rule == "not-open" && f.Description == verify.NotOpen.Describe() {
			got[f.Source] = true
		}
	}
	if !got[srcClient] || !got[srcServer] {
		t.Errorf("frame 2's findings %+v: want not-open from both profiles with its description", d.Findings)
	}
	if p.Verdicts["client"].Rule != "not-open" || p.Verdicts["server"].Index != 2 {
		t.Errorf("verdicts %+v", p.Verdicts)
	}
}

// TestInspectStateAfterEachEvent: the state and messages the page is given
// after event n are what agui/conversation builds from the delivered events
// up to n, computed here independently from the exported capture; the
// export is what agui verify accepts; its import gives the same frames.
func TestInspectStateAfterEachEvent(t *testing.T) {
	noLeaks(t)
	api := inspectAPI(t)
	_, doc := postJSON(t, api+"/api/runs", map[string]any{"url": demoURL(t), "input": map[string]any{
		"threadId": "th", "messages": []any{map[string]any{"id": "u", "role": "user", "content": "weather?"}}}})
	id := doc["id"].(string)
	p := finished(t, api, id)
	if p.Problem != "" || !p.Verdicts["client"].OK || !p.Verdicts["server"].OK || len(p.Frames) < 20 {
		t.Fatalf("the demo's tour: %+v", p)
	}
	resp, err := http.Get(api + "/api/sessions/" + id + "/export")
	if err != nil {
		t.Fatal(err)
	}
	export, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var vout bytes.Buffer
	if code := Main([]string{"verify", "--profile", "server"}, bytes.NewReader(export), &vout, io.Discard); code != ExitOK {
		t.Errorf("agui verify of the export: exit %d: %s", code, &vout)
	}

	// Independently: the client pipeline and the reducer over the export.
	lines := bytes.Split(bytes.TrimSpace(export), []byte("\n"))
	if len(lines) != len(p.Frames) {
		t.Fatalf("export has %d lines, the session %d frames", len(lines), len(p.Frames))
	}
	pipe, _ := client.NewPipeline()
	conv := conversation.New([]agui.Message{&agui.UserMessage{ID: "u", Content: agui.TextContent("weather?")}}, json.RawMessage("{}"))
	sawDelta := false
	for n, line := range lines {
		if err := pipe.Push(line, func(ev agui.Event) bool { conv.Apply(ev); return true }); err != nil {
			t.Fatal(err)
		}
		var d frameDetail
		getJSON(t, fmt.Sprintf("%s/api/sessions/%s/frames/%d", api, id, n), &d)
		if d.State != indentJSON(conv.State()) {
			t.Errorf("after event %d (%s) the page's state is\n%s\nthe reducer's\n%s", n, d.Type, d.State, indentJSON(conv.State()))
		}
		msgs, _ := json.Marshal(conv.Messages())
		if !jsonEqual(d.Messages, msgs) {
			t.Errorf("after event %d the page's messages are\n%s\nthe reducer's\n%s", n, d.Messages, msgs)
		}
		if d.Type == "STATE_DELTA" {
			sawDelta = true
			changed := false
			for _, l := range d.StateDiff {
				changed = changed || l.Op != " "
			}
			if !changed {
				t.Errorf("STATE_DELTA at %d shows no change: %+v", n, d.StateDiff)
			}
		}
	}
	if !sawDelta {
		t.Error("the tour had no STATE_DELTA")
	}

	// The import of the export is the same run.
	resp, err = http.Post(api+"/api/import?name=run.jsonl", "application/x-ndjson", bytes.NewReader(export))
	if err != nil {
		t.Fatal(err)
	}
	var imp map[string]string
	json.NewDecoder(resp.Body).Decode(&imp)
	resp.Body.Close()
	ip := finished(t, api, imp["id"])
	if len(ip.Frames) != len(p.Frames) || !ip.Verdicts["client"].OK || !ip.Verdicts["server"].OK {
		t.Errorf("import: %d frames, verdicts %+v; want %d frames, valid", len(ip.Frames), ip.Verdicts, len(p.Frames))
	}
	for i := range ip.Frames {
		if ip.Frames[i].Type != p.Frames[i].Type {
			t.Errorf("import frame %d is %s, the run's %s", i, ip.Frames[i].Type, p.Frames[i].Type)
		}
	}
	// An unreadable import is a 400 that says why.
	resp, err = http.Post(api+"/api/import?name=x.txt", "text/plain", strings.NewReader("hello world"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !bytes.Contains(b, []byte("cannot tell the format")) {
		t.Errorf("unreadable import: %d %s", resp.StatusCode, b)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// TestInspectResume: an interrupted run's answers make the next run, which
// the demo finishes with success.
func TestInspectResume(t *testing.T) {
	noLeaks(t)
	api := inspectAPI(t)
	_, doc := postJSON(t, api+"/api/runs", map[string]any{"url": demoURL(t), "input": map[string]any{
		"messages": []any{map[string]any{"id": "u", "role": "user", "content": "interrupt me"}}}})
	p := finished(t, api, doc["id"].(string))
	if p.Outcome != conversation.Interrupted.String() || len(p.Interrupts) == 0 {
		t.Fatalf("outcome %q, interrupts %v", p.Outcome, p.Interrupts)
	}
	code, bad := postJSON(t, api+"/api/sessions/"+p.ID+"/resume", map[string]any{"resume": []any{}})
	if code != 400 {
		t.Errorf("a resume answering nothing: %d %v, want 400", code, bad)
	}
	var entries []map[string]any
	for _, in := range p.Interrupts {
		entries = append(entries, map[string]any{"interruptId": in.ID, "status": "resolved"})
	}
	code, doc = postJSON(t, api+"/api/sessions/"+p.ID+"/resume", map[string]any{"resume": entries})
	if code != 200 {
		t.Fatalf("resume: %d %v", code, doc)
	}
	next := finished(t, api, doc["id"].(string))
	if next.Outcome != conversation.Succeeded.String() || next.Kind != kindResume || !next.Verdicts["server"].OK {
		t.Errorf("the resumed run: %+v", next)
	}
}

func TestLineDiff(t *testing.T) {
	tests := []struct {
		a, b string
		want string
	}{
		{"x", "x", " x"},
		{"a\nb\nc", "a\nc", " a-b c"},
		{"a\nc", "a\nb\nc", " a+b c"},
		{"", "a", "-+a"},
	}
	for _, tt := range tests {
		var got strings.Builder
		for _, l := range lineDiff(tt.a, tt.b) {
			got.WriteString(l.Op + l.Text)
		}
		if got.String() != tt.want {
			t.Errorf("lineDiff(%q, %q) = %q, want %q", tt.a, tt.b, got.String(), tt.want)
		}
	}
}

// noLeaks checks, after every other cleanup of t (servers closed), that
// no goroutine of the test is left: idle keep-alive connections are closed
// first, as they are the HTTP client's and not a leak.
func noLeaks(t *testing.T) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		goleak.VerifyNone(t, before)
	})
}

// durableDemo serves the demo with durable runs at URL/agent.
func durableDemo(t *testing.T) string {
	t.Helper()
	h := demo.NewAgent(demo.Config{SlowDelay: 20 * time.Millisecond, SlowWords: 500})
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", server.NewHandler(h, server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/agent"
}

// TestInspectReattachAndCancel: a durable run is read again whole; a
// durable run is cancelled by the server, a plain one by aborting.
func TestInspectReattachAndCancel(t *testing.T) {
	noLeaks(t)
	api := inspectAPI(t)
	durable := durableDemo(t)
	_, doc := postJSON(t, api+"/api/runs", map[string]any{"url": durable, "input": map[string]any{"runId": "run-1",
		"messages": []any{map[string]any{"id": "u", "role": "user", "content": "hello"}}}})
	first := finished(t, api, doc["id"].(string))
	if !first.Durable || first.RunID != "run-1" {
		t.Fatalf("the durable run: %+v", first)
	}
	code, doc := postJSON(t, api+"/api/reattach", map[string]any{"url": durable, "runId": "run-1"})
	if code != 200 {
		t.Fatalf("reattach: %d %v", code, doc)
	}
	again := finished(t, api, doc["id"].(string))
	if again.Total != first.Total || again.Problem != "" || !again.Verdicts["server"].OK {
		t.Errorf("reattached: %d frames, problem %q, verdicts %+v; the run had %d", again.Total, again.Problem, again.Verdicts, first.Total)
	}
	for i := range again.Frames {
		if again.Frames[i].Type != first.Frames[i].Type {
			t.Errorf("frame %d: %s again, %s first", i, again.Frames[i].Type, first.Frames[i].Type)
		}
	}
	_, doc = postJSON(t, api+"/api/reattach", map[string]any{"url": durable, "runId": "no-such-run"})
	if p := finished(t, api, doc["id"].(string)); !strings.Contains(p.Problem, "HTTP 404") {
		t.Errorf("reattach to an unknown run: problem %q", p.Problem)
	}

	for _, tt := range []struct {
		name, url, note string
		outcome         string
	}{
		// The demo is cancelled inside a text message: the server ends the
		// run with RUN_ERROR CANCELLED, which is a cancellation, not a failure.
		{"durable: the server ends the run with RUN_ERROR CANCELLED", durable, "RUN_ERROR CANCELLED: run cancelled by request", conversation.Cancelled.String()},
		{"plain: the request is aborted", demoURL(t), "cancelled", conversation.Running.String()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, doc := postJSON(t, api+"/api/runs", map[string]any{"url": tt.url, "input": map[string]any{
				"messages": []any{map[string]any{"id": "u", "role": "user", "content": "slow please"}}}})
			id := doc["id"].(string)
			var p framesPage
			for p.Total < 5 { // the run is under way
				getJSON(t, api+"/api/sessions/"+id+"?wait=1&from="+fmt.Sprint(p.Total), &p)
			}
			code, res := postJSON(t, api+"/api/sessions/"+id+"/cancel", nil)
			if code != 200 {
				t.Fatalf("cancel: %d %v", code, res)
			}
			p = finished(t, api, id)
			if !strings.Contains(p.Note, tt.note) || p.Outcome != tt.outcome {
				t.Errorf("after cancel (%v): note %q, outcome %q; want %q, %q", res, p.Note, p.Outcome, tt.note, tt.outcome)
			}
		})
	}
}

// TestInspectWarningPinned: an event of a type the protocol does not
// define is dropped by the client with a warning on its frame, and
// rejected by the server profile there.
func TestInspectWarningPinned(t *testing.T) {
	noLeaks(t)
	api := inspectAPI(t)
	_, doc := postJSON(t, api+"/api/runs", map[string]any{"url": sseServer(t,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"FUTURE_THING","x":1}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)})
	id := doc["id"].(string)
	p := finished(t, api, id)
	if len(p.Frames) != 3 || p.Frames[1].Warnings == 0 || p.Frames[1].Errors == 0 || p.Frames[0].Warnings+p.Frames[2].Warnings != 0 {
		t.Fatalf("frames %+v", p.Frames)
	}
	var d frameDetail
	getJSON(t, api+"/api/sessions/"+id+"/frames/1", &d)
	var warned, rejected bool
	for _, f := range d.Findings {
		warned = warned || f.Source == srcClient && f.Severity == "warning" && strings.Contains(f.Message, "FUTURE_THING")
		rejected = rejected || f.Source == srcServer && f.Rule == "unknown-event" && f.Description != ""
	}
	if !warned || !rejected || len(d.Events) != 0 {
		t.Errorf("frame 1: findings %+v, delivered %s", d.Findings, d.Events)
	}
	if !p.Verdicts["client"].OK || p.Verdicts["server"].OK {
		t.Errorf("verdicts %+v: the client accepts the stream, the server profile does not", p.Verdicts)
	}
}

func TestSSEFrames(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer
	tests := []struct {
		name, in string
		data     []string
		ids      []string
	}{
		{"plain", "data: a\n\ndata: b\n\n", []string{"a", "b"}, []string{"", ""}},
		{"ids and comments", ": hi\n\nid: 7\ndata: a\n\n", []string{"a"}, []string{"7"}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}, []string{""}},
		{"CRLF", "data: a\r\n\r\n", []string{"a"}, []string{""}},
		{"no final blank line", "data: a\n\ndata: b", []string{"a", "b"}, []string{"", ""}},
		{"long line", "data: " + long + "\n\n", []string{long}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data, ids []string
			var raws strings.Builder
			err := sseFrames(strings.NewReader(tt.in), func(d []byte, raw, id string) {
				data, ids = append(data, string(d)), append(ids, id)
				raws.WriteString(raw)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(data, tt.data) || !slices.Equal(ids, tt.ids) {
				t.Errorf("data %.80q ids %q, want %.80q %q", data, ids, tt.data, tt.ids)
			}
			if raws.String() != tt.in {
				t.Errorf("the frames' raw text %.80q is not the input's %.80q", raws.String(), tt.in)
			}
		})
	}
	if err := sseFrames(strings.NewReader("data: "+strings.Repeat("y", maxEvent+1)), func([]byte, string, string) {}); err == nil {
		t.Error("a frame over the limit was read")
	}
}

// TestInspectImportRunCapture: what agui run --json prints imports as the
// run it was.
func TestInspectImportRunCapture(t *testing.T) {
	noLeaks(t)
	api := inspectAPI(t)
	var capture bytes.Buffer
	if code := Main([]string{"run", demoURL(t), "--message", "weather?", "--json"}, strings.NewReader(""), &capture, io.Discard); code != ExitOK {
		t.Fatalf("agui run exited %d", code)
	}
	lines := strings.Split(strings.TrimSpace(capture.String()), "\n")
	resp, err := http.Post(api+"/api/import?name=run.jsonl", "application/x-ndjson", &capture)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]string
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	p := finished(t, api, doc["id"])
	if p.Kind != kindImport || p.Total != len(lines) || p.Format != formatJSONLines || !p.Verdicts["client"].OK || !p.Verdicts["server"].OK || p.Outcome != conversation.Succeeded.String() {
		t.Errorf("the imported capture of %d events: %+v", len(lines), p)
	}
}

// TestInspectOutcomeOfRunError: a RUN_ERROR whose code is CANCELLED is a
// cancelled run on the page; any other RUN_ERROR is a failed one.
func TestInspectOutcomeOfRunError(t *testing.T) {
	api := inspectAPI(t)
	for _, tt := range []struct {
		name, terminal, outcome, note string
	}{
		{"cancelled", `{"type":"RUN_ERROR","code":"CANCELLED","message":"run cancelled by request"}`, conversation.Cancelled.String(), "cancelled: the run ended with RUN_ERROR CANCELLED: run cancelled by request"},
		{"agent error", `{"type":"RUN_ERROR","code":"AGENT_ERROR","message":"boom"}`, conversation.Failed.String(), ""},
		{"no code", `{"type":"RUN_ERROR","message":"boom"}`, conversation.Failed.String(), ""},
		{"finished cancelled", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"cancelled"}}`, conversation.Cancelled.String(), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			capture := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" + tt.terminal + "\n"
			resp, err := http.Post(api+"/api/import?name=run.jsonl", "application/x-ndjson", strings.NewReader(capture))
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]string
			json.NewDecoder(resp.Body).Decode(&doc)
			resp.Body.Close()
			p := finished(t, api, doc["id"])
			if p.Outcome != tt.outcome || p.Note != tt.note {
				t.Errorf("outcome %q, note %q; want %q, %q", p.Outcome, p.Note, tt.outcome, tt.note)
			}
		})
	}
}

// TestInspectPageIsSelfContained: the embedded page loads nothing from the
// network (it works offline) and every file it names is embedded.
func TestInspectPageIsSelfContained(t *testing.T) {
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?(https?:)?//|@import|import\s*\(|fetch\(\s*["']https?:`)
	local := regexp.MustCompile(`(?:src|href)="([^"#:]+)"`)
	entries, err := inspectUI.ReadDir("inspect_ui")
	if err != nil || len(entries) == 0 {
		t.Fatalf("embedded page: %v", err)
	}
	for _, e := range entries {
		b, _ := inspectUI.ReadFile("inspect_ui/" + e.Name())
		if m := external.Find(b); m != nil {
			t.Errorf("%s loads from the network: %q", e.Name(), m)
		}
		for _, m := range local.FindAllSubmatch(b, -1) {
			if _, err := inspectUI.ReadFile("inspect_ui/" + string(m[1])); err != nil {
				t.Errorf("%s names %s, which is not embedded", e.Name(), m[1])
			}
		}
	}
	// And the server serves them.
	api := inspectAPI(t)
	for _, path := range []string{"/", "/app.js", "/app.css"} {
		resp, err := http.Get(api + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
}

// TestInspectServes runs the command: it prints the page's URL and the
// proxy's, serves both until its context ends, then exits 0.
func TestInspectServes(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := inspectContext
	inspectContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { inspectContext = old }()
	agent := demoURL(t)
	var stdout, stderr syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- Main([]string{"inspect", "--proxy", "127.0.0.1:0", "--to", agent}, strings.NewReader(""), &stdout, &stderr)
	}()
	urlRE := regexp.MustCompile(`agui inspect: (http://127\.0\.0\.1:\d+/)\nagui inspect: proxy (http://127\.0\.0\.1:\d+/) → `)
	var m []string
	for deadline := time.Now().Add(30 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if m = urlRE.FindStringSubmatch(stdout.String()); m == nil && time.Now().After(deadline) {
			t.Fatalf("no URLs printed: %q %q", stdout.String(), stderr.String())
		}
	}
	page, proxy := m[1], m[2]
	var cfg map[string]any
	getJSON(t, page+"api/config", &cfg)
	if cfg["url"] != agent || cfg["proxy"] != proxy {
		t.Errorf("config %v", cfg)
	}
	resp, err := http.Post(proxy, "application/json", strings.NewReader(`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if p := lastSession(t, strings.TrimSuffix(page, "/")); p.Kind != kindProxy || p.Total == 0 {
		t.Errorf("the proxied run: %+v", p)
	}
	cancel()
	select {
	case code := <-exit:
		if code != ExitOK {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("agui inspect did not stop")
	}
	for _, args := range [][]string{{"--proxy", "127.0.0.1:0"}, {"--to", agent}, {"--check", agent, "--proxy", "127.0.0.1:0", "--to", agent}} {
		if code := Main(append([]string{"inspect"}, args...), strings.NewReader(""), io.Discard, io.Discard); code != ExitUsage {
			t.Errorf("inspect %v: exit %d, want %d", args, code, ExitUsage)
		}
	}
}
