package agui

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// This file holds the hand-written half of the protobuf encoder: the pieces
// the generated AppendProto methods (proto_gen.go) call. Open JSON
// (json.RawMessage members) is written as the well-known
// google.protobuf.Value and Struct messages straight from its JSON text, with
// no intermediate tree, in exactly the byte order @ag-ui/proto 1.0.0
// produces: that reference walks JavaScript objects, so an object's members
// come out in JavaScript property order (see jsMemberOrder).

// Field numbers of the well-known types.
const (
	valueNull   = 1
	valueNumber = 2
	valueString = 3
	valueBool   = 4
	valueStruct = 5
	valueList   = 6

	structFields = 1 // Struct.fields: repeated FieldsEntry
	entryKey     = 1
	entryValue   = 2
	listValues   = 1
)

// protoString writes a string field. Protobuf strings are UTF-8; a Go
// string that is not becomes what its JSON encoding reads back as, each
// invalid byte U+FFFD, so the two bindings carry the same text.
func protoString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	if utf8.ValidString(s) {
		return protowire.AppendString(b, s)
	}
	clean := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			clean = utf8.AppendRune(clean, utf8.RuneError)
		} else {
			clean = append(clean, s[i:i+size]...)
		}
		i += size
	}
	return protowire.AppendBytes(b, clean)
}

func protoVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func protoBool(b []byte, num protowire.Number, v bool) []byte {
	return protoVarint(b, num, protowire.EncodeBool(v))
}

// protoBegin starts a length-delimited field whose length is not known yet:
// it writes the tag and reserves one byte for the length, the common case,
// and returns where the body starts. protoEnd writes the length and, for a
// body of 128 bytes or more, shifts the body to make room for a longer
// varint. Nothing is allocated when dst has the capacity.
func protoBegin(b []byte, num protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

// protoOpen is protoBegin for generated code, which takes the start as
// len(b) afterwards.
func protoOpen(b []byte, num protowire.Number) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return append(b, 0)
}

func protoEnd(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	size := protowire.SizeVarint(uint64(n))
	for range size - 1 {
		b = append(b, 0)
	}
	copy(b[start-1+size:], b[start:start+n])
	protowire.AppendVarint(b[start-1:start-1], uint64(n))
	return b
}

// protoValue writes raw, one JSON value, as a google.protobuf.Value field.
// A nil raw is JSON null.
func protoValue(b []byte, num protowire.Number, raw []byte) ([]byte, error) {
	if raw == nil {
		raw = jsonNull
	}
	b, m := protoBegin(b, num)
	w := jsonWalker{data: raw}
	w.skipSpace()
	b, err := w.value(b)
	if err == nil {
		err = w.end()
	}
	if err != nil {
		return b[:m-1-protowire.SizeTag(num)], err
	}
	return protoEnd(b, m), nil
}

// protoStruct writes raw, a JSON object, as a google.protobuf.Struct field.
// A nil raw is the empty object.
func protoStruct(b []byte, num protowire.Number, raw []byte) ([]byte, error) {
	if raw == nil {
		raw = jsonEmptyObject
	}
	b, m := protoBegin(b, num)
	w := jsonWalker{data: raw}
	w.skipSpace()
	if w.i >= len(w.data) || w.data[w.i] != '{' {
		return b[:m-1-protowire.SizeTag(num)], errors.New("must be a JSON object")
	}
	b, err := w.object(b)
	if err == nil {
		err = w.end()
	}
	if err != nil {
		return b[:m-1-protowire.SizeTag(num)], err
	}
	return protoEnd(b, m), nil
}

var (
	jsonNull        = []byte("null")
	jsonEmptyObject = []byte("{}")
)

// jsonWalker reads JSON text once, writing the Value/Struct encoding of what
// it reads. Input is untrusted: every step is checked.
type jsonWalker struct {
	data    []byte
	i       int
	depth   int
	scratch []byte
}

func (w *jsonWalker) skipSpace() { w.i = skipSpace(w.data, w.i) }

func (w *jsonWalker) end() error {
	w.skipSpace()
	if w.i != len(w.data) {
		return unexpected(w.data, w.i, " after the value")
	}
	return nil
}

