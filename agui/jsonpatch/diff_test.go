package jsonpatch_test

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/agui-go/sdk/agui/jsonpatch"
)

// randomDoc builds a random JSON document whose keys and strings include the
// characters JSON Pointer escapes.
func randomDoc(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(7); {
	case depth == 0 || k == 0:
		return json.Number(strconv.Itoa(rng.IntN(4)))
	case k == 1:
		return []string{"a", "b", "~", "/x", ""}[rng.IntN(5)]
	case k == 2:
		return []any{nil, true, false}[rng.IntN(3)]
	case k == 3:
		arr := make([]any, rng.IntN(5))
		for i := range arr {
			arr[i] = randomDoc(rng, depth-1)
		}
		return arr
	default:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[[]string{"a", "b", "c/d", "e~f", "", "0", "-"}[rng.IntN(7)]] = randomDoc(rng, depth-1)
		}
		return m
	}
}

// mutateDoc returns a variant of v near it, so that patches also come out
// small and deep, not only as whole replacements.
func mutateDoc(rng *rand.Rand, v any, depth int) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			switch rng.IntN(5) {
			case 0: // dropped
			case 1:
				out[k] = randomDoc(rng, depth)
			default:
				out[k] = mutateDoc(rng, e, depth)
			}
		}
		if rng.IntN(3) == 0 {
			out[[]string{"new", "a", "x/y"}[rng.IntN(3)]] = randomDoc(rng, depth)
		}
		return out
	case []any:
		out := make([]any, 0, len(v)+1)
		for _, e := range v {
			if rng.IntN(5) > 0 {
				out = append(out, mutateDoc(rng, e, depth))
			}
		}
		for range rng.IntN(3) {
			out = append(out, randomDoc(rng, depth))
		}
		return out
	}
	if rng.IntN(2) == 0 {
		return randomDoc(rng, depth)
	}
	return v
}

func marshal(t testing.TB, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDiffApplyProperty: for random documents a and b, applying Diff(a, b)
// to a gives b.
func TestDiffApplyProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := 5000
	if testing.Short() {
		cases = 500
	}
	for i := range cases {
		a := randomDoc(rng, 4)
		var b any
		switch rng.IntN(3) {
		case 0:
			b = randomDoc(rng, 4)
		default:
			b = mutateDoc(rng, a, 2)
		}
		ra, rb := marshal(t, a), marshal(t, b)
		patch, err := jsonpatch.Diff(ra, rb)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsonpatch.Apply(ra, patch)
		if err != nil {
			t.Fatalf("case %d: %v\na     %s\npatch %s", i, err, ra, patchText(t, patch))
		}
		if !sameJSON(t, got, rb) {
			t.Fatalf("case %d:\na     %s\nb     %s\npatch %s\ngot   %s", i, ra, rb, patchText(t, patch), got)
		}
	}
}

func TestDiffShapes(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{`{"a":1}`, `{"a":1}`, `[]`},
		{`{"a":1}`, `{"a":2}`, `[{"op":"replace","path":"/a","value":2}]`},
		{`{"a":1,"b":2}`, `{"b":2,"c":3}`, `[{"op":"remove","path":"/a"},{"op":"add","path":"/c","value":3}]`},
		{`{"l":[1,2,3]}`, `{"l":[1]}`, `[{"op":"remove","path":"/l/2"},{"op":"remove","path":"/l/1"}]`},
		{`{"l":[1]}`, `{"l":[1,{"x":null}]}`, `[{"op":"add","path":"/l/1","value":{"x":null}}]`},
		{`{"a/b":{"c~d":1}}`, `{"a/b":{"c~d":2}}`, `[{"op":"replace","path":"/a~1b/c~0d","value":2}]`},
		{`{"a":[1]}`, `{"a":{"0":1}}`, `[{"op":"replace","path":"/a","value":{"0":1}}]`},
		{`[1]`, `"x"`, `[{"op":"replace","path":"","value":"x"}]`},
		{`{"n":1.50}`, `{"n":1.50}`, `[]`},
	} {
		patch, err := jsonpatch.Diff(json.RawMessage(tc.a), json.RawMessage(tc.b))
		if err != nil {
			t.Fatal(err)
		}
		got := patchText(t, patch)
		if got != tc.want {
			t.Errorf("%s → %s: got %s, want %s", tc.a, tc.b, got, tc.want)
		}
		if n, err := jsonpatch.Size(patch); err != nil || n != len(got) {
			t.Errorf("Size %d (%v) for %s", n, err, got)
		}
	}
}

func TestDiffBadInput(t *testing.T) {
	if _, err := jsonpatch.Diff(json.RawMessage(`{`), json.RawMessage(`{}`)); err == nil {
		t.Error("Diff accepted a broken document")
	}
}
