// Package adaptertest holds the test support shared by the adapter modules
// (adapters/openai, adapters/anthropic, adapters/eino): a replay server
// standing in for the provider's API, an HTTP round trip through the AG-UI
// server checked by the server verifier, and a summary of an event stream.
// Where the providers differ (the error body, the SDK client) the adapter
// passes its own part in.
package adaptertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/agui/verify"
)

// Replay is a stand-in for a provider's API: each request gets the next
// recorded stream from testdata, and its body is kept for the test to check.
// Once the recorded streams run out it answers 500 with the provider's
// error body.
type Replay struct {
	Srv *httptest.Server
	// Paths are the URL paths of the requests received so far.
	Paths []string
	// Hold keeps the response open after the file was written, until the
	// client goes away; Aborted then receives when that was seen.
	Hold    bool
	Aborted chan time.Time

	t       testing.TB
	errBody string
	mu      sync.Mutex
	files   []string
	reqs    []map[string]any
}

// NewReplay starts a replay server serving files (under testdata) in turn;
// errBody is the JSON error the provider sends when there is nothing left.
func NewReplay(t testing.TB, errBody string, files ...string) *Replay {
	t.Helper()
	r := &Replay{t: t, errBody: errBody, files: files, Aborted: make(chan time.Time, 1)}
	r.Srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Srv.Close)
	return r
}

func (r *Replay) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var decoded map[string]any
	if err := json.Unmarshal(body, &decoded); err != nil {
		r.t.Errorf("request body is not JSON: %v\n%s", err, body)
	}
	r.mu.Lock()
	n := len(r.reqs)
	r.reqs = append(r.reqs, decoded)
	r.Paths = append(r.Paths, req.URL.Path)
	r.mu.Unlock()
	if n >= len(r.files) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, r.errBody)
		return
	}
	data, err := os.ReadFile(filepath.Join("testdata", r.files[n]))
	if err != nil {
		r.t.Error(err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.Write(data)
	w.(http.Flusher).Flush()
	if r.Hold {
		<-req.Context().Done()
		r.Aborted <- time.Now()
	}
}

// Requests returns the bodies received so far.
func (r *Replay) Requests() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.reqs...)
}

// RunHTTP posts input to the agent served over HTTP (a handler with opts)
// and returns the events of the stream, which the server verifier must
// accept whole. The verifier is seeded with the input's messages, as the
// handler's own is, so that a resumed run's TOOL_CALL_RESULT may answer a
// call an earlier run made.
func RunHTTP(t testing.TB, agent server.Agent[server.NoState], input string, opts ...server.HandlerOption) []agui.Event {
	t.Helper()
	srv := httptest.NewServer(server.NewHandler(agent, opts...))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", bytes.NewBufferString(input))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("HTTP %d: %s", resp.StatusCode, b)
	}
	var v verify.Server
	v.Seed(Decode(t, input).Messages)
	var docs [][]byte
	var events []agui.Event
	for frame, err := range sse.Frames(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		doc := bytes.Clone(frame)
		docs = append(docs, doc)
		ev, err := agui.DecodeEvent(doc)
		if err != nil {
			t.Fatalf("event %d: %v\n%s", len(events), err, doc)
		}
		if err := v.Observe(ev); err != nil {
			t.Fatalf("the server verifier rejects event %d (%s): %v\n%s", len(events), ev.Type(), err, bytes.Join(docs, []byte("\n")))
		}
		events = append(events, ev)
	}
	if err := v.Finish(); err != nil {
		t.Fatalf("the server verifier rejects the stream's end: %v\n%s", err, bytes.Join(docs, []byte("\n")))
	}
	return events
}

// Summary is what a stream says, in a form a test compares at a glance.
type Summary struct {
	Types    []string
	Text     map[string]string // messageId → text
	Args     map[string]string // toolCallId → arguments
	Names    map[string]string // toolCallId → name
	Parents  map[string]string // toolCallId → parentMessageId
	Results  map[string]string // toolCallId → result content
	Thoughts []string          // reasoning messages' text
	Secrets  map[string]string // entityId → encrypted value
	Finished *agui.RunFinished
	Failed   *agui.RunError
}