// value writes the fields of a Value message (the body, not the tag) for the
// JSON value at w.i.
func (w *jsonWalker) value(b []byte) ([]byte, error) {
	if w.i >= len(w.data) {
		return b, unexpected(w.data, w.i, "")
	}
	switch c := w.data[w.i]; {
	case c == '{':
		var m int
		b, m = protoBegin(b, valueStruct)
		b, err := w.object(b)
		if err != nil {
			return b, err
		}
		return protoEnd(b, m), nil
	case c == '[':
		var m int
		b, m = protoBegin(b, valueList)
		b, err := w.list(b)
		if err != nil {
			return b, err
		}
		return protoEnd(b, m), nil
	case c == '"':
		end, flags, serr := scanString(w.data, w.i)
		if serr != nil {
			return b, serr
		}
		lit := w.data[w.i:end]
		w.i = end
		b = protowire.AppendTag(b, valueString, protowire.BytesType)
		return w.appendStringBytes(b, lit, flags), nil
	case c == 't':
		end, serr := scanLiteral(w.data, w.i, "true")
		if serr != nil {
			return b, serr
		}
		w.i = end
		return protoBool(b, valueBool, true), nil
	case c == 'f':
		end, serr := scanLiteral(w.data, w.i, "false")
		if serr != nil {
			return b, serr
		}
		w.i = end
		return protoBool(b, valueBool, false), nil
	case c == 'n':
		end, serr := scanLiteral(w.data, w.i, "null")
		if serr != nil {
			return b, serr
		}
		w.i = end
		return protoVarint(b, valueNull, 0), nil
	case c == '-' || isDigit(c):
		end, serr := scanNumber(w.data, w.i)
		if serr != nil {
			return b, serr
		}
		f, ok := smallInt(w.data[w.i:end])
		if !ok {
			var err error
			f, err = strconv.ParseFloat(string(w.data[w.i:end]), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return b, err
			}
		}
		// JavaScript reads an out-of-range number as ±Infinity, and the
		// reference then writes that double; so does this.
		w.i = end
		b = protowire.AppendTag(b, valueNumber, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(f)), nil
	default:
		return b, unexpected(w.data, w.i, "")
	}
}

// appendStringBytes writes the length-prefixed UTF-8 contents of the string
// literal lit.
func (w *jsonWalker) appendStringBytes(b, lit []byte, flags uint8) []byte {
	if flags&strEscaped == 0 && (flags&strNonASCII == 0 || utf8.Valid(lit)) {
		return protowire.AppendBytes(b, lit[1:len(lit)-1])
	}
	// Escapes to decode, or bytes that are not UTF-8 (which become U+FFFD).
	w.scratch = appendUnquoted(w.scratch[:0], lit)
	return protowire.AppendBytes(b, w.scratch)
}

func (w *jsonWalker) enter() error {
	w.depth++
	if w.depth > maxDepth {
		return depthError(w.i)
	}
	return nil
}

func (w *jsonWalker) list(b []byte) ([]byte, error) {
	if err := w.enter(); err != nil {
		return b, err
	}
	w.i++ // '['
	w.skipSpace()
	if w.i < len(w.data) && w.data[w.i] == ']' {
		w.i++
		w.depth--
		return b, nil
	}
	for {
		var m int
		b, m = protoBegin(b, listValues)
		var err error
		if b, err = w.value(b); err != nil {
			return b, err
		}
		b = protoEnd(b, m)
		w.skipSpace()
		if w.i >= len(w.data) {
			return b, unexpected(w.data, w.i, " in array")
		}
		switch w.data[w.i] {
		case ',':
			w.i++
			w.skipSpace()
		case ']':
			w.i++
			w.depth--
			return b, nil
		default:
			return b, unexpected(w.data, w.i, " in array")
		}
	}
}

// member is one member of a JSON object: its name literal and value text.
type member struct {
	name       []byte // the literal, quotes included
	nameFlags  uint8
	start, end int // value span in the walker's data
}

// object writes the FieldsEntry fields of the Struct body for the object at
// w.i, in JavaScript property order. Most objects have no member that
// reorders (a name like an array index, or a name used twice): they are
// written in one pass as they are read, allocating nothing. The first
// member that would reorder sends the object down the general path, which
// lists the members and writes them again in order.
func (w *jsonWalker) object(b []byte) ([]byte, error) {
	if err := w.enter(); err != nil {
		return b, err
	}
	objStart, bStart := w.i, len(b)
	w.i++ // '{'
	w.skipSpace()
	if w.i < len(w.data) && w.data[w.i] == '}' {
		w.i++
		w.depth--
		return b, nil
	}
	var names [16][]byte
	n := 0
	for {
		if w.i >= len(w.data) || w.data[w.i] != '"' {
			return b, unexpected(w.data, w.i, " in object, expecting a member name")
		}
		end, flags, serr := scanString(w.data, w.i)
		if serr != nil {
			return b, serr
		}
		name := w.data[w.i:end]
		if reorders(name, flags, names[:n]) || n == len(names) {
			return w.reordered(b[:bStart], objStart)
		}
		names[n] = name
		n++
		w.i = skipSpace(w.data, end)
		if w.i >= len(w.data) || w.data[w.i] != ':' {
			return b, unexpected(w.data, w.i, " after a member name, expecting ':'")
		}
		w.i = skipSpace(w.data, w.i+1)
		var err error
		if b, err = w.entry(b, name, flags); err != nil {
			return b, err
		}
		w.skipSpace()
		if w.i >= len(w.data) {
			return b, unexpected(w.data, w.i, " in object")
		}
		switch w.data[w.i] {
		case ',':
			w.i = skipSpace(w.data, w.i+1)
		case '}':
			w.i++
			w.depth--
			return b, nil
		default:
			return b, unexpected(w.data, w.i, " in object, expecting ',' or '}'")
		}
	}
}

