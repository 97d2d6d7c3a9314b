package openai

import (
	"bytes"
	"context"
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
	"github.com/agui-go/sdk/verify"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// replay is a stand-in for api.openai.com: each request gets the next
// recorded stream from testdata, and its body is kept for the test to check.
type replay struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	files []string
	paths []string
	reqs  []map[string]any
	// hold keeps the response open after the file was written, until the
	// client goes away; aborted then receives when that was seen.
	hold    bool
	aborted chan time.Time
}

func newReplay(t *testing.T, files ...string) *replay {
	t.Helper()
	r := &replay{t: t, files: files, aborted: make(chan time.Time, 1)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *replay) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var decoded map[string]any
	if err := json.Unmarshal(body, &decoded); err != nil {
		r.t.Errorf("request body is not JSON: %v\n%s", err, body)
	}
	r.mu.Lock()
	n := len(r.reqs)
	r.reqs = append(r.reqs, decoded)
	r.paths = append(r.paths, req.URL.Path)
	r.mu.Unlock()
	if n >= len(r.files) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"no more recorded streams","type":"server_error"}}`)
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
	if r.hold {
		<-req.Context().Done()
		r.aborted <- time.Now()
	}
}

// requests returns the bodies received so far.
func (r *replay) requests() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.reqs...)
}

func (r *replay) client() oai.Client {
	return oai.NewClient(option.WithBaseURL(r.srv.URL+"/v1/"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
}

// runHTTP posts input to the agent served over HTTP and returns the events
// of the stream, which the server verifier must accept whole.
func runHTTP(t *testing.T, agent server.Agent[server.NoState], input string) []agui.Event {
	t.Helper()
	srv := httptest.NewServer(server.NewHandler(agent))
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
		events = append(events, ev)
	}
	if rep := verify.Check(verify.ServerProfile, docs); !rep.OK() {
		t.Fatalf("the server verifier rejects the stream at event %d (%s): %v\n%s", rep.Index, rep.Event, rep.Err, bytes.Join(docs, []byte("\n")))
	}
	return events
}

// summary is what a stream says, in a form a test compares at a glance.
type summary struct {
	types    []string
	text     map[string]string // messageId → text
	args     map[string]string // toolCallId → arguments
	names    map[string]string // toolCallId → name
	parents  map[string]string // toolCallId → parentMessageId
	results  map[string]string // toolCallId → result content
	thoughts []string          // reasoning messages' text
	secrets  map[string]string // entityId → encrypted value
	finished *agui.RunFinished
	failed   *agui.RunError
}

func summarize(events []agui.Event) summary {
	s := summary{text: map[string]string{}, args: map[string]string{}, names: map[string]string{},
		parents: map[string]string{}, results: map[string]string{}, secrets: map[string]string{}}
	thought := map[string]int{}
	for _, ev := range events {
		s.types = append(s.types, string(ev.Type()))
		switch ev := ev.(type) { //agui:nonexhaustive a summary keeps what the tests compare
		case *agui.TextMessageContent:
			s.text[ev.MessageID] += ev.Delta
		case *agui.ToolCallStart:
			s.names[ev.ToolCallID] = ev.ToolCallName
			if ev.ParentMessageID != nil {
				s.parents[ev.ToolCallID] = *ev.ParentMessageID
			}
		case *agui.ToolCallArgs:
			s.args[ev.ToolCallID] += ev.Delta
		case *agui.ToolCallResult:
			s.results[ev.ToolCallID] = ev.Content.String()
		case *agui.ReasoningMessageStart:
			thought[ev.MessageID] = len(s.thoughts)
			s.thoughts = append(s.thoughts, "")
		case *agui.ReasoningMessageContent:
			s.thoughts[thought[ev.MessageID]] += ev.Delta
		case *agui.ReasoningEncryptedValue:
			s.secrets[ev.EntityID] = ev.EncryptedValue
		case *agui.RunFinished:
			s.finished = ev
		case *agui.RunError:
			s.failed = ev
		}
	}
	return s
}

// count returns how many events of type typ the stream has.
func (s summary) count(typ string) int {
	n := 0
	for _, t := range s.types {
		if t == typ {
			n++
		}
	}
	return n
}

// pending returns the pending tool call ids of a successful finish.
func (s summary) pending(t *testing.T) []string {
	t.Helper()
	if s.finished == nil {
		t.Fatalf("the run did not finish: %v (error %+v)", s.types, s.failed)
	}
	out, ok := s.finished.Outcome.(*agui.RunFinishedSuccessOutcome)
	if !ok {
		if s.finished.Outcome == nil {
			return nil
		}
		t.Fatalf("outcome %T, want success", s.finished.Outcome)
	}
	return out.PendingToolCallIDs
}

// jsonAt walks a decoded JSON value along keys (strings for objects, ints
// for arrays) and returns what is there, nil when the path is missing.
func jsonAt(v any, path ...any) any {
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

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var _ = context.Background
