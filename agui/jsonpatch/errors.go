package jsonpatch

import (
	"errors"
	"fmt"
	"strconv"
)

// Kind classifies why an operation could not be applied.
type Kind uint8

const (
	// Unresolvable: the path (or, for an add, its parent) does not exist,
	// or runs through a string, number, boolean or null.
	Unresolvable Kind = iota + 1
	// FromUnresolvable: the from location of a move or copy does not exist.
	FromUnresolvable
	// IllegalIndex: an array is indexed by something other than an
	// unsigned decimal integer without leading zeros (or "-" where allowed).
	IllegalIndex
	// OutOfBounds: an add names an array index past the end of the array.
	OutOfBounds
	// TestFailed: a test operation found a different value, or none.
	TestFailed
	// MoveIntoChild: a move whose from location is a proper prefix of its
	// path, which would move a value into itself.
	MoveIntoChild
	// BannedKey: the path runs through "__proto__" or
	// "constructor/prototype", which the reference client refuses on every
	// document; refusing it here keeps a Go consumer's state the same as a
	// browser's.
	BannedKey
	// InvalidPointer: path or from is not an RFC 6901 JSON Pointer.
	InvalidPointer
	// InvalidValue: the operation's value is not JSON, or the operation is
	// nil.
	InvalidValue
)

var kindNames = [...]string{
	Unresolvable:     "path does not exist",
	FromUnresolvable: "from does not exist",
	IllegalIndex:     "not an array index",
	OutOfBounds:      "array index out of bounds",
	TestFailed:       "test failed",
	MoveIntoChild:    "cannot move a value into itself",
	BannedKey:        "banned key",
	InvalidPointer:   "invalid JSON Pointer",
	InvalidValue:     "invalid value",
}

// String describes the kind in a few words.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ErrInvalidDocument is returned (wrapped) by Apply when the document itself
// is not JSON.
var ErrInvalidDocument = errors.New("jsonpatch: document is not valid JSON")

// Error reports the operation that could not be applied. Apply returns it
// as the only error once the document parsed; the document is then left as
// it was.
type Error struct {
	Index  int    // 0-based index of the operation in the patch
	Op     string // "add", "remove", "replace", "move", "copy" or "test"
	Path   string // the operation's path
	From   string // the operation's from, for move and copy
	Kind   Kind
	Detail string // what exactly went wrong, e.g. the token that did not resolve
}

func (e *Error) Error() string {
	s := fmt.Sprintf("jsonpatch: operation %d (%s %q", e.Index, e.Op, e.Path)
	if e.Op == "move" || e.Op == "copy" {
		s += fmt.Sprintf(" from %q", e.From)
	}
	s += "): " + e.Kind.String()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}
