package schema_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agui-go/sdk/internal/spectest"
	"github.com/agui-go/sdk/schema"
)

// TestEveryDefinitionAnchored checks that each definition of the official
// schema exists in ours under the same anchor.
func TestEveryDefinitionAnchored(t *testing.T) {
	dir := spectest.Require(t)
	var official, ours struct {
		Defs map[string]struct {
			Anchor string `json:"$anchor"`
		} `json:"$defs"`
	}
	data, _ := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err := json.Unmarshal(data, &official); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(schema.Events, &ours); err != nil {
		t.Fatal(err)
	}
	for name, d := range official.Defs {
		o, ok := ours.Defs[name]
		if !ok || o.Anchor != d.Anchor {
			t.Errorf("definition %s (anchor %q) missing or re-anchored in ours", name, d.Anchor)
		}
	}
	if len(ours.Defs) != len(official.Defs) {
		t.Errorf("%d definitions, official has %d", len(ours.Defs), len(official.Defs))
	}
}
