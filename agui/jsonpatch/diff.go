package jsonpatch

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/jsontree"
)

// The diff is small on purpose: it walks two decoded documents, recursing
// into objects and into the common prefix of arrays, removes array tails from
// the end, and otherwise replaces. It never writes move or copy, so it is not
// minimal for reorderings, but it is always correct; a caller that cares
// about size (the server's PublishState) compares the patch's Size with the
// snapshot's and sends the smaller.

// Diff returns the RFC 6902 patch that turns document a into document b.
// Applying it to a with Apply gives a document equal to b. Equal documents
// give an empty patch.
func Diff(a, b json.RawMessage) (agui.JSONPatch, error) {
	ta, err := jsontree.Decode(a)
	if err != nil {
		return nil, err
	}
	tb, err := jsontree.Decode(b)
	if err != nil {
		return nil, err
	}
	return DiffValues(ta, tb)
}

// DiffValues is Diff for documents already decoded by encoding/json into
// generic values (map[string]any, []any, string, bool, nil and json.Number or
// float64), which lets a caller that keeps its documents decoded skip the
// parsing. Object members are visited in sorted order, so the patch is
// deterministic.
func DiffValues(a, b any) (agui.JSONPatch, error) {
	return diffTrees(nil, "", a, b)
}

// diffTrees appends to ops the operations that turn a into b at the JSON
// Pointer path.
func diffTrees(ops agui.JSONPatch, path string, a, b any) (agui.JSONPatch, error) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		var err error
		for _, k := range sortedKeys(av) {
			p := path + "/" + escapePointer(k)
			if bk, ok := bv[k]; ok {
				if ops, err = diffTrees(ops, p, av[k], bk); err != nil {
					return nil, err
				}
			} else {
				ops = append(ops, &agui.RemoveOperation{Path: p})
			}
		}
		for _, k := range sortedKeys(bv) {
			if _, ok := av[k]; ok {
				continue
			}
			v, err := json.Marshal(bv[k])
			if err != nil {
				return nil, err
			}
			ops = append(ops, &agui.AddOperation{Path: path + "/" + escapePointer(k), Value: v})
		}
		return ops, nil
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		n := min(len(av), len(bv))
		var err error
		for i := range n {
			if ops, err = diffTrees(ops, path+"/"+strconv.Itoa(i), av[i], bv[i]); err != nil {
				return nil, err
			}
		}
		// Remove from the end, so that earlier indices stay valid.
		for i := len(av) - 1; i >= len(bv); i-- {
			ops = append(ops, &agui.RemoveOperation{Path: path + "/" + strconv.Itoa(i)})
		}
		for i := len(av); i < len(bv); i++ {
			v, err := json.Marshal(bv[i])
			if err != nil {
				return nil, err
			}
			ops = append(ops, &agui.AddOperation{Path: path + "/" + strconv.Itoa(i), Value: v})
		}
		return ops, nil
	}
	if reflect.DeepEqual(a, b) {
		return ops, nil
	}
	v, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	return append(ops, &agui.ReplaceOperation{Path: path, Value: v}), nil
}

// Size is the length in bytes of the patch's compact JSON encoding.
func Size(patch agui.JSONPatch) (int, error) {
	var buf []byte
	n := 1 // '['
	for i, op := range patch {
		var err error
		if buf, err = op.AppendJSON(buf[:0]); err != nil {
			return 0, err
		}
		if i > 0 {
			n++
		}
		n += len(buf)
	}
	return n + 1, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
