package jsonpatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agui-go/sdk/agui"
)

// Apply applies patch to doc and returns the new document, compact, with
// object members in their original order and new members last.
//
// Application is all-or-nothing: the operations are applied one after the
// other to a private copy of doc, and the first one that fails stops
// everything; Apply then returns a nil document and an *Error naming that
// operation, and doc is never modified in either case. A doc that is not
// JSON gives an error wrapping ErrInvalidDocument. A nil doc is JSON null.
func Apply(doc json.RawMessage, patch agui.JSONPatch) (json.RawMessage, error) {
	root, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidDocument, err)
	}
	for i, op := range patch {
		if root, err = applyOp(root, i, op); err != nil {
			return nil, err
		}
	}
	return encode(make([]byte, 0, len(doc)+16), root), nil
}

// applyOp applies one operation to root and returns the new root. It
// changes root in place; Apply owns root, a private decoding of its input.
func applyOp(root any, index int, op agui.JSONPatchOperation) (any, error) {
	var name, path, from string
	var value json.RawMessage
	switch o := op.(type) {
	case *agui.AddOperation:
		name, path, value = "add", o.Path, o.Value
	case *agui.RemoveOperation:
		name, path = "remove", o.Path
	case *agui.ReplaceOperation:
		name, path, value = "replace", o.Path, o.Value
	case *agui.MoveOperation:
		name, path, from = "move", o.Path, o.From
	case *agui.CopyOperation:
		name, path, from = "copy", o.Path, o.From
	case *agui.TestOperation:
		name, path, value = "test", o.Path, o.Value
	case nil:
		return nil, &Error{Index: index, Kind: InvalidValue, Detail: "nil operation"}
	}
	fail := func(k Kind, detail string) error {
		return &Error{Index: index, Op: name, Path: path, From: from, Kind: k, Detail: detail}
	}
	toks, ok := parsePointer(path)
	if !ok {
		return nil, fail(InvalidPointer, "path")
	}
	var fromToks []string
	if name == "move" || name == "copy" {
		if fromToks, ok = parsePointer(from); !ok {
			return nil, fail(InvalidPointer, "from")
		}
	}
	if banned(toks) || banned(fromToks) {
		return nil, fail(BannedKey, "")
	}

	// The reference adds the value of a move or copy without validating the
	// target, and JavaScript's splice appends when given an index past the
	// end of an array; clamp keeps that, so both end with the same document.
	clamp := name == "move" || name == "copy"
	var val any
	switch name {
	case "add", "replace", "test":
		v, err := decode(value)
		if err != nil {
			return nil, fail(InvalidValue, err.Error())
		}
		val = v
	case "move":
		if len(fromToks) < len(toks) && slices.Equal(fromToks, toks[:len(fromToks)]) {
			return nil, fail(MoveIntoChild, "")
		}
		fallthrough
	case "copy":
		v, k, detail := get(root, fromToks)
		if k != 0 {
			return nil, fail(FromUnresolvable, detail)
		}
		if name == "copy" {
			v = clone(v)
		} else {
			// Even a move onto itself is a remove and an add, as in the
			// reference: the member then comes last in its object.
			var err error
			if root, _, err = mutate(root, fromToks, "remove", nil, false); err != nil {
				return nil, fail(FromUnresolvable, err.Error()) // unreachable: get found it
			}
		}
		val, name = v, "add"
	}

	if name == "test" {
		got, k, detail := get(root, toks)
		if k != 0 {
			return nil, fail(TestFailed, detail)
		}
		if !equal(got, val) {
			return nil, fail(TestFailed, "the value differs")
		}
		return root, nil
	}
	newRoot, k, err := mutate(root, toks, name, val, clamp)
	if err != nil {
		return nil, fail(k, err.Error())
	}
	return newRoot, nil
}

// get resolves toks in root. On failure it returns the kind and which
// token failed.
func get(root any, toks []string) (any, Kind, string) {
	cur := root
	for i, t := range toks {
		next, k := child(cur, t)
		if k != 0 {
			return nil, k, describe(toks, i)
		}
		cur = next
	}
	return cur, 0, ""
}

func child(n any, tok string) (any, Kind) {
	switch n := n.(type) {
	case *object:
		if v, ok := n.get(tok); ok {
			return v, 0
		}
		return nil, Unresolvable
	case []any:
		if tok == "-" {
			return nil, Unresolvable
		}
		i, ok := arrayIndex(tok)
		if !ok {
			return nil, IllegalIndex
		}
		if i >= len(n) {
			return nil, Unresolvable
		}
		return n[i], 0
	}
	return nil, Unresolvable
}

func describe(toks []string, i int) string {
	at := "/"
	for _, t := range toks[:i] {
		at += escapePointer(t) + "/"
	}
	return fmt.Sprintf("no %q at %q", toks[i], at[:max(1, len(at)-1)])
}

// mutate performs add, remove or replace of val at toks and returns the new
// root (a change at the root replaces it). With clamp, an add past the end of
// an array appends.
func mutate(root any, toks []string, op string, val any, clamp bool) (any, Kind, error) {
	if len(toks) == 0 {
		if op == "remove" {
			return nil, 0, nil // the reference leaves null behind
		}
		return val, 0, nil
	}
	parent, k, detail := get(root, toks[:len(toks)-1])
	if k != 0 {
		return nil, k, errors.New(detail)
	}
	last := toks[len(toks)-1]
	switch p := parent.(type) {
	case *object:
		_, exists := p.get(last)
		if op != "add" && !exists {
			return nil, Unresolvable, errors.New(describe(toks, len(toks)-1))
		}
		if op == "remove" {
			p.remove(last)
		} else {
			p.set(last, val)
		}
		return root, 0, nil
	case []any:
		var i int
		if last == "-" {
			if op != "add" {
				return nil, Unresolvable, errors.New(`"-" names no element`)
			}
			i = len(p)
		} else {
			var ok bool
			if i, ok = arrayIndex(last); !ok {
				return nil, IllegalIndex, fmt.Errorf("%q", last)
			}
		}
		if clamp && i > len(p) {
			i = len(p)
		}
		switch {
		case op == "add" && i > len(p):
			return nil, OutOfBounds, fmt.Errorf("index %s, length %d", last, len(p))
		case op != "add" && i >= len(p):
			return nil, Unresolvable, fmt.Errorf("index %s, length %d", last, len(p))
		}
		var np []any
		switch op {
		case "add":
			np = slices.Insert(p, i, val)
		case "remove":
			np = slices.Delete(p, i, i+1)
		default:
			p[i] = val
			return root, 0, nil
		}
		// The slice header changed: store it back in its parent.
		return replaceAt(root, toks[:len(toks)-1], np), 0, nil
	}
	return nil, Unresolvable, errors.New("the parent is not a container: " + describe(toks, len(toks)-1))
}

// replaceAt stores v at toks, which is known to resolve.
func replaceAt(root any, toks []string, v any) any {
	if len(toks) == 0 {
		return v
	}
	parent, _, _ := get(root, toks[:len(toks)-1])
	last := toks[len(toks)-1]
	switch p := parent.(type) {
	case *object:
		p.set(last, v)
	case []any:
		i, _ := arrayIndex(last)
		p[i] = v
	}
	return root
}
