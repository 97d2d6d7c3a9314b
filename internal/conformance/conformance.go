// Package conformance runs the AG-UI stream conformance corpora
// (agui-spec/1.0/conformance/streams, and upstream's 1.1 streams as
// published in agui-spec/1.1) against a consumer: it loads the
// fixtures, serves each stream over loopback HTTP exactly as written, and
// checks what the consumer recorded against the fixture's expect block,
// with the partial-match rules of the corpus README. It is test support,
// shared by the client package and the agui command's tests.
package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agui-go/sdk/internal/spectest"
)

// Fixture is one conformance stream.
type Fixture struct {
	Name   string
	Client struct {
		MaxProtocolVersion string `json:"maxProtocolVersion"`
	} `json:"client"`
	Input  json.RawMessage   `json:"input"`
	Stream []json.RawMessage `json:"stream"`
	Expect Expect            `json:"expect"`
}

// Expect is a fixture's expect block; absent keys check nothing.
type Expect struct {
	Outcome            string                     `json:"outcome"`
	ErrorContains      string                     `json:"errorContains"`
	RunError           json.RawMessage            `json:"runError"`
	EventTypes         []string                   `json:"eventTypes"`
	EventTypesAbsent   []string                   `json:"eventTypesAbsent"`
	EventPaths         map[string]json.RawMessage `json:"eventPaths"`
	EventAbsentPaths   []string                   `json:"eventAbsentPaths"`
	Warnings           []string                   `json:"warnings"`
	NoWarnings         bool                       `json:"noWarnings"`
	MessageCount       *int                       `json:"messageCount"`
	Messages           json.RawMessage            `json:"messages"`
	State              json.RawMessage            `json:"state"`
	Request            json.RawMessage            `json:"request"`
	RequestAbsentPaths []string                   `json:"requestAbsentPaths"`
}

// Load reads every fixture of the 1.0 corpus named in streams/MANIFEST.txt.
func Load() ([]Fixture, error) { return LoadVersion("1.0") }

// LoadVersion is Load for the corpus of another protocol version: "1.1"
// reads the upstream 1.1 streams as published (same format and expect
// keys; they declare "1.1" where the 1.0 copies declare "1.0").
func LoadVersion(version string) ([]Fixture, error) {
	dir, err := spectest.VersionDir(version)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "conformance", "streams")
	f, err := os.Open(filepath.Join(root, "MANIFEST.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Fixture
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasSuffix(line, ".json") {
			line += ".json"
		}
		data, err := os.ReadFile(filepath.Join(root, line))
		if err != nil {
			return nil, err
		}
		var fx Fixture
		if err := json.Unmarshal(data, &fx); err != nil {
			return nil, fmt.Errorf("%s: %w", line, err)
		}
		out = append(out, fx)
	}
	return out, sc.Err()
}

// Server serves one fixture's stream to every POST and records the bodies.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests [][]byte
}

// Serve starts a loopback server for f, closed when the test ends. Each
// element of the stream is written as one frame, "data: " and the element
// as written in the fixture (made compact, so it fits one line).
func Serve(t testing.TB, f Fixture) *Server {
	t.Helper()
	var body bytes.Buffer
	for _, ev := range f.Stream {
		var c bytes.Buffer
		if err := json.Compact(&c, ev); err != nil {
			t.Fatalf("%s: stream element is not JSON: %v", f.Name, err)
		}
		body.WriteString("data: ")
		body.Write(c.Bytes())
		body.WriteString("\n\n")
	}
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, b)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body.Bytes())
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the bodies received so far.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.requests...)
}

// Observed is what a consumer recorded for one fixture.
type Observed struct {
	Err      error             // nil when the run completed
	ErrText  string            // the error as the consumer showed it (defaults to Err.Error())
	Events   []json.RawMessage // every delivered event, as JSON
	Warnings []string
	Messages json.RawMessage // the final message list (nil: not recorded)
	State    json.RawMessage // the final state (nil: not recorded)
	Request  []byte          // the body POSTed
}

// ErrorMeaning decides whether a refusal means what the fixture's
// errorContains (the TypeScript client's wording) says. The corpus asks
// for the reason, not the text; each consumer supplies its own mapping.
type ErrorMeaning func(fixture string, want string, o *Observed) error

