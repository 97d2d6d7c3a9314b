package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
)

// apply is a test-only RFC 6902 applier for the operations diffTrees writes.
func apply(t *testing.T, doc any, patch agui.JSONPatch) any {
	t.Helper()
	for _, op := range patch {
		switch op := op.(type) {
		case *agui.AddOperation:
			doc = update(t, doc, tokens(op.Path), "add", decode(t, op.Value))
		case *agui.ReplaceOperation:
			doc = update(t, doc, tokens(op.Path), "replace", decode(t, op.Value))
		case *agui.RemoveOperation:
			doc = update(t, doc, tokens(op.Path), "remove", nil)
		case *agui.MoveOperation, *agui.CopyOperation, *agui.TestOperation:
			t.Fatalf("diffTrees never writes %T", op)
		}
	}
	return doc
}

func decode(t *testing.T, raw json.RawMessage) any {
	v, err := decodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func tokens(path string) []string {
	if path == "" {
		return nil
	}
	parts := strings.Split(path[1:], "/")
	for i, p := range parts {
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
	}
	return parts
}

// update applies one operation at toks below doc and returns the new doc.
func update(t *testing.T, doc any, toks []string, op string, v any) any {
	t.Helper()
	if len(toks) == 0 {
		if op == "remove" {
			t.Fatal("remove of the root")
		}
		return v
	}
	tok, last := toks[0], len(toks) == 1
	switch c := doc.(type) {
	case map[string]any:
		_, exists := c[tok]
		if !last {
			c[tok] = update(t, c[tok], toks[1:], op, v)
			return c
		}
		switch {
		case op == "add":
			c[tok] = v
		case !exists:
			t.Fatalf("%s of a missing member %q", op, tok)
		case op == "replace":
			c[tok] = v
		default:
			delete(c, tok)
		}
		return c
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i > len(c) || (i == len(c) && op != "add") {
			t.Fatalf("%s at bad index %q of %d", op, tok, len(c))
		}
		if !last {
			c[i] = update(t, c[i], toks[1:], op, v)
			return c
		}
		switch op {
		case "add":
			return append(c[:i], append([]any{v}, c[i:]...)...)
		case "replace":
			c[i] = v
			return c
		default:
			return append(c[:i], c[i+1:]...)
		}
	}
	t.Fatalf("cannot %s into %T", op, doc)
	return nil
}

func randomTree(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(6); {
	case depth == 0 || k == 0:
		return json.Number(strconv.Itoa(rng.IntN(4)))
	case k == 1:
		return []string{"a", "b", "~", "/x"}[rng.IntN(4)]
	case k == 2:
		return nil
	case k == 3:
		arr := make([]any, rng.IntN(4))
		for i := range arr {
			arr[i] = randomTree(rng, depth-1)
		}
		return arr
	default:
		m := map[string]any{}
		for range rng.IntN(4) {
			m[[]string{"a", "b", "c/d", "e~f"}[rng.IntN(4)]] = randomTree(rng, depth-1)
		}
		return m
	}
}

func TestDiffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		a := map[string]any{"root": randomTree(rng, 3), "k": randomTree(rng, 2)}
		b := map[string]any{"root": randomTree(rng, 3), "k": randomTree(rng, 2)}
		if rng.IntN(3) == 0 {
			b = clone(t, a)
			b["k"] = randomTree(rng, 1)
		}
		patch, err := diffTrees(nil, "", a, b)
		if err != nil {
			t.Fatal(err)
		}
		got := apply(t, any(clone(t, a)), patch)
		if !reflect.DeepEqual(jsonOf(t, got), jsonOf(t, b)) {
			t.Fatalf("case %d:\na     %s\nb     %s\npatch %s\ngot   %s", i, jsonOf(t, a), jsonOf(t, b), patchJSON(t, patch), jsonOf(t, got))
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
	} {
		patch, err := diffTrees(nil, "", decode(t, json.RawMessage(tc.a)), decode(t, json.RawMessage(tc.b)))
		if err != nil {
			t.Fatal(err)
		}
		if got := patchJSON(t, patch); got != tc.want {
			t.Errorf("%s → %s: got %s, want %s", tc.a, tc.b, got, tc.want)
		}
		if n, _ := patchSize(patch); len(patch) > 0 && n != len(patchJSON(t, patch)) {
			t.Errorf("patchSize %d for %s", n, patchJSON(t, patch))
		}
	}
}

func clone(t *testing.T, v map[string]any) map[string]any {
	out, _ := decode(t, jsonOf(t, v)).(map[string]any)
	return out
}

func jsonOf(t *testing.T, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func patchJSON(t *testing.T, p agui.JSONPatch) string {
	parts := make([]string, len(p))
	for i, op := range p {
		b, err := op.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		parts[i] = string(b)
	}
	return fmt.Sprintf("[%s]", strings.Join(parts, ","))
}
