package interop

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/internal/protover"
	"github.com/agui-go/sdk/internal/schemamodel"
	"github.com/agui-go/sdk/internal/spectest"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite agui/testdata/proto_corpus.jsonl from the reference encoder")

// corpusPath is the byte corpus the agui package checks without Node.
const corpusPath = "../../agui/testdata/proto_corpus.jsonl"

// protoEvents gathers every event the parity test runs: each valid event
// fixture, each event of the conformance streams that decodes strictly, a
// sample of every event type with every member present, and every event of
// the demo agent's scenarios. Each is our compact JSON encoding.
func protoEvents(t *testing.T) (names []string, docs [][]byte) {
	t.Helper()
	add := func(name string, doc []byte) {
		ev, err := agui.DecodeEvent(doc)
		if err != nil {
			return
		}
		out, err := ev.AppendJSON(nil)
		if err != nil {
			t.Fatalf("%s: encode: %v", name, err)
		}
		names = append(names, name)
		docs = append(docs, out)
	}
	fixtures := spectest.RequireFixtures(t)
	for _, fx := range fixtures {
		if fx.Valid && strings.HasSuffix(fx.Definition, "Event") {
			data, err := os.ReadFile(fx.Path)
			if err != nil {
				t.Fatal(err)
			}
			add("fixture "+fx.Definition+"/"+filepath.Base(fx.Path), data)
		}
	}
	spec := spectest.Require(t)
	streams, _ := filepath.Glob(filepath.Join(spec, "conformance", "streams", "*.json"))
	for _, p := range streams {
		var s struct{ Stream []json.RawMessage }
		data, _ := os.ReadFile(p)
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		for i, ev := range s.Stream {
			add(fmt.Sprintf("stream %s#%d", filepath.Base(p), i), ev)
		}
	}
	m := schemaModel(t)
	for _, s := range m.Events {
		sample, err := schemamodel.Sample(m, s.Name)
		if err != nil {
			t.Fatal(err)
		}
		add("sample "+s.Name, sample)
	}
	// Streams built by the verifier's differential generator, from fixed
	// pseudo-random bytes: attributions, metadata and raw events in
	// combinations the fixtures do not have.
	rng := rand.New(rand.NewPCG(10, 10))
	for i := range 40 {
		seed := make([]byte, 96)
		for k := range seed {
			seed[k] = byte(rng.Uint32())
		}
		for j, ev := range Events(seed) {
			doc, err := ev.AppendJSON(nil)
			if err != nil {
				continue
			}
			add(fmt.Sprintf("generated %d#%d", i, j), doc)
		}
	}
	// The demo mints random ids; they are renamed in order of appearance so
	// that the corpus does not change each time it is regenerated.
	scenarios := demoScenarios(t)
	for _, name := range slices.Sorted(maps.Keys(scenarios)) {
		ids := map[string]string{}
		for i, ev := range scenarios[name] {
			ev = uuidPattern.ReplaceAllFunc(ev, func(id []byte) []byte {
				if _, ok := ids[string(id)]; !ok {
					ids[string(id)] = fmt.Sprintf("%s-%d", name, len(ids)+1)
				}
				return []byte(ids[string(id)])
			})
			add(fmt.Sprintf("demo %s#%d", name, i), ev)
		}
	}
	if len(docs) < 200 {
		t.Fatalf("only %d events", len(docs))
	}
	return names, docs
}

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// demoInputs are the demo agent's scenarios (see demo.Exercise).
var demoInputs = map[string]string{
	"tour":      `{"threadId":"t-tour","runId":"r-tour","messages":[{"id":"u1","role":"user","content":"Show me everything"}]}`,
	"interrupt": `{"threadId":"t-hitl","runId":"r-hitl-1","messages":[{"id":"u2","role":"user","content":"Please interrupt for approval"}]}`,
	"fail":      `{"threadId":"t-fail","runId":"r-fail","messages":[{"id":"u3","role":"user","content":"Please fail"}]}`,
	"resume":    `{"threadId":"t-hitl","runId":"r-hitl-2","messages":[{"id":"u2","role":"user","content":"Please interrupt for approval"}],"resume":[{"interruptId":"i-1","status":"resolved","payload":{"approved":true}}]}`,
}