// Summarize gathers the events into a Summary.
func Summarize(events []agui.Event) Summary {
	s := Summary{Text: map[string]string{}, Args: map[string]string{}, Names: map[string]string{},
		Parents: map[string]string{}, Results: map[string]string{}, Secrets: map[string]string{}}
	thought := map[string]int{}
	for _, ev := range events {
		s.Types = append(s.Types, string(ev.Type()))
		switch ev := ev.(type) { //agui:nonexhaustive a summary keeps what the tests compare
		case *agui.TextMessageContent:
			s.Text[ev.MessageID] += ev.Delta
		case *agui.ToolCallStart:
			s.Names[ev.ToolCallID] = ev.ToolCallName
			if ev.ParentMessageID != nil {
				s.Parents[ev.ToolCallID] = *ev.ParentMessageID
			}
		case *agui.ToolCallArgs:
			s.Args[ev.ToolCallID] += ev.Delta
		case *agui.ToolCallResult:
			s.Results[ev.ToolCallID] = ev.Content.String()
		case *agui.ReasoningMessageStart:
			thought[ev.MessageID] = len(s.Thoughts)
			s.Thoughts = append(s.Thoughts, "")
		case *agui.ReasoningMessageContent:
			s.Thoughts[thought[ev.MessageID]] += ev.Delta
		case *agui.ReasoningEncryptedValue:
			s.Secrets[ev.EntityID] = ev.EncryptedValue
		case *agui.RunFinished:
			s.Finished = ev
		case *agui.RunError:
			s.Failed = ev
		}
	}
	return s
}

// Count returns how many events of type typ the stream has.
func (s Summary) Count(typ string) int {
	n := 0
	for _, t := range s.Types {
		if t == typ {
			n++
		}
	}
	return n
}

// Pending returns the pending tool call ids of a successful finish.
func (s Summary) Pending(t testing.TB) []string {
	t.Helper()
	if s.Finished == nil {
		t.Fatalf("the run did not finish: %v (error %+v)", s.Types, s.Failed)
	}
	out, ok := s.Finished.Outcome.(*agui.RunFinishedSuccessOutcome)
	if !ok {
		if s.Finished.Outcome == nil {
			return nil
		}
		t.Fatalf("outcome %T, want success", s.Finished.Outcome)
	}
	return out.PendingToolCallIDs
}

// JSONAt walks a decoded JSON value along keys (strings for objects, ints
// for arrays) and returns what is there, nil when the path is missing.
func JSONAt(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// Must returns v, panicking on err.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// History holds every role and every kind of part a request can carry.
const History = `{"threadId":"t","runId":"r","messages":[
 {"id":"d1","role":"developer","content":"Answer in French."},
 {"id":"s1","role":"system","content":"Be brief."},
 {"id":"u1","role":"user","name":"ana","content":[
  {"type":"text","text":"What is in these?"},
  {"type":"image","source":{"type":"data","value":"iVBORw0KGgo=","mimeType":"image/png"}},
  {"type":"image","source":{"type":"url","value":"https://example.com/cat.jpg"}},
  {"type":"document","source":{"type":"data","value":"JVBERi0xLjQ=","mimeType":"application/pdf"},"metadata":{"filename":"menu.pdf"}},
  {"type":"document","source":{"type":"file","value":"file-abc123"}}]},
 {"id":"rs_1","role":"reasoning","content":"They want a description.","encryptedValue":"enc-1"},
 {"id":"a1","role":"assistant","content":"Looking.","toolCalls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"cat\"}"}}]},
 {"id":"t1","role":"tool","toolCallId":"call_1","content":"a cat"},
 {"id":"t2","role":"tool","toolCallId":"call_2","content":"","error":"timed out"},
 {"id":"act1","role":"activity","activityType":"progress","content":{"percent":100}},
 {"id":"u2","role":"user","content":"Thanks"}]}`

// Golden compares v, as indented JSON, with testdata/golden/name.json; with
// update it rewrites the file instead.
func Golden(t testing.TB, update bool, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

// Decode decodes a RunAgentInput, failing the test when it does not.
func Decode(t testing.TB, input string) *agui.RunAgentInput {
	t.Helper()
	in, err := agui.DecodeRunAgentInput([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	return in
}
