package generator

// The tests that hold the schema, and the code generated from it, to a JSON
// Schema validator: a dependency of this module that the core module does
// without.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/schemamodel"
	"github.com/agui-go/sdk/internal/spectest"
	"github.com/agui-go/sdk/schema"
)

// ourSchema returns a 2020-12 compiler holding the repository's schema
// (the embedded copy, under its $id, so definitions are addressed by
// anchor: schema.ID + "#RunAgentInput").
func ourSchema(t *testing.T) *jsonschema.Compiler {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(schema.ID, bytes.NewReader(schema.Events)); err != nil {
		t.Fatal(err)
	}
	return c
}

// validatorDoc decodes a document the way the validator expects: numbers
// as json.Number, so integers are not mistaken for floats.
func validatorDoc(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// clip shortens a document for a failure message.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + "…"
}

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
	c := ourSchema(t)
	const officialID = "https://ag-ui.com/spec/1.0/schema.json"
	if err := c.AddResource(officialID, bytes.NewReader(official)); err != nil {
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
			doc, err := validatorDoc(data)
			if err != nil {
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

// TestAgreesWithOfficialSchema11 holds our schema to the official 1.1 one:
// every shared (1.0) fixture, whose verdict 1.1 keeps, since 1.1 only adds
// an optional member; and documents derived from every valid fixture that
// carries an encryptedValue, one with encryptedValueType beside each
// encryptedValue and two with it of the wrong type (a number, null). Each
// derived document is labelled by the official 1.1 schema, as the 1.0
// fixtures were by the official 1.0 one, and ours must agree; the official
// 1.0 schema must reject every one that carries the member, or the
// documents would not exercise what 1.1 added.
func TestAgreesWithOfficialSchema11(t *testing.T) {
	dir10 := spectest.Require(t)
	dir11 := spectest.RequireVersion(t, "1.1")
	c := ourSchema(t)
	const id10, id11 = "https://ag-ui.com/spec/1.0/schema.json", "https://ag-ui.com/spec/1.1/schema.json"
	for id, dir := range map[string]string{id10: dir10, id11: dir11} {
		official, err := os.ReadFile(filepath.Join(dir, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(id, bytes.NewReader(official)); err != nil {
			t.Fatal(err)
		}
	}
	compiled := map[string]*jsonschema.Schema{}
	compile := func(t *testing.T, id, def string) *jsonschema.Schema {
		t.Helper()
		if s, ok := compiled[id+"#"+def]; ok {
			return s
		}
		s, err := c.Compile(id + "#" + def)
		if err != nil {
			t.Fatalf("%s has no definition %s: %v", id, def, err)
		}
		compiled[id+"#"+def] = s
		return s
	}
	fixtures := spectest.RequireFixtures(t)
	derived, valid, invalid := 0, 0, 0
	for _, fx := range fixtures {
		data, err := os.ReadFile(fx.Path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fx.Name, func(t *testing.T) {
			doc, err := validatorDoc(data)
			if err != nil {
				t.Fatal(err)
			}
			theirs := compile(t, id11, fx.Definition).Validate(doc)
			ours := compile(t, schema.ID, fx.Definition).Validate(doc)
			if (theirs == nil) != fx.Valid || (ours == nil) != fx.Valid {
				t.Fatalf("1.1 changes a 1.0 verdict (%v)\nofficial 1.1: %v\nours:         %v", fx.Valid, theirs, ours)
			}
		})
		if !fx.Valid || !bytes.Contains(data, []byte(`"encryptedValue"`)) {
			continue
		}
		for _, value := range []any{"redacted-thinking", 42, nil} {
			doc, err := validatorDoc(data)
			if err != nil {
				t.Fatal(err)
			}
			if withType(doc, value) == 0 {
				continue
			}
			derived++
			name := fmt.Sprintf("%s+encryptedValueType=%v", fx.Name, value)
			t.Run(name, func(t *testing.T) {
				theirs := compile(t, id11, fx.Definition).Validate(doc)
				ours := compile(t, schema.ID, fx.Definition).Validate(doc)
				if (theirs == nil) != (ours == nil) {
					t.Fatalf("the schemas disagree\nofficial 1.1: %v\nours:         %v", theirs, ours)
				}
				if theirs == nil {
					valid++
				} else {
					invalid++
				}
				if compile(t, id10, fx.Definition).Validate(doc) == nil {
					t.Fatalf("the official 1.0 schema accepts it: the document does not carry what 1.1 added")
				}
			})
		}
	}
	if derived < 6 || valid == 0 || invalid == 0 {
		t.Fatalf("%d derived documents (%d valid, %d invalid per the official 1.1 schema)", derived, valid, invalid)
	}
}

// withType sets encryptedValueType to value beside every encryptedValue in
// doc (a decoded JSON value), in place, and returns how many it set.
func withType(doc any, value any) int {
	n := 0
	switch v := doc.(type) {
	case map[string]any:
		for _, m := range v {
			n += withType(m, value)
		}
		if _, ok := v["encryptedValue"]; ok {
			if i, ok := value.(int); ok {
				value = json.Number(fmt.Sprint(i))
			}
			v["encryptedValueType"] = value
			n++
		}
	case []any:
		for _, m := range v {
			n += withType(m, value)
		}
	}
	return n
}

// TestSamplesValidOfficial11 validates the maximal sample of every
// definition the official 1.1 schema also has against it: what the codec
// writes with every member set, encryptedValueType included wherever our
// schema has it, is 1.1. A sample that carries the member must be rejected
// by the official 1.0 schema.
func TestSamplesValidOfficial11(t *testing.T) {
	m, err := Load(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	c := ourSchema(t)
	const id10, id11 = "https://ag-ui.com/spec/1.0/schema.json", "https://ag-ui.com/spec/1.1/schema.json"
	defs := map[string]map[string]any{}
	for id, dir := range map[string]string{id10: spectest.Require(t), id11: spectest.RequireVersion(t, "1.1")} {
		official, err := os.ReadFile(filepath.Join(dir, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(id, bytes.NewReader(official)); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Defs map[string]any `json:"$defs"`
		}
		if err := json.Unmarshal(official, &doc); err != nil {
			t.Fatal(err)
		}
		defs[id] = doc.Defs
	}
	carrying := 0
	for _, def := range schemamodel.Definitions(m) {
		if _, ok := defs[id11][def]; !ok {
			continue
		}
		sample, err := schemamodel.Sample(m, def)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(def, func(t *testing.T) {
			for _, id := range []string{id11, id10} {
				sch, err := c.Compile(id + "#" + def)
				if err != nil {
					t.Fatal(err)
				}
				doc, err := validatorDoc(sample)
				if err != nil {
					t.Fatal(err)
				}
				err = sch.Validate(doc)
				carries := bytes.Contains(sample, []byte(`"encryptedValueType"`))
				switch {
				case id == id11 && err != nil:
					t.Fatalf("sample is not valid per the official 1.1 schema: %v\n%s", err, sample)
				case id == id10 && carries && err == nil:
					t.Fatalf("the official 1.0 schema accepts a sample with encryptedValueType:\n%s", sample)
				case id == id10 && carries:
					carrying++
				}
			}
		})
	}
	// REASONING_ENCRYPTED_VALUE, five message roles, ToolCall (and what
	// holds them: snapshots, inputs, the Event and Message unions).
	if carrying < 7 {
		t.Fatalf("only %d samples carry encryptedValueType", carrying)
	}
}

// TestSamplesValid checks that the maximal sample of every definition (the
// documents the agui package's TestSamples round-trips through the codec) is
// valid per the schema, so that what the codec is shown to accept and write
// is what the schema allows.
func TestSamplesValid(t *testing.T) {
	t.Parallel()
	m, err := Load(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	c := ourSchema(t)
	for _, def := range schemamodel.Definitions(m) {
		t.Run(def, func(t *testing.T) {
			sample, err := schemamodel.Sample(m, def)
			if err != nil {
				t.Fatal(err)
			}
			sch, err := c.Compile(schema.ID + "#" + def)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := validatorDoc(sample)
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(doc); err != nil {
				t.Fatalf("sample is not valid per the schema: %v\n%s", err, sample)
			}
		})
	}
}

// TestDuplicateMembers checks that a member given twice is read as JSON.parse
// reads it, the last one winning whole, and that the decoder agrees with the
// schema validating that parse (the official schema accepts what the last
// occurrences make valid): earlier occurrences are not validated at all.
func TestDuplicateMembers(t *testing.T) {
	event, err := ourSchema(t).Compile(schema.ID + "#Event")
	if err != nil {
		t.Fatal(err)
	}
	hostile := `{"type":"TEXT_MESSAGE_END"` + strings.Repeat(`,"messageId":null`, 20000) + `,"messageId":"m"}`
	tests := []struct {
		name string
		in   string
		out  string // re-encoded; "" means rejected
	}{
		{"null then string", `{"type":"TEXT_MESSAGE_END","messageId":null,"messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`},
		{"string then null", `{"type":"TEXT_MESSAGE_END","messageId":"m","messageId":null}`, ""},
		{"two strings", `{"type":"TEXT_MESSAGE_END","messageId":"a","messageId":"b"}`, `{"type":"TEXT_MESSAGE_END","messageId":"b"}`},
		{"wrong type then right", `{"type":"RAW","type":"TEXT_MESSAGE_END","messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`},
		{"unknown type then known", `{"type":"NOPE","type":"TEXT_MESSAGE_END","messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`},
		{"known type then unknown", `{"type":"TEXT_MESSAGE_END","messageId":"m","type":"NOPE"}`, ""},
		{"nested union, last role wins", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user","role":"reasoning","content":"r"}]}`, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"reasoning","content":"r"}]}`},
		{"right type then wrong", `{"type":"TEXT_MESSAGE_END","messageId":"m","type":"RAW"}`, ""},
		{"bad optional then good", `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":1.5,"timestamp":7}`, `{"type":"TEXT_MESSAGE_END","timestamp":7,"messageId":"m"}`},
		{"good optional then bad", `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":7,"timestamp":"x"}`, ""},
		{"unknown member twice", `{"type":"TEXT_MESSAGE_END","messageId":"m","zz":1,"zz":2}`, ""},
		{"nested failure replaced", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":1},"function":{"name":"f","arguments":"{}"}}]}]}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`},
		{"nested object replaced whole", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"function":{"name":"g"}}]}]}`, ""},
		{"syntax error is never forgiven", `{"type":"TEXT_MESSAGE_END","messageId":nul,"messageId":"m"}`, ""},
		{"many failing duplicates", hostile, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := agui.DecodeEvent([]byte(tt.in))
			schemaOK := false
			if doc, err := validatorDoc([]byte(tt.in)); err == nil {
				schemaOK = event.Validate(doc) == nil
			}
			if tt.out == "" {
				if err == nil {
					t.Fatalf("accepted: %s", clip(tt.in))
				}
				if schemaOK {
					t.Errorf("the schema accepts what the decoder rejects (%v)", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !schemaOK {
				t.Errorf("the schema rejects what the decoder accepts")
			}
			got, err := ev.AppendJSON(nil)
			if err != nil || string(got) != tt.out {
				t.Errorf("re-encoded = %s, %v; want %s", got, err, tt.out)
			}
		})
	}
}

// TestLoadValidates checks that Load holds the schema to the JSON Schema
// meta-schema, which the core module's loader (without a validator) does
// not.
func TestLoadValidates(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	const old = `"description": "The request body that starts a run."`
	i := strings.Index(string(data), old)
	if i < 0 {
		t.Fatalf("%s not in the schema", old)
	}
	broken := []byte(string(data[:i]) + `"description": 7` + string(data[i+len(old):]))
	if _, err := schemamodel.LoadBytes("events.json", broken); err != nil {
		t.Fatalf("the core's loader checks what only the validator should: %v", err)
	}
	_, err = LoadBytes("events.json", broken)
	if err == nil || !strings.Contains(err.Error(), "invalid JSON Schema") || !strings.Contains(err.Error(), "/$defs/RunAgentInput/description") {
		t.Fatalf("got %v, want the meta-schema's verdict on /$defs/RunAgentInput/description", err)
	}
}
