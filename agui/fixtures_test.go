package agui

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/agui-go/sdk/internal/spectest"
)

// TestFixtures decodes every schema fixture strictly: valid documents must
// decode and re-encode to JSON equal to the input, and the re-encoding must be
// stable; invalid documents must be rejected.
func TestFixtures(t *testing.T) {
	fixtures := spectest.RequireFixtures(t)
	if len(fixtures) < 100 {
		t.Fatalf("only %d fixtures found", len(fixtures))
	}
	for _, fx := range fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			data, err := os.ReadFile(fx.Path)
			if err != nil {
				t.Fatal(err)
			}
			d := newDecoder(data, false)
			v, err := decodeDefinition(fx.Definition, d)
			if err == nil {
				err = d.end()
			}
			if !fx.Valid {
				if err == nil {
					out, _ := v.AppendJSON(nil)
					t.Fatalf("strict decode accepted an invalid document\ninput:  %s\nencoded: %s", data, out)
				}
				return
			}
			if err != nil {
				t.Fatalf("strict decode rejected a valid document: %v\n%s", err, data)
			}
			out, err := v.AppendJSON(nil)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			assertJSONEqual(t, data, out)
			d2 := newDecoder(out, false)
			v2, err := decodeDefinition(fx.Definition, d2)
			if err != nil {
				t.Fatalf("re-decode of our own output: %v\n%s", err, out)
			}
			out2, err := v2.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != string(out2) {
				t.Fatalf("encoding is not stable:\n%s\n%s", out, out2)
			}
		})
	}
}

func assertJSONEqual(t *testing.T, want, got []byte) {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(want, &a); err != nil {
		t.Fatalf("want: %v", err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("JSON differs\nwant: %s\ngot:  %s", want, got)
	}
}

func mustAny(t *testing.T, data []byte) any {
	t.Helper()
	v, err := jsonschemaUnmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
