package jsonpatch

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// Apply works on its own decoded form of a document rather than on
// map[string]any, for one reason: an object keeps its members in the order
// they were written, so a state that went through a patch reads as the
// producer wrote it, with new members at the end (as in JavaScript, where the
// reference client keeps its state). A node is one of nil (null), bool,
// json.Number, string, []any and *object.

// object is a JSON object that keeps its member order. Small objects, the
// usual case, are searched linearly; an index by name is built once an
// object grows past indexFrom members.
type object struct {
	keys []string
	vals []any
	idx  map[string]int // nil while small
}

const indexFrom = 16

func newObject(n int) *object {
	return &object{keys: make([]string, 0, n), vals: make([]any, 0, n)}
}

func (o *object) find(k string) int {
	if o.idx != nil {
		if i, ok := o.idx[k]; ok {
			return i
		}
		return -1
	}
	for i, x := range o.keys {
		if x == k {
			return i
		}
	}
	return -1
}

func (o *object) get(k string) (any, bool) {
	if i := o.find(k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// set replaces the member k in place, or appends it.
func (o *object) set(k string, v any) {
	if i := o.find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	if o.idx != nil {
		o.idx[k] = len(o.keys) - 1
	} else if len(o.keys) > indexFrom {
		o.reindex()
	}
}

func (o *object) remove(k string) {
	i := o.find(k)
	if i < 0 {
		return
	}
	o.keys = slices.Delete(o.keys, i, i+1)
	o.vals = slices.Delete(o.vals, i, i+1)
	if o.idx != nil {
		o.reindex()
	}
}

func (o *object) reindex() {
	o.idx = make(map[string]int, len(o.keys))
	for i, k := range o.keys {
		o.idx[k] = i
	}
}

// maxDepth bounds nesting so that a hostile document cannot exhaust the
// stack; encoding/json has the same limit.
const maxDepth = 10000

// ordered returns the keys in the order JavaScript enumerates an object's
// members, which is the order JSON.stringify writes them in the reference
// client: keys that are array indices ("0", "5", up to 2^32-2) first, in
// numeric order, then the others in insertion order. Almost every object has
// no index-like key, and then this is just keys.
func (o *object) ordered() []string {
	n := 0
	for _, k := range o.keys {
		if isIndexKey(k) {
			n++
		}
	}
	if n == 0 {
		return o.keys
	}
	out := make([]string, 0, len(o.keys))
	for _, k := range o.keys {
		if isIndexKey(k) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	for _, k := range o.keys {
		if !isIndexKey(k) {
			out = append(out, k)
		}
	}
	return out
}

// isIndexKey reports whether k is a canonical array index in JavaScript: a
// decimal integer without leading zeros, below 2^32-1.
func isIndexKey(k string) bool {
	if k == "" || len(k) > 10 || (k[0] == '0' && len(k) > 1) {
		return false
	}
	n := uint64(0)
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
		n = n*10 + uint64(k[i]-'0')
	}
	return n < 1<<32-1
}

// decode parses one JSON document. Empty input (a nil json.RawMessage) is
// null, as an absent operation value encodes.
func decode(raw []byte) (any, error) {
	if raw == nil {
		return nil, nil
	}
	p := parser{b: raw}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, p.fail("data after the document")
	}
	return v, nil
}

// encode appends the compact JSON form of v.
func encode(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, v)
	case json.Number:
		return append(dst, v...)
	case string:
		return agui.AppendJSONString(dst, v)
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = encode(dst, e)
		}
		return append(dst, ']')
	case *object:
		dst = append(dst, '{')
		keys := v.ordered()
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = agui.AppendJSONString(dst, k)
			dst = append(dst, ':')
			if len(keys) > 0 && &keys[0] == &v.keys[0] {
				dst = encode(dst, v.vals[i]) // insertion order: values line up
			} else {
				val, _ := v.get(k)
				dst = encode(dst, val)
			}
		}
		return append(dst, '}')
	}
	panic("jsonpatch: foreign node type") // unreachable: nodes come from decode
}

// clone deep-copies a node, so that a value copied into two places of a
// document is never shared.
func clone(v any) any {
	switch v := v.(type) {
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = clone(e)
		}
		return c
	case *object:
		c := newObject(len(v.keys))
		c.keys = append(c.keys, v.keys...)
		for _, x := range v.vals {
			c.vals = append(c.vals, clone(x))
		}
		if v.idx != nil {
			c.reindex()
		}
		return c
	}
	return v
}

// equal is the deep equality of the test operation, as the reference's
// _areEquals decides it: member order does not matter, numbers are compared
// as the IEEE 754 doubles JavaScript reads them as (1 equals 1.0).
func equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bv, ok := b.(bool)
		return ok && a == bv
	case string:
		bv, ok := b.(string)
		return ok && a == bv
	case json.Number:
		bv, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bv {
			return true
		}
		x, err1 := strconv.ParseFloat(string(a), 64)
		y, err2 := strconv.ParseFloat(string(bv), 64)
		return (err1 == nil || math.IsInf(x, 0)) && (err2 == nil || math.IsInf(y, 0)) && x == y
	case []any:
		bv, ok := b.([]any)
		if !ok || len(a) != len(bv) {
			return false
		}
		for i := range a {
			if !equal(a[i], bv[i]) {
				return false
			}
		}
		return true
	case *object:
		bv, ok := b.(*object)
		if !ok || len(a.keys) != len(bv.keys) {
			return false
		}
		for i, k := range a.keys {
			y, ok := bv.get(k)
			if !ok || !equal(a.vals[i], y) {
				return false
			}
		}
		return true
	}
	return false
}