// demoScenarios runs each demo scenario over SSE and returns its events.
func demoScenarios(t *testing.T) map[string][][]byte {
	t.Helper()
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close()
	out := map[string][][]byte{}
	for name, body := range demoInputs {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		for frame, err := range sse.Frames(resp.Body) {
			if err != nil {
				t.Fatal(err)
			}
			out[name] = append(out[name], bytes.Clone(frame))
		}
		resp.Body.Close()
		if len(out[name]) < 3 {
			t.Fatalf("demo %s: only %d events", name, len(out[name]))
		}
	}
	return out
}

// runNode runs proto.mjs in mode over the lines and returns its output
// lines.
func runNode(t *testing.T, dir, mode string, lines []string) []string {
	t.Helper()
	cmd := exec.Command("node", "proto.mjs", mode)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SUPPRESS_TRANSFORMATION_WARNINGS=1")
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node proto.mjs %s: %v\n%s", mode, err, stderr.Bytes())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(lines) {
		t.Fatalf("node proto.mjs %s: %d lines for %d", mode, len(got), len(lines))
	}
	return got
}

// TestProtoParity checks our protobuf binding against @ag-ui/proto 1.0.0 on
// every event protoEvents gathers, as 1.0 has it (without encryptedValueType): our bytes equal the reference's encode(),
// our decoder reads the reference's bytes back to an equal event, and the
// reference's decode() reads our bytes back to equal JSON. With
// -update-corpus it rewrites the byte corpus the agui package checks.
func TestProtoParity(t *testing.T) {
	t.Parallel()
	dir, err := NodeDir()
	if err != nil {
		t.Fatal(err)
	}
	names, docs := protoEvents(t)
	lines := make([]string, len(docs))
	ours := make([][]byte, len(docs))
	for i, doc := range docs {
		// The reference is 1.0: the events are taken as 1.0 has them
		// (TestProtoParity11 checks what 1.1 added).
		ev, _ := agui.DecodeEvent(doc)
		if ev10, lost := protover.StripEvent(ev); lost != nil {
			ev = ev10
			docs[i], _ = ev.AppendJSON(nil)
		}
		lines[i] = string(docs[i])
		if ours[i], err = agui.AppendEventProto(nil, ev); err != nil {
			t.Fatalf("%s: AppendProto: %v", names[i], err)
		}
	}
	theirs := runNode(t, dir, "encode", lines)
	oursHex := make([]string, len(ours))
	mismatch := 0
	for i := range docs {
		oursHex[i] = hex.EncodeToString(ours[i])
		if theirs[i] != oursHex[i] {
			mismatch++
			if mismatch <= 10 {
				t.Errorf("%s: bytes differ\n event %s\n ours   %s\n theirs %s", names[i], docs[i], oursHex[i], theirs[i])
			}
		}
	}
	if mismatch > 0 {
		t.Fatalf("%d of %d events encode differently", mismatch, len(docs))
	}
	// The bytes are the same on both sides, so decoding "either side's
	// bytes" is decoding these: by us, and by the reference.
	decoded := runNode(t, dir, "decode", oursHex)
	for i := range docs {
		back, err := agui.DecodeEventProto(ours[i])
		if err != nil {
			t.Errorf("%s: DecodeEventProto: %v\n event %s", names[i], err, docs[i])
			continue
		}
		got, _ := back.AppendJSON(nil)
		if !sameEvent(t, docs[i], got, true) {
			t.Errorf("%s: decoded event differs\n sent %s\n got  %s", names[i], docs[i], got)
		}
		if strings.HasPrefix(decoded[i], "!") {
			t.Errorf("%s: the reference cannot decode our bytes: %s", names[i], decoded[i])
			continue
		}
		if !sameEvent(t, []byte(decoded[i]), got, true) {
			t.Errorf("%s: we decode the bytes differently from the reference\n theirs %s\n ours   %s", names[i], decoded[i], got)
		}
	}
	t.Logf("%d events byte-identical with @ag-ui/proto 1.0.0", len(docs))
	if *updateCorpus {
		var b bytes.Buffer
		for i := range docs {
			line, _ := json.Marshal(struct {
				Name  string          `json:"name"`
				Event json.RawMessage `json:"event"`
				Proto string          `json:"proto"`
			}{names[i], docs[i], theirs[i]})
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(corpusPath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sameEvent compares two JSON events as values (so 2.5e3 equals 2500).
// With dropped set, what the protobuf binding cannot carry is removed from
// both first: the members a JSON Patch operation does not define (the
// reference keeps only op, path, from and value), and empty optional lists,
// which protobuf cannot tell from absent ones.
func sameEvent(t *testing.T, want, got []byte, dropped bool) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(want, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatal(err)
	}
	if dropped {
		a, b = dropUncarried(a, ""), dropUncarried(b, "")
	}
	return reflect.DeepEqual(a, b)
}

// loadSchema loads the repository's schema once for the whole package; the
// model is only read.
var loadSchema = sync.OnceValues(func() (*schemamodel.Model, error) {
	return schemamodel.Load("../../schema/events.json")
})

// schemaModel returns the repository's schema, loaded once.
func schemaModel(t *testing.T) *schemamodel.Model {
	t.Helper()
	m, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// optionalLists are the names of the schema's optional list members:
// protobuf cannot tell them empty from absent (the reference decodes some
// as [] and some as absent; we decode them all as absent).
var optionalLists = func() map[string]bool {
	m, err := loadSchema()
	if err != nil {
		panic(err)
	}
	out := map[string]bool{}
	for _, s := range m.Structs {
		for _, f := range s.Fields {
			if f.Type.Kind == schemamodel.KindArray && !f.Required {
				out[f.JSON] = true
			}
		}
	}
	return out
}()

func dropUncarried(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if l, ok := e.([]any); ok && len(l) == 0 && optionalLists[k] {
				delete(x, k)
				continue
			}
			x[k] = dropUncarried(e, k)
		}
	case []any:
		for i := range x {
			if op, ok := x[i].(map[string]any); ok && (key == "delta" || key == "patch") {
				for k := range op {
					if k != "op" && k != "path" && k != "from" && k != "value" {
						delete(op, k)
					}
				}
			}
			x[i] = dropUncarried(x[i], "")
		}
	}
	return v
}

// TestProtoDecodeDifferential decodes thousands of corrupted frames (bits
// flipped in the reference corpus, deterministically) with our decoder and
// with the reference's decode(): both must accept and reject the same
// frames, and read the accepted ones alike. Two differences are allowed,
// and counted: a number that is not finite, which JSON cannot carry, is an
// error here where the reference hands JavaScript's Infinity on; and a
// length inside a nested message that runs past that message's end is an
// error here (protowire's "unexpected EOF"), where the reference's reader
// reads on into the bytes that follow.
func TestProtoDecodeDifferential(t *testing.T) {
	t.Parallel()
	dir, err := NodeDir()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	var seeds [][]byte
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var e struct{ Proto string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		b, _ := hex.DecodeString(e.Proto)
		seeds = append(seeds, b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var frames [][]byte
	var lines []string
	for range 3000 {
		b := bytes.Clone(seeds[rng.IntN(len(seeds))])
		for range 1 + rng.IntN(3) {
			b[rng.IntN(len(b))] ^= byte(1 << rng.IntN(8))
		}
		frames = append(frames, b)
		lines = append(lines, hex.EncodeToString(b))
	}
	theirs := runNode(t, dir, "decode", lines)
	accepted, allowed := 0, 0
	for i, b := range frames {
		ours, err := agui.EventProtoToJSON(nil, b)
		rejected := strings.HasPrefix(theirs[i], "!")
		switch {
		case err != nil && strings.Contains(err.Error(), "not finite"),
			err != nil && !rejected && strings.HasSuffix(err.Error(), "protobuf: unexpected EOF"):
			allowed++
		case err != nil && !rejected:
			t.Errorf("%s: we reject (%v), the reference reads %s", lines[i], err, theirs[i])
		case err == nil && rejected:
			t.Errorf("%s: we read %s, the reference rejects (%s)", lines[i], ours, theirs[i])
		case err == nil:
			accepted++
			if !sameEvent(t, ours, []byte(theirs[i]), true) {
				t.Errorf("%s: read differently\n ours   %s\n theirs %s", lines[i], ours, theirs[i])
			}
		}
	}
	t.Logf("%d of %d corrupted frames accepted by both and read alike, %d rejected by us where the reference reads on, the rest rejected by both", accepted, len(frames), allowed)
	if allowed > len(frames)/100 {
		t.Errorf("%d allowed differences, more than 1%%", allowed)
	}
}