// Check reports every expect key that does not hold.
func Check(t testing.TB, f Fixture, e Expect, o *Observed, meaning ErrorMeaning) {
	t.Helper()
	errText := o.ErrText
	if errText == "" && o.Err != nil {
		errText = o.Err.Error()
	}
	failed := o.Err != nil || o.ErrText != ""
	switch e.Outcome {
	case "completed":
		if failed {
			t.Errorf("outcome: want completed, the run failed: %s", errText)
		}
	case "failed":
		if !failed {
			t.Errorf("outcome: want failed, the run completed")
		}
	}
	if e.ErrorContains != "" && failed {
		if err := meaning(f.Name, e.ErrorContains, o); err != nil {
			t.Errorf("errorContains %q: %v (error: %s)", e.ErrorContains, err, errText)
		}
	}
	types := make([]string, len(o.Events))
	for i, ev := range o.Events {
		var v struct{ Type string }
		json.Unmarshal(ev, &v)
		types[i] = v.Type
	}
	if len(e.RunError) > 0 {
		var want any
		json.Unmarshal(e.RunError, &want)
		found := false
		for i, ev := range o.Events {
			if types[i] != "RUN_ERROR" {
				continue
			}
			var v struct{ Message string }
			json.Unmarshal(ev, &v)
			if s, ok := want.(string); !ok || strings.Contains(v.Message, s) {
				found = true
			}
		}
		if !found {
			t.Errorf("runError %s: no matching RUN_ERROR delivered (types %v)", e.RunError, types)
		}
	}
	if e.EventTypes != nil && !equalStrings(types, e.EventTypes) {
		t.Errorf("eventTypes:\n got %v\nwant %v", types, e.EventTypes)
	}
	for _, absent := range e.EventTypesAbsent {
		for _, got := range types {
			if got == absent {
				t.Errorf("eventTypesAbsent: %s was delivered", absent)
			}
		}
	}
	for path, want := range e.EventPaths {
		got, ok := eventPath(o.Events, path)
		if !ok {
			t.Errorf("eventPaths %s: absent", path)
			continue
		}
		if !jsonEqual(got, want) {
			t.Errorf("eventPaths %s: got %s, want %s", path, got, want)
		}
	}
	for _, path := range e.EventAbsentPaths {
		if got, ok := eventPath(o.Events, path); ok {
			t.Errorf("eventAbsentPaths %s: present as %s", path, got)
		}
	}
	for _, want := range e.Warnings {
		found := false
		for _, w := range o.Warnings {
			if strings.Contains(strings.ToLower(w), strings.ToLower(want)) {
				found = true
			}
		}
		if !found {
			t.Errorf("warnings: none contains %q; got %q", want, o.Warnings)
		}
	}
	if e.NoWarnings && len(o.Warnings) > 0 {
		t.Errorf("noWarnings: got %q", o.Warnings)
	}
	if e.MessageCount != nil || len(e.Messages) > 0 {
		var msgs []json.RawMessage
		if err := json.Unmarshal(o.Messages, &msgs); err != nil {
			t.Errorf("messages: not recorded as a list: %v", err)
		} else if e.MessageCount != nil && len(msgs) != *e.MessageCount {
			t.Errorf("messageCount: got %d, want %d: %s", len(msgs), *e.MessageCount, o.Messages)
		}
		if len(e.Messages) > 0 {
			if err := Match(e.Messages, o.Messages); err != nil {
				t.Errorf("messages: %v\n got %s", err, o.Messages)
			}
		}
	}
	if len(e.State) > 0 {
		if o.State == nil {
			t.Errorf("state: not recorded")
		} else if err := Match(e.State, o.State); err != nil {
			t.Errorf("state: %v\n got %s", err, o.State)
		}
	}
	if len(e.Request) > 0 {
		if err := Match(e.Request, o.Request); err != nil {
			t.Errorf("request: %v\n got %s", err, o.Request)
		}
	}
	for _, path := range e.RequestAbsentPaths {
		if got, ok := dotted(o.Request, path); ok {
			t.Errorf("requestAbsentPaths %s: present as %s", path, got)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func eventPath(events []json.RawMessage, path string) (json.RawMessage, bool) {
	idx, rest, _ := strings.Cut(path, ".")
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= len(events) {
		return nil, false
	}
	return dotted(events[i], rest)
}

// dotted follows a dotted path (array positions are numbers) into doc.
func dotted(doc []byte, path string) (json.RawMessage, bool) {
	cur := json.RawMessage(doc)
	if path == "" {
		return cur, true
	}
	for _, key := range strings.Split(path, ".") {
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) == nil && obj != nil {
			v, ok := obj[key]
			if !ok {
				return nil, false
			}
			cur = v
			continue
		}
		var arr []json.RawMessage
		n, err := strconv.Atoi(key)
		if json.Unmarshal(cur, &arr) != nil || err != nil || n < 0 || n >= len(arr) {
			return nil, false
		}
		cur = arr[n]
	}
	return cur, true
}

func jsonEqual(a, b json.RawMessage) bool {
	return Match(a, b) == nil && Match(b, a) == nil
}

// Match is the corpus's partial match: an expected object constrains only
// its keys, an expected array must have the actual array's length and
// match element by element, anything else must be equal.
func Match(want, got json.RawMessage) error {
	var w, g any
	if err := unmarshal(want, &w); err != nil {
		return fmt.Errorf("expected value: %v", err)
	}
	if err := unmarshal(got, &g); err != nil {
		return fmt.Errorf("actual value: %v", err)
	}
	return match(w, g, "")
}

func unmarshal(data []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

func match(w, g any, at string) error {
	switch w := w.(type) {
	case map[string]any:
		gm, ok := g.(map[string]any)
		if !ok {
			return fmt.Errorf("at %q: want an object, got %v", at, g)
		}
		for k, wv := range w {
			gv, ok := gm[k]
			if !ok {
				return fmt.Errorf("at %q: member %q is absent", at, k)
			}
			if err := match(wv, gv, at+"/"+k); err != nil {
				return err
			}
		}
		return nil
	case []any:
		ga, ok := g.([]any)
		if !ok {
			return fmt.Errorf("at %q: want an array, got %v", at, g)
		}
		if len(ga) != len(w) {
			return fmt.Errorf("at %q: want %d elements, got %d", at, len(w), len(ga))
		}
		for i := range w {
			if err := match(w[i], ga[i], at+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		gn, ok := g.(json.Number)
		if !ok {
			return fmt.Errorf("at %q: want %v, got %v", at, w, g)
		}
		wf, _ := w.Float64()
		gf, _ := gn.Float64()
		if wf != gf {
			return fmt.Errorf("at %q: want %v, got %v", at, w, g)
		}
		return nil
	default:
		if w != g {
			return fmt.Errorf("at %q: want %#v, got %#v", at, w, g)
		}
		return nil
	}
}