// reorders reports whether the member name (a literal) makes JavaScript's
// order differ from the text's, given the names before it.
func reorders(name []byte, flags uint8, before [][]byte) bool {
	raw := name[1 : len(name)-1]
	if flags&strEscaped != 0 || isIndexName(raw) {
		return true
	}
	for _, prev := range before {
		if string(prev) == string(name) {
			return true
		}
	}
	return false
}

// reordered writes the object at start through the general path.
func (w *jsonWalker) reordered(b []byte, start int) ([]byte, error) {
	end, _, serr := scanValue(w.data, start, maxDepth)
	if serr != nil {
		return b, serr
	}
	list := w.collect(start)
	var err error
	for _, k := range jsMemberOrder(list) {
		mb := list[k]
		w.i = mb.start
		if b, err = w.entry(b, mb.name, mb.nameFlags); err != nil {
			return b, err
		}
	}
	w.i = end
	w.depth--
	return b, nil
}

// collect lists the members of the validated object starting at i.
func (w *jsonWalker) collect(i int) []member {
	var out []member
	for w.data[i] != '}' {
		i = skipSpace(w.data, i+1)
		if w.data[i] == '}' {
			break
		}
		nend, flags, _ := scanString(w.data, i)
		mb := member{name: w.data[i:nend], nameFlags: flags}
		i = skipSpace(w.data, skipSpace(w.data, nend)+1)
		mb.start = i
		i, _, _ = scanValue(w.data, i, maxDepth)
		mb.end = i
		out = append(out, mb)
		i = skipSpace(w.data, i)
	}
	return out
}

// entry writes one FieldsEntry: the key, then the value at w.i.
func (w *jsonWalker) entry(b, name []byte, flags uint8) ([]byte, error) {
	var m, v int
	b, m = protoBegin(b, structFields)
	if len(name) > 2 { // proto3: an empty key is not written
		b = protowire.AppendTag(b, entryKey, protowire.BytesType)
		b = w.appendStringBytes(b, name, flags)
	}
	b, v = protoBegin(b, entryValue)
	b, err := w.value(b)
	if err != nil {
		return b, err
	}
	b = protoEnd(b, v)
	return protoEnd(b, m), nil
}

// isIndexName reports whether a member name is an array index in
// JavaScript's sense (the canonical decimal form of an integer below
// 2^32-1): such properties come first, in numeric order.
func isIndexName(name []byte) bool {
	if len(name) == 0 || len(name) > 10 || (name[0] == '0' && len(name) > 1) {
		return false
	}
	var n uint64
	for _, c := range name {
		if !isDigit(c) {
			return false
		}
		n = n*10 + uint64(c-'0')
	}
	return n < math.MaxUint32
}

// jsMemberOrder returns the indices of the members that JavaScript keeps,
// in its property order: array-index names ascending, then the other names
// in first-appearance order; a repeated name keeps its first position and
// its last value.
func jsMemberOrder(list []member) []int {
	names := make([]string, len(list))
	for i, mb := range list {
		names[i] = string(appendUnquoted(nil, mb.name))
	}
	last := make(map[string]int, len(list))
	for i, n := range names {
		last[n] = i
	}
	var index, rest []int
	seen := make(map[string]bool, len(list))
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if isIndexName([]byte(n)) {
			index = append(index, last[n])
		} else {
			rest = append(rest, last[n])
		}
	}
	num := func(i int) uint64 { v, _ := strconv.ParseUint(names[i], 10, 64); return v }
	for a := 1; a < len(index); a++ {
		for c := a; c > 0 && num(index[c]) < num(index[c-1]); c-- {
			index[c], index[c-1] = index[c-1], index[c]
		}
	}
	return append(index, rest...)
}

// protoExtra returns the value of the last kept member named name.
func protoExtra(extra []RawMember, name string) ([]byte, bool) {
	for i := len(extra) - 1; i >= 0; i-- {
		if extra[i].Name == name {
			return extra[i].Value, true
		}
	}
	return nil, false
}

// protoExtraString returns the kept member named name when it is a JSON
// string.
func protoExtraString(extra []RawMember, name string) (string, bool) {
	raw, ok := protoExtra(extra, name)
	if !ok {
		return "", false
	}
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '"' {
		return "", false
	}
	end, _, err := scanString(raw, i)
	if err != nil {
		return "", false
	}
	return string(appendUnquoted(nil, raw[i:end])), true
}

// smallInt converts a number literal of at most 15 digits and no fraction
// or exponent exactly, the common case, without the general parser.
func smallInt(lit []byte) (float64, bool) {
	neg := len(lit) > 0 && lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) == 0 || len(lit) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range lit {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -float64(n), true
	}
	return float64(n), true
}

// errNilUnion reports a nil union value met while encoding.
func errNilUnion(name string) error {
	return errors.New("a " + name + " value is nil")
}
