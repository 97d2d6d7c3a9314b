package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/protover"
	"github.com/agui-go/sdk/internal/schemamodel"
	"github.com/agui-go/sdk/internal/spectest"
)

// TestEncoderParity feeds the reference encoder (@ag-ui/encoder 1.0.0) every
// event we can produce: each valid event fixture, each event of the shared
// conformance streams that decodes strictly, and a sample of every event type
// with every member present (non-ASCII, quotes and newlines in strings). For
// each, the reference parses the event with @ag-ui/core's schema (which fixes
// the member order, as in any TypeScript peer) and encodes it; its frame must
// carry exactly our bytes. The one exception is a raw member whose input
// spelled a number non-canonically (2.5e3): we keep raw JSON byte-faithful,
// JavaScript re-spells it (2500), so there the frame must equal our bytes as
// JSON.stringify re-spells them, and nothing else may differ.
func TestEncoderParity(t *testing.T) {
	t.Parallel()
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
		ev, _ = protover.StripEvent(ev) // the reference is 1.0
		out, err := ev.AppendJSON(nil)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		ours = append(ours, out)
	}
	fixtures := spectest.RequireFixtures(t)
	for _, fx := range fixtures {
		if fx.Valid && strings.HasSuffix(fx.Definition, "Event") {
			data, _ := os.ReadFile(fx.Path)
			add(data)
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
		for _, ev := range s.Stream {
			add(ev)
		}
	}
	m := schemaModel(t)
	for _, s := range m.Events {
		sample, err := schemamodel.Sample(m, s.Name)
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

	input := append(bytes.Join(ours, []byte("\n")), '\n')
	node := func(args ...string) string {
		cmd := exec.Command("node", append([]string{"encode.mjs"}, args...)...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(input)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Errorf("the reference encoder warned:\n%s", stderr.String())
		}
		return string(out)
	}
	frames := strings.Split(strings.TrimSuffix(node(), "\n\n"), "\n\n")
	if len(frames) != len(ours) {
		t.Fatalf("%d frames for %d events", len(frames), len(ours))
	}
	canon := strings.Split(strings.TrimSuffix(node("canonical"), "\n"), "\n")
	if len(canon) != len(ours) {
		t.Fatalf("%d canonical lines for %d events", len(canon), len(ours))
	}
	identical, respelled := 0, 0
	for i, frame := range frames {
		theirs, ok := strings.CutPrefix(frame, "data: ")
		if !ok {
			t.Fatalf("frame %d is not a data line: %q", i, frame)
		}
		if theirs == string(ours[i]) {
			identical++
			continue
		}
		// Our bytes may differ only where we kept a raw member's number as
		// given (2.5e3) and JavaScript re-spells it (2500): then the frame
		// must equal our bytes as JSON.stringify re-spells them.
		if canon[i] != string(ours[i]) && theirs == canon[i] {
			respelled++
			continue
		}
		t.Errorf("event %d differs\nours:   %s\ntheirs: %s", i, ours[i], theirs)
	}
	if respelled > 5 {
		t.Errorf("%d events differ in number spelling; the samples hold only 5", respelled)
	}
	t.Logf("%d events; %d frames byte-identical to ours, %d identical after JavaScript's number spelling", len(ours), identical, respelled)
}
