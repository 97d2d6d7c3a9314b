package agui

import (
	"math"
	"strconv"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// This file is the runtime of the protobuf decoder. The generated code
// (protodec_gen.go) has one function per protobuf message: it reads the
// message's fields once, in wire order, and appends the members of the
// event's JSON form in schema order; the JSON decoder then decodes that
// text, so an event read from protobuf is checked by exactly the rules of
// an event read from SSE. What is here is what no one message says: the
// envelope, the wire reader, open JSON (Value, Struct, ListValue) and the
// bound on nesting.
//
// It mirrors @ag-ui/proto 1.0.0's decode(): the populated arm of the
// envelope decides the type, a base event declaring another type is an
// error, several different arms are an error, and an envelope whose only
// arms are unknown but well-formed is an unknown event type. Protobuf cannot
// tell an absent required string or list from an empty one, so those come
// back empty, as the protocol allows; an absent optional list comes back
// absent.

// EventProtoToJSON appends the JSON form of the ag_ui.Event message b to
// dst, without checking it against the schema: the form @ag-ui/proto's
// decode() produces, for tools that inspect what was sent.
func EventProtoToJSON(dst, b []byte) ([]byte, error) {
	t := getProtoReader()
	defer putProtoReader(t)
	return t.event(dst, b)
}

// protoReader is the state of one decoding: how deep the message being read
// is nested, and the buffer DecodeEventProto hands the JSON decoder.
type protoReader struct {
	depth int
	out   []byte
}

var protoReaders = sync.Pool{New: func() any { return new(protoReader) }}

func getProtoReader() *protoReader { return protoReaders.Get().(*protoReader) }

// putProtoReader returns t to the pool, unless its buffer grew large.
func putProtoReader(t *protoReader) {
	if cap(t.out) > 1<<20 {
		return
	}
	t.out, t.depth = t.out[:0], 0
	protoReaders.Put(t)
}

// event appends the JSON form of the envelope b.
func (t *protoReader) event(dst, b []byte) ([]byte, error) {
	arm, payload, err := envelopeArm(b)
	if err != nil {
		return dst, err
	}
	return t.protoEvent(dst, arm, payload)
}

// envelopeArm finds the one known arm of the envelope and its payload
// (repeated occurrences of the same arm merge, as protobuf merges a
// repeated singular message).
func envelopeArm(b []byte) (protowire.Number, []byte, error) {
	var arm protowire.Number
	var payload []byte
	parts := 0
	unknown := protowire.Number(0) // the first unknown arm that walks as a message
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return 0, nil, protoWireErr(n)
		}
		i += n
		known, isArm := protoEventArm(num)
		if isArm && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b[i:])
			if m < 0 {
				return 0, nil, protoWireErr(m)
			}
			i += m
			if arm != 0 && arm != num {
				first, _ := protoEventArm(arm)
				return 0, nil, protoErr("the envelope carries more than one event (" + string(first) + " and " + string(known) + ")")
			}
			arm = num
			if parts == 0 {
				payload = v
			} else {
				payload = append(append([]byte(nil), payload...), v...)
			}
			parts++
			continue
		}
		if isArm {
			return 0, nil, protoErr("envelope field " + strconv.Itoa(int(num)) + " has the wrong wire type")
		}
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b[i:])
			if m < 0 {
				return 0, nil, protoWireErr(m)
			}
			if unknown == 0 && walksAsMessage(v) {
				unknown = num
			}
			i += m
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b[i:])
		if m < 0 {
			return 0, nil, protoWireErr(m)
		}
		i += m
	}
	if arm == 0 {
		if unknown > 0 {
			// The arm has no type name on the wire, only its number.
			return 0, nil, &UnknownEventTypeError{Type: "protobuf envelope field " + strconv.Itoa(int(unknown))}
		}
		return 0, nil, protoErr("the envelope carries no event")
	}
	return arm, payload, nil
}

// walksAsMessage reports whether b parses as a sequence of protobuf fields.
func walksAsMessage(b []byte) bool {
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeField(b[i:])
		if n < 0 || num == 0 || typ == protowire.EndGroupType {
			return false
		}
		i += n
	}
	return true
}

// protoNoBase reports an event message without its BaseEvent.
func protoNoBase() error { return protoErr("the event carries no base event") }

// protoTypeMismatch reports a base event that declares another type than
// the envelope's arm.
func protoTypeMismatch(arm EventType, declared uint64) error {
	name := "an unknown type (" + strconv.FormatUint(declared, 10) + ")"
	if typ, ok := protoEventTypeOf(declared); ok {
		name = string(typ)
	}
	return protoErr("the envelope carries " + string(arm) + " but the base event declares " + name)
}

func protoErr(reason string) error {
	return &DecodeError{Path: "", Reason: "protobuf: " + reason}
}

func protoWireErr(n int) error {
	return protoErr(protowire.ParseError(n).Error())
}

// enter counts one more message opened, and fails past maxDepth.
func (t *protoReader) enter() error {
	t.depth++
	if t.depth > maxDepth {
		return protoErr("nested too deeply")
	}
	return nil
}

