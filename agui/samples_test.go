package agui

import (
	"bytes"
	"testing"

	"github.com/agui-go/sdk/internal/schemamodel"
)

// TestSamples round-trips a maximal document of every schema definition, in
// which every member the generator knows is present. The generator's module
// checks each sample against the schema itself with a JSON Schema validator
// (TestSamplesValid in gen/internal/generator), so the two prove that what
// the codec accepts and writes is what the schema allows.
func TestSamples(t *testing.T) {
	m, err := schemamodel.Load("../schema/events.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, def := range schemamodel.Definitions(m) {
		t.Run(def, func(t *testing.T) {
			sample, err := schemamodel.Sample(m, def)
			if err != nil {
				t.Fatal(err)
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
