package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/generator"
	"github.com/agui-go/sdk/internal/spectest"
)

// TestEncoderParity feeds the reference encoder (@ag-ui/encoder 1.0.0) every
// event we can produce: each valid event fixture, each event of the shared
// conformance streams that decodes strictly, and a sample of every event type
// with every member present (non-ASCII, quotes and newlines in strings). For
// each, the reference's SSE frame must carry JSON equal to ours; since the
// reference keeps member order and we hand it our own bytes, the frames are
// byte-identical wherever a raw member's number spelling does not differ.
func TestEncoderParity(t *testing.T) {
	dir, err := NodeDir()
	if err != nil {
		t.Fatal(err)
	}
	var ours [][]byte
	add := func(doc []byte) {
		ev, err := agui.DecodeEvent(doc)
		if err != nil {
			return
		}
		out, err := ev.AppendJSON(nil)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		ours = append(ours, out)
	}
	fixtures, err := spectest.Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range fixtures {
		if fx.Valid && strings.HasSuffix(fx.Definition, "Event") {
			data, _ := os.ReadFile(fx.Path)
			add(data)
		}
	}
	spec, _ := spectest.Dir()
	streams, _ := filepath.Glob(filepath.Join(spec, "conformance", "streams", "*.json"))
	for _, p := range streams {
		var s struct{ Stream []json.RawMessage }
		data, _ := os.ReadFile(p)
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		for _, ev := range s.Stream {
			add(ev)
		}
	}
	m, err := generator.Load("../../schema/events.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Events {
		sample, err := generator.Sample(m, s.Name)
		if err != nil {
			t.Fatal(err)
		}
		before := len(ours)
		add(sample)
		if len(ours) == before {
			t.Fatalf("sample of %s does not decode", s.Name)
		}
	}
	if len(ours) < 150 {
		t.Fatalf("only %d events", len(ours))
	}

	cmd := exec.Command("node", "encode.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(append(bytes.Join(ours, []byte("\n")), '\n'))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("the reference encoder warned:\n%s", stderr.String())
	}
	frames := strings.Split(strings.TrimSuffix(string(out), "\n\n"), "\n\n")
	if len(frames) != len(ours) {
		t.Fatalf("%d frames for %d events", len(frames), len(ours))
	}
	identical := 0
	for i, frame := range frames {
		theirs, ok := strings.CutPrefix(frame, "data: ")
		if !ok {
			t.Fatalf("frame %d is not a data line: %q", i, frame)
		}
		if theirs == string(ours[i]) {
			identical++
			continue
		}
		var a, b any
		if err := json.Unmarshal(ours[i], &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(theirs), &b); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("event %d differs\nours:   %s\ntheirs: %s", i, ours[i], theirs)
		}
	}
	t.Logf("%d events; %d frames byte-identical to ours, the rest equal as JSON", len(ours), identical)
}