// leave counts a message read to its end.
func (t *protoReader) leave() { t.depth-- }

// protoNext reads the field at the start of b: its number, wire type and
// value (v for varint and fixed64, p for length-delimited), and its length
// n, which is negative (a protowire error code) when b is broken there.
func protoNext(b []byte) (num protowire.Number, typ protowire.Type, v uint64, p []byte, n int) {
	if len(b) > 0 && b[0] >= 1<<3 && b[0] < 0x80 {
		num, typ, n = protowire.Number(b[0]>>3), protowire.Type(b[0]&7), 1
	} else if num, typ, n = protowire.ConsumeTag(b); n < 0 {
		return 0, 0, 0, nil, n
	}
	var m int
	switch typ {
	case protowire.VarintType:
		v, m = protowire.ConsumeVarint(b[n:])
	case protowire.Fixed64Type:
		v, m = protowire.ConsumeFixed64(b[n:])
	case protowire.BytesType:
		p, m = protowire.ConsumeBytes(b[n:])
	default:
		m = protowire.ConsumeFieldValue(num, typ, b[n:])
	}
	if m < 0 {
		return 0, 0, 0, nil, m
	}
	return num, typ, v, p, n + m
}

// protoSlot is what a message holds at one field number: its
// length-delimited occurrences (the first and the last, and how many) and
// its last varint. A string field is its last occurrence; a message field
// is all of them merged, as protobuf merges a repeated singular message.
type protoSlot struct {
	first, last []byte
	n           int
	v           uint64
	varint      bool
	any         bool // the number occurs, of any wire type
}

func (s *protoSlot) add(typ protowire.Type, v uint64, p []byte) {
	s.any = true
	switch typ {
	case protowire.BytesType:
		if s.n == 0 {
			s.first = p
		}
		s.last, s.n = p, s.n+1
	case protowire.VarintType:
		s.v, s.varint = v, true
	}
}

// merged returns the occurrences of the slot, field num of the message b,
// as one payload.
func (s *protoSlot) merged(b []byte, num protowire.Number) []byte {
	if s.n <= 1 {
		return s.first
	}
	var out []byte
	for it := protoEach(b, num, protowire.BytesType); it.next(); {
		out = append(out, it.p...)
	}
	return out
}

// protoIter walks the fields of a message already read once, in wire
// order: those numbered num with wire type typ, or every field when num is
// zero. at, v and p are the current field's number and value.
type protoIter struct {
	b   []byte
	num protowire.Number
	typ protowire.Type
	at  protowire.Number
	v   uint64
	p   []byte
}

func protoEach(b []byte, num protowire.Number, typ protowire.Type) protoIter {
	return protoIter{b: b, num: num, typ: typ}
}

func (it *protoIter) next() bool {
	for len(it.b) > 0 {
		num, typ, v, p, n := protoNext(it.b)
		if n <= 0 {
			return false
		}
		it.b = it.b[n:]
		if it.num == 0 || (num == it.num && typ == it.typ) {
			it.at, it.v, it.p = num, v, p
			return true
		}
	}
	return false
}

// protoObject closes an object whose members were appended from mark, each
// after a comma: the first comma becomes the opening brace.
func protoObject(dst []byte, mark int) []byte {
	if len(dst) == mark {
		return append(dst, "{}"...)
	}
	dst[mark] = '{'
	return append(dst, '}')
}

// protoCheck reads every field of b once, for its wire errors only.
func protoCheck(b []byte) error {
	for i := 0; i < len(b); {
		_, _, _, _, n := protoNext(b[i:])
		if n < 0 {
			return protoWireErr(n)
		}
		i += n
	}
	return nil
}

// value appends the JSON form of a google.protobuf.Value message. Like the
// reference, when several kinds are set the string wins, then the number,
// the bool, the struct, the list, and null; a Value with none is null here
// (an element of a list: JSON.stringify writes undefined there as null),
// and callers that hold a member or an entry drop it instead (valueSet).
func (t *protoReader) value(dst, b []byte) ([]byte, error) {
	if err := t.enter(); err != nil {
		return dst, err
	}
	var str, st, list protoSlot
	var num, boolean uint64
	var isNum, isBool bool
	for i := 0; i < len(b); {
		n, typ, v, p, k := protoNext(b[i:])
		if k < 0 {
			return dst, protoWireErr(k)
		}
		i += k
		switch {
		case n == valueString:
			str.add(typ, v, p)
		case n == valueNumber && typ == protowire.Fixed64Type:
			num, isNum = v, true
		case n == valueBool && typ == protowire.VarintType:
			boolean, isBool = v, true
		case n == valueStruct:
			st.add(typ, v, p)
		case n == valueList:
			list.add(typ, v, p)
		}
	}
	var err error
	switch {
	case str.n > 0:
		dst = appendProtoString(dst, str.last)
	case isNum:
		dst, err = appendJSNumber(dst, math.Float64frombits(num))
	case isBool:
		dst = strconv.AppendBool(dst, boolean != 0)
	case st.n > 0:
		dst, err = t.structure(dst, st.merged(b, valueStruct))
	case list.n > 0:
		dst, err = t.list(dst, list.merged(b, valueList))
	default:
		dst = append(dst, "null"...)
	}
	t.leave()
	return dst, err
}

