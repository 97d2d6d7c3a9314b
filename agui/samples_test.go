package agui

import (
	"bytes"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agui-go/sdk/internal/generator"
)

// TestSamples round-trips a maximal document of every schema definition, in
// which every member the generator knows is present. Each sample is first
// checked against the schema itself, so the test also proves that what the
// codec accepts and writes is what the schema allows.
func TestSamples(t *testing.T) {
	const schemaPath = "../schema/events.json"
	m, err := generator.Load(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	for _, def := range generator.Definitions(m) {
		t.Run(def, func(t *testing.T) {
			sample, err := generator.Sample(m, def)
			if err != nil {
				t.Fatal(err)
			}
			sch, err := c.Compile(schemaPath + "#" + def)
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(mustAny(t, sample)); err != nil {
				t.Fatalf("sample is not valid per the schema: %v\n%s", err, sample)
			}
			d := newDecoder(sample, false)
			v, err := decodeDefinition(def, d)
			if err == nil {
				err = d.end()
			}
			if err != nil {
				t.Fatalf("decode: %v\n%s", err, sample)
			}
			out, err := v.AppendJSON(nil)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			assertJSONEqual(t, sample, out)
			if bytes.Contains(out, []byte("\n")) {
				t.Fatalf("encoding contains a raw newline: %s", out)
			}
		})
	}
}
