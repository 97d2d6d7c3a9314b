package server

import (
	"bytes"
	"encoding/json"
	"testing"
)

// omitTopLevelNulls either leaves the body alone or returns a valid object
// holding the same members, by last occurrence, minus the optional ones that
// were null.
func FuzzOmitTopLevelNulls(f *testing.F) {
	for _, s := range []string{
		`{"threadId":"t","runId":"r","messages":[],"tools":null}`,
		`{"tools":[1],"tools":null,"a":{"b":null}}`,
		`{"messages":null,"x":null}`,
		`{"k\u00e9":null,"<&>":1,"z":null}`,
		`{"a":null} trailing`,
		`[null]`, `null`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, dropped := omitTopLevelNulls(body)
		if len(dropped) == 0 {
			if !bytes.Equal(out, body) {
				t.Fatalf("changed %q into %q without dropping anything", body, out)
			}
			return
		}
		var before, after map[string]json.RawMessage
		if err := json.Unmarshal(body, &before); err != nil {
			t.Fatalf("dropped %v from a body encoding/json rejects (%v): %q", dropped, err, body)
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("rewrote %q into invalid %q: %v", body, out, err)
		}
		for k, v := range before {
			if string(v) == "null" && nullAsEmpty[k] != "" {
				if w := after[k]; string(w) != nullAsEmpty[k] {
					t.Fatalf("%q: null member %q became %s, want %s", out, k, w, nullAsEmpty[k])
				}
				continue
			}
			if string(v) == "null" && !requiredInput[k] {
				if _, ok := after[k]; ok {
					t.Fatalf("%q kept null member %q", out, k)
				}
				continue
			}
			if w, ok := after[k]; !ok || !bytes.Equal(v, w) {
				t.Fatalf("member %q: %s became %s", k, v, w)
			}
		}
		if len(after) > len(before) {
			t.Fatalf("%q gained members over %q", out, body)
		}
	})
}
