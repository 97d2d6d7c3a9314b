package jsonpatch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/jsonpatch"
)

type applyCase struct {
	name  string
	doc   string
	patch string
	want  string         // the result, when the patch applies
	kind  jsonpatch.Kind // the failure, when it does not
	index int            // the failing operation
}

// rfcAppendixA holds the examples of RFC 6902, appendix A, but A.13, which
// TestRFCAppendixA13 covers: it is an invalid patch document, refused before
// any applier sees it.
var rfcAppendixA = []applyCase{
	{name: "A.1 adding an object member", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/baz","value":"qux"}]`, want: `{"baz":"qux","foo":"bar"}`},
	{name: "A.2 adding an array element", doc: `{"foo":["bar","baz"]}`, patch: `[{"op":"add","path":"/foo/1","value":"qux"}]`, want: `{"foo":["bar","qux","baz"]}`},
	{name: "A.3 removing an object member", doc: `{"baz":"qux","foo":"bar"}`, patch: `[{"op":"remove","path":"/baz"}]`, want: `{"foo":"bar"}`},
	{name: "A.4 removing an array element", doc: `{"foo":["bar","qux","baz"]}`, patch: `[{"op":"remove","path":"/foo/1"}]`, want: `{"foo":["bar","baz"]}`},
	{name: "A.5 replacing a value", doc: `{"baz":"qux","foo":"bar"}`, patch: `[{"op":"replace","path":"/baz","value":"boo"}]`, want: `{"baz":"boo","foo":"bar"}`},
	{name: "A.6 moving a value", doc: `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`, patch: `[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`, want: `{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`},
	{name: "A.7 moving an array element", doc: `{"foo":["all","grass","cows","eat"]}`, patch: `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`, want: `{"foo":["all","cows","eat","grass"]}`},
	{name: "A.8 testing a value: success", doc: `{"baz":"qux","foo":["a",2,"c"]}`, patch: `[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`, want: `{"baz":"qux","foo":["a",2,"c"]}`},
	{name: "A.9 testing a value: error", doc: `{"baz":"qux"}`, patch: `[{"op":"test","path":"/baz","value":"bar"}]`, kind: jsonpatch.TestFailed},
	{name: "A.10 adding a nested member object", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`, want: `{"foo":"bar","child":{"grandchild":{}}}`},
	{name: "A.11 ignoring unrecognized elements", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`, want: `{"foo":"bar","baz":"qux"}`},
	{name: "A.12 adding to a nonexistent target", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/baz/bat","value":"qux"}]`, kind: jsonpatch.Unresolvable},
	{name: "A.14 ~ escape ordering", doc: `{"/":9,"~1":10}`, patch: `[{"op":"test","path":"/~01","value":10}]`, want: `{"/":9,"~1":10}`},
	{name: "A.15 comparing strings and numbers", doc: `{"/":9,"~1":10}`, patch: `[{"op":"test","path":"/~01","value":"10"}]`, kind: jsonpatch.TestFailed},
	{name: "A.16 adding an array value", doc: `{"foo":["bar"]}`, patch: `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`, want: `{"foo":["bar",["abc","def"]]}`},
}

// referenceCases pin what the reference client's applier (fast-json-patch
// applyPatch with validation on) accepts and rejects beyond the RFC's
// examples.
var referenceCases = []applyCase{
	{name: "remove of a missing member", doc: `{"a":1}`, patch: `[{"op":"remove","path":"/b"}]`, kind: jsonpatch.Unresolvable},
	{name: "replace of a missing member", doc: `{"a":1}`, patch: `[{"op":"replace","path":"/b","value":2}]`, kind: jsonpatch.Unresolvable},
	{name: "replace past the end of an array", doc: `[1]`, patch: `[{"op":"replace","path":"/1","value":2}]`, kind: jsonpatch.Unresolvable},
	{name: "add at the end index", doc: `[1]`, patch: `[{"op":"add","path":"/1","value":2}]`, want: `[1,2]`},
	{name: "add past the end", doc: `[1]`, patch: `[{"op":"add","path":"/2","value":2}]`, kind: jsonpatch.OutOfBounds},
	{name: "non-numeric array index", doc: `{"l":[1]}`, patch: `[{"op":"replace","path":"/l/x","value":2}]`, kind: jsonpatch.IllegalIndex},
	{name: "leading zero index", doc: `[1,2]`, patch: `[{"op":"replace","path":"/01","value":3}]`, kind: jsonpatch.IllegalIndex},
	{name: "dash outside add", doc: `[1]`, patch: `[{"op":"remove","path":"/-"}]`, kind: jsonpatch.Unresolvable},
	{name: "through a string", doc: `{"a":"s"}`, patch: `[{"op":"add","path":"/a/b","value":1}]`, kind: jsonpatch.Unresolvable},
	{name: "through null", doc: `{"a":null}`, patch: `[{"op":"add","path":"/a/b","value":1}]`, kind: jsonpatch.Unresolvable},
	{name: "add replaces an existing member in place", doc: `{"a":1,"b":2}`, patch: `[{"op":"add","path":"/a","value":3}]`, want: `{"a":3,"b":2}`},
	{name: "add null", doc: `{}`, patch: `[{"op":"add","path":"/a","value":null}]`, want: `{"a":null}`},
	{name: "replace the root", doc: `{"a":1}`, patch: `[{"op":"replace","path":"","value":[1]}]`, want: `[1]`},
	{name: "add at the root", doc: `{"a":1}`, patch: `[{"op":"add","path":"","value":"x"}]`, want: `"x"`},
	{name: "remove the root leaves null", doc: `{"a":1}`, patch: `[{"op":"remove","path":""}]`, want: `null`},
	{name: "test the root", doc: `{"a":[1,{"b":2}]}`, patch: `[{"op":"test","path":"","value":{"a":[1.0,{"b":2e0}]}}]`, want: `{"a":[1,{"b":2}]}`},
	{name: "test a missing member", doc: `{}`, patch: `[{"op":"test","path":"/a","value":null}]`, kind: jsonpatch.TestFailed},
	{name: "test ignores member order", doc: `{"o":{"a":1,"b":2}}`, patch: `[{"op":"test","path":"/o","value":{"b":2,"a":1}}]`, want: `{"o":{"a":1,"b":2}}`},
	{name: "test tells arrays from objects", doc: `{"o":{"0":1}}`, patch: `[{"op":"test","path":"/o","value":[1]}]`, kind: jsonpatch.TestFailed},
	{name: "copy", doc: `{"a":{"x":[1]},"b":{}}`, patch: `[{"op":"copy","from":"/a","path":"/b/c"},{"op":"add","path":"/b/c/x/-","value":2}]`, want: `{"a":{"x":[1]},"b":{"c":{"x":[1,2]}}}`},
	{name: "copy past the end of an array appends, as the reference does", doc: `{"a":1,"l":[0]}`, patch: `[{"op":"copy","from":"/a","path":"/l/5"}]`, want: `{"a":1,"l":[0,1]}`},
	{name: "move past the end of an array appends, as the reference does", doc: `{"a":1,"l":[0]}`, patch: `[{"op":"move","from":"/a","path":"/l/5"}]`, want: `{"l":[0,1]}`},
	{name: "copy from a missing member", doc: `{}`, patch: `[{"op":"copy","from":"/a","path":"/b"}]`, kind: jsonpatch.FromUnresolvable},
	{name: "move from a missing member", doc: `{}`, patch: `[{"op":"move","from":"/a","path":"/b"}]`, kind: jsonpatch.FromUnresolvable},
	{name: "move into its own child", doc: `{"a":{"b":1}}`, patch: `[{"op":"move","from":"/a","path":"/a/c"}]`, kind: jsonpatch.MoveIntoChild},
	{name: "move onto itself", doc: `{"a":{"b":1}}`, patch: `[{"op":"move","from":"/a","path":"/a"}]`, want: `{"a":{"b":1}}`},
	{name: "move onto itself in an array", doc: `[1,2,3]`, patch: `[{"op":"move","from":"/1","path":"/1"}]`, want: `[1,2,3]`},
	{name: "move to the root", doc: `{"a":{"b":1}}`, patch: `[{"op":"move","from":"/a","path":""}]`, want: `{"b":1}`},
	{name: "proto is banned", doc: `{}`, patch: `[{"op":"add","path":"/__proto__","value":{}}]`, kind: jsonpatch.BannedKey},
	{name: "constructor prototype is banned", doc: `{"constructor":{}}`, patch: `[{"op":"add","path":"/constructor/prototype","value":1}]`, kind: jsonpatch.BannedKey},
	{name: "prototype alone is fine", doc: `{}`, patch: `[{"op":"add","path":"/prototype","value":1}]`, want: `{"prototype":1}`},
	{name: "escaped keys", doc: `{"a/b":{"c~d":1}}`, patch: `[{"op":"replace","path":"/a~1b/c~0d","value":2}]`, want: `{"a/b":{"c~d":2}}`},
	{name: "empty key", doc: `{"":{"":1}}`, patch: `[{"op":"replace","path":"//","value":2}]`, want: `{"":{"":2}}`},
	{name: "second operation fails", doc: `{"a":1}`, patch: `[{"op":"add","path":"/b","value":2},{"op":"remove","path":"/c"}]`, kind: jsonpatch.Unresolvable, index: 1},
	{name: "empty patch", doc: `{"a":1}`, patch: `[]`, want: `{"a":1}`},
}

func TestApply(t *testing.T) {
	for _, group := range [][]applyCase{rfcAppendixA, referenceCases} {
		for _, tc := range group {
			t.Run(tc.name, func(t *testing.T) {
				doc := json.RawMessage(tc.doc)
				before := bytes.Clone(doc)
				got, err := jsonpatch.Apply(doc, patchOf(t, tc.patch))
				if !bytes.Equal(doc, before) {
					t.Fatalf("the input changed to %s", doc)
				}
				if tc.kind != 0 {
					var pe *jsonpatch.Error
					if !errors.As(err, &pe) || pe.Kind != tc.kind || pe.Index != tc.index {
						t.Fatalf("got %s, %v; want %v at operation %d", got, err, tc.kind, tc.index)
					}
					if got != nil {
						t.Fatalf("a failed patch returned %s", got)
					}
					t.Log(err)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !sameJSON(t, got, []byte(tc.want)) {
					t.Fatalf("got %s, want %s", got, tc.want)
				}
			})
		}
	}
}

// TestApplyWritesStringsAsTheCodec: Apply writes strings with the codec's
// escaper, so a patched document has the bytes JSON.stringify gives the
// reference's state: \b and \f, not \u0008 and \u000c; the other controls
// as lower-case \u00xx; '/', DEL, U+2028 and U+2029 raw.
func TestApplyWritesStringsAsTheCodec(t *testing.T) {
	doc := json.RawMessage(`{"s\b":"\u0008\f\u000C\u001F\/\u007f\u2028\u2029\"\\"}`)
	got, err := jsonpatch.Apply(doc, agui.JSONPatch{})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"s\\b\":\"\\b\\f\\f\\u001f/\x7f\u2028\u2029\\\"\\\\\"}"
	if string(got) != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestApplyKeepsMemberOrder: a patched document reads as it was written,
// members in place and new ones last, like the reference's JavaScript
// objects.
func TestApplyKeepsMemberOrder(t *testing.T) {
	doc := json.RawMessage(`{ "z": 1, "a": {"y": "<&>", "b": [1, 2]}, "m": "\u00e9\n" }`)
	got, err := jsonpatch.Apply(doc, patchOf(t, `[{"op":"replace","path":"/z","value":2},{"op":"add","path":"/c","value":3},{"op":"remove","path":"/a/b/0"}]`))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"z":2,"a":{"y":"<&>","b":[2]},"m":"é\n","c":3}`
	if string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	// A move onto itself is a remove and an add: the member comes last.
	got, err = jsonpatch.Apply(got, patchOf(t, `[{"op":"move","from":"/z","path":"/z"}]`))
	if err != nil {
		t.Fatal(err)
	}
	const moved = `{"a":{"y":"<&>","b":[2]},"m":"é\n","c":3,"z":2}`
	if string(got) != moved {
		t.Fatalf("got %s, want %s", got, moved)
	}
}

func TestApplyBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		doc   string
		patch agui.JSONPatch
		is    error
		kind  jsonpatch.Kind
	}{
		{name: "document not JSON", doc: `{"a":`, patch: agui.JSONPatch{}, is: jsonpatch.ErrInvalidDocument},
		{name: "trailing data", doc: `{} {}`, patch: agui.JSONPatch{}, is: jsonpatch.ErrInvalidDocument},
		{name: "value not JSON", doc: `{}`, patch: agui.JSONPatch{&agui.AddOperation{Path: "/a", Value: json.RawMessage(`{`)}}, kind: jsonpatch.InvalidValue},
		{name: "pointer without slash", doc: `{}`, patch: agui.JSONPatch{&agui.AddOperation{Path: "a", Value: json.RawMessage(`1`)}}, kind: jsonpatch.InvalidPointer},
		{name: "bad escape", doc: `{}`, patch: agui.JSONPatch{&agui.RemoveOperation{Path: "/a~2"}}, kind: jsonpatch.InvalidPointer},
		{name: "bad from", doc: `{}`, patch: agui.JSONPatch{&agui.CopyOperation{From: "x", Path: "/a"}}, kind: jsonpatch.InvalidPointer},
		{name: "nil operation", doc: `{}`, patch: agui.JSONPatch{nil}, kind: jsonpatch.InvalidValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonpatch.Apply(json.RawMessage(tc.doc), tc.patch)
			if got != nil || err == nil {
				t.Fatalf("got %s, %v", got, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("got %v, want %v", err, tc.is)
			}
			var pe *jsonpatch.Error
			if tc.kind != 0 && (!errors.As(err, &pe) || pe.Kind != tc.kind) {
				t.Fatalf("got %v, want kind %v", err, tc.kind)
			}
		})
	}
}

// A nil value encodes as null, so it applies as null.
func TestApplyNilValueIsNull(t *testing.T) {
	got, err := jsonpatch.Apply(json.RawMessage(`{}`), agui.JSONPatch{&agui.AddOperation{Path: "/a"}})
	if err != nil || string(got) != `{"a":null}` {
		t.Fatalf("got %s, %v", got, err)
	}
	got, err = jsonpatch.Apply(nil, agui.JSONPatch{&agui.TestOperation{Path: ""}})
	if err != nil || string(got) != `null` {
		t.Fatalf("nil doc: got %s, %v", got, err)
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := jsonpatch.Apply(json.RawMessage(`{"a":{}}`), patchOf(t, `[{"op":"test","path":"/a","value":{}},{"op":"move","from":"/a/x","path":"/b"}]`))
	const want = `jsonpatch: operation 1 (move "/b" from "/a/x"): from does not exist: no "x" at "/a"`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// TestApplyLargeObject runs objects past the size where members get an index
// by name through adds, removes, replaces and moves.
func TestApplyLargeObject(t *testing.T) {
	var doc bytes.Buffer
	want := map[string]any{}
	doc.WriteByte('{')
	for i := range 40 {
		if i > 0 {
			doc.WriteByte(',')
		}
		k := "k" + strconv.Itoa(i)
		fmt.Fprintf(&doc, "%q:%d", k, i)
		want[k] = float64(i)
	}
	doc.WriteByte('}')
	var ops []string
	for i := 0; i < 40; i += 3 {
		k := "k" + strconv.Itoa(i)
		ops = append(ops, fmt.Sprintf(`{"op":"remove","path":"/%s"}`, k))
		delete(want, k)
	}
	for i := 1; i < 40; i += 3 {
		k := "k" + strconv.Itoa(i)
		ops = append(ops, fmt.Sprintf(`{"op":"replace","path":"/%s","value":"r"}`, k))
		want[k] = "r"
	}
	ops = append(ops, `{"op":"add","path":"/new","value":[1]}`, `{"op":"move","from":"/k2","path":"/moved"}`, `{"op":"test","path":"/k1","value":"r"}`)
	want["new"] = []any{float64(1)}
	want["moved"] = want["k2"]
	delete(want, "k2")
	got, err := jsonpatch.Apply(doc.Bytes(), patchOf(t, "["+strings.Join(ops, ",")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	var have map[string]any
	if err := json.Unmarshal(got, &have); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(have, want) {
		t.Fatalf("got %s", got)
	}
	if !strings.HasSuffix(string(got), `"new":[1],"moved":2}`) {
		t.Fatalf("member order: %s", got)
	}
}

// TestRFCAppendixA13: a patch operation with two "op" members is an invalid
// JSON Patch document (RFC 6902, A.13); the protocol decoder refuses it, so
// Apply never receives one.
func TestRFCAppendixA13(t *testing.T) {
	_, err := agui.DecodeEvent([]byte(`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/baz","value":"qux","op":"remove"}]}`))
	var de *agui.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("decoded: %v", err)
	}
}