// list appends the JSON array of a google.protobuf.ListValue message.
func (t *protoReader) list(dst, b []byte) ([]byte, error) {
	if err := t.enter(); err != nil {
		return dst, err
	}
	if err := protoCheck(b); err != nil {
		return dst, err
	}
	dst = append(dst, '[')
	first := true
	for it := protoEach(b, listValues, protowire.BytesType); it.next(); {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		var err error
		if dst, err = t.value(dst, it.p); err != nil {
			return dst, err
		}
	}
	t.leave()
	return append(dst, ']'), nil
}

// structure appends the JSON object of a google.protobuf.Struct message, its
// members in JavaScript property order (what the reference's object has).
func (t *protoReader) structure(dst, b []byte) ([]byte, error) {
	if err := t.enter(); err != nil {
		return dst, err
	}
	if err := protoCheck(b); err != nil {
		return dst, err
	}
	type entry struct {
		key   []byte
		value []byte
	}
	var buf [16]entry
	entries := buf[:0]
	simple := true // no index-like or repeated key: text order is JavaScript's
	for it := protoEach(b, structFields, protowire.BytesType); it.next(); {
		if err := t.enter(); err != nil {
			return dst, err
		}
		var key, val protoSlot
		for i := 0; i < len(it.p); {
			num, typ, v, p, n := protoNext(it.p[i:])
			if n < 0 {
				return dst, protoWireErr(n)
			}
			i += n
			switch num {
			case entryKey:
				key.add(typ, v, p)
			case entryValue:
				val.add(typ, v, p)
			}
		}
		t.leave()
		value := val.merged(it.p, entryValue)
		if val.n == 0 || !valueSet(value) {
			continue // an entry without a value is dropped, as the reference does
		}
		if simple && isIndexName(key.last) {
			simple = false
		}
		for _, e := range entries {
			if simple && string(e.key) == string(key.last) {
				simple = false
			}
		}
		entries = append(entries, entry{key.last, value})
	}
	order := make([]int, 0, len(entries))
	if simple {
		for i := range entries {
			order = append(order, i)
		}
	} else {
		// JavaScript property order: a repeated key keeps its first place
		// and its last value; array-index keys come first, in numeric order.
		pos := map[string]int{}
		for i, e := range entries {
			if k, ok := pos[string(e.key)]; ok {
				order[k] = i
				continue
			}
			pos[string(e.key)] = len(order)
			order = append(order, i)
		}
		var index, rest []int
		for _, i := range order {
			if isIndexName(entries[i].key) {
				index = append(index, i)
			} else {
				rest = append(rest, i)
			}
		}
		num := func(i int) uint64 { v, _ := strconv.ParseUint(string(entries[i].key), 10, 64); return v }
		for a := 1; a < len(index); a++ {
			for c := a; c > 0 && num(index[c]) < num(index[c-1]); c-- {
				index[c], index[c-1] = index[c-1], index[c]
			}
		}
		order = append(index, rest...)
	}
	dst = append(dst, '{')
	for n, i := range order {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = appendProtoString(dst, entries[i].key)
		dst = append(dst, ':')
		var err error
		if dst, err = t.value(dst, entries[i].value); err != nil {
			return dst, err
		}
	}
	t.leave()
	return append(dst, '}'), nil
}

// appendJSNumber appends f as JavaScript's JSON.stringify writes it.
func appendJSNumber(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, protoErr("a number value is not finite, which JSON cannot carry")
	}
	if f == 0 {
		return append(dst, '0'), nil // -0 too, as JSON.stringify writes it
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(dst, int64(f), 10), nil // the common case, exactly
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Go writes e-07 where JavaScript writes e-7.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// appendProtoString appends a protobuf string as a JSON string. Bytes that
// are not UTF-8 become U+FFFD, as AppendJSONString writes them, so the JSON
// text of an event read from protobuf is the JSON text of the same event.
func appendProtoString(dst, s []byte) []byte {
	return AppendJSONString(dst, string(s))
}

// valueSet reports whether the google.protobuf.Value message b has a kind
// set, whatever its wire errors (value reports those).
func valueSet(b []byte) bool {
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return true // let value() report the broken bytes
		}
		i += n
		switch {
		case num == valueNull && typ == protowire.VarintType,
			num == valueNumber && typ == protowire.Fixed64Type,
			num == valueString && typ == protowire.BytesType,
			num == valueBool && typ == protowire.VarintType,
			num == valueStruct && typ == protowire.BytesType,
			num == valueList && typ == protowire.BytesType:
			return true
		}
		m := protowire.ConsumeFieldValue(num, typ, b[i:])
		if m < 0 {
			return true
		}
		i += m
	}
	return false
}
