package interop

import (
	"encoding/json"
	"os/exec"
	"slices"
	"testing"

	"github.com/agui-go/sdk/internal/schemamodel"
)

// TestWireOrderMatchesReference compares, for every definition of our schema
// that @ag-ui/core also declares, the order our encoder writes members in with
// the order of the reference's zod schema, which is the order of the objects a
// TypeScript peer parses and then encodes. TestEncoderParity checks the bytes
// of the events we have; this covers every nested type, present or not.
func TestWireOrderMatchesReference(t *testing.T) {
	t.Parallel()
	dir, err := NodeDir()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "shapes.mjs")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var shapes map[string][]string
	if err := json.Unmarshal(out, &shapes); err != nil {
		t.Fatal(err)
	}
	m := schemaModel(t)
	compared := 0
	for _, s := range m.Structs {
		want, ok := shapes[s.Name]
		if !ok {
			continue
		}
		compared++
		// The reference is 1.0: the member 1.1 added is not in its order.
		// Ours writes it right after encryptedValue, where the official
		// 1.1 schema declares it.
		got := schemamodel.WireOrder(s)
		if i := slices.Index(got, "encryptedValueType"); i >= 0 {
			if i == 0 || got[i-1] != "encryptedValue" {
				t.Errorf("%s: encryptedValueType does not follow encryptedValue: %v", s.Name, got)
			}
			got = slices.Delete(slices.Clone(got), i, i+1)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: we write %v, the reference %v", s.Name, got, want)
		}
	}
	if compared < len(m.Structs)-2 {
		t.Errorf("compared %d of %d definitions", compared, len(m.Structs))
	}
}
