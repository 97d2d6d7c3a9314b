package schema_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agui-go/sdk/internal/spectest"
	"github.com/agui-go/sdk/schema"
)

// TestAgreesWithOfficialSchema validates every shared fixture against both
// our schema and the official one, addressing the same definition by its
// anchor in each. Any disagreement between the two, or with the fixture's
// own verdict (its valid/ or invalid/ folder), fails.
func TestAgreesWithOfficialSchema(t *testing.T) {
	dir := spectest.Require(t)
	official, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	const officialID = "https://ag-ui.com/spec/1.0/schema.json"
	if err := c.AddResource(officialID, bytes.NewReader(official)); err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(schema.ID, bytes.NewReader(schema.Events)); err != nil {
		t.Fatal(err)
	}
	fixtures := spectest.RequireFixtures(t)
	compiled := map[string][2]*jsonschema.Schema{}
	for _, fx := range fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			pair, ok := compiled[fx.Definition]
			if !ok {
				for i, id := range []string{officialID, schema.ID} {
					s, err := c.Compile(id + "#" + fx.Definition)
					if err != nil {
						t.Fatalf("%s has no definition %s: %v", id, fx.Definition, err)
					}
					pair[i] = s
				}
				compiled[fx.Definition] = pair
			}
			data, err := os.ReadFile(fx.Path)
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			var doc any
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			theirs := pair[0].Validate(doc)
			ours := pair[1].Validate(doc)
			if (theirs == nil) != (ours == nil) {
				t.Fatalf("the schemas disagree\nofficial: %v\nours:     %v", theirs, ours)
			}
			if (ours == nil) != fx.Valid {
				t.Fatalf("verdict %v contradicts the fixture folder: %v", ours == nil, ours)
			}
		})
	}
	if len(fixtures) < 100 {
		t.Fatalf("only %d fixtures", len(fixtures))
	}
}

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
