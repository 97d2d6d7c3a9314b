package agui

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// This file decodes the protobuf binding. The generated tables
// (proto_gen.go) say, for every protobuf message, which field number holds
// which JSON member and how; the bytes are turned into the event's JSON form
// by those tables and then decoded by the JSON decoder, so an event read
// from protobuf is checked by exactly the rules of an event read from SSE.
//
// It mirrors @ag-ui/proto 1.0.0's decode(): the populated arm of the
// envelope decides the type, a base event declaring another type is an
// error, several different arms are an error, and an envelope whose only
// arms are unknown but well-formed is an unknown event type. Protobuf cannot
// tell an absent required string or list from an empty one, so those come
// back empty, as the protocol allows; an absent optional list comes back
// absent.

// DecodeEventProto decodes one ag_ui.Event message (without its length
// prefix) strictly. An envelope carrying only an arm this SDK does not know
// is an *UnknownEventTypeError, which matches ErrUnknownEventType; any
// other failure is a *DecodeError.
func DecodeEventProto(b []byte) (Event, error) {
	data, err := EventProtoToJSON(nil, b)
	if err != nil {
		return nil, err
	}
	return DecodeEvent(data)
}

// DecodeEventProtoLenient is DecodeEventProto with the lenient JSON
// decoder's tolerance of what older peers send.
func DecodeEventProtoLenient(b []byte) (Event, []Warning, error) {
	data, err := EventProtoToJSON(nil, b)
	if err != nil {
		return nil, nil, err
	}
	return DecodeEventLenient(data)
}

// EventProtoToJSON appends the JSON form of the ag_ui.Event message b to
// dst, without checking it against the schema: the form @ag-ui/proto's
// decode() produces, for tools that inspect what was sent.
func EventProtoToJSON(dst, b []byte) ([]byte, error) {
	arm, payload, err := envelopeArm(b)
	if err != nil {
		return dst, err
	}
	ev := &protoEvents[arm]
	t := protoReader{}
	base, ok, err := t.last(payload, 1)
	if err != nil {
		return dst, err
	}
	if !ok {
		return dst, protoErr("the event carries no base event")
	}
	typ, _, err := t.lastVarint(base, 1)
	if err != nil {
		return dst, err
	}
	if typ != ev.enum {
		declared := "an unknown type (" + strconv.FormatUint(typ, 10) + ")"
		for i := range protoEvents {
			if protoEvents[i].enum == typ {
				declared = string(protoEvents[i].typ)
			}
		}
		return dst, protoErr("the envelope carries " + string(ev.typ) + " but the base event declares " + declared)
	}
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, string(ev.typ))
	if dst, err = t.fields(dst, base, protoMsgBase, true); err != nil {
		return dst, err
	}
	if dst, err = t.fields(dst, payload, ev.msg, true); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// envelopeArm finds the one known arm of the envelope and its payload
// (repeated occurrences of the same arm merge, as protobuf merges a
// repeated singular message).
func envelopeArm(b []byte) (int, []byte, error) {
	arm := -1
	var payload []byte
	parts := 0
	unknown := protowire.Number(0) // the first unknown arm that walks as a message
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return 0, nil, protoWireErr(n)
		}
		i += n
		k := protoArmIndex(num)
		if k >= 0 && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b[i:])
			if m < 0 {
				return 0, nil, protoWireErr(m)
			}
			i += m
			if arm >= 0 && arm != k {
				return 0, nil, protoErr("the envelope carries more than one event (" + string(protoEvents[arm].typ) + " and " + string(protoEvents[k].typ) + ")")
			}
			arm = k
			if parts == 0 {
				payload = v
			} else {
				payload = append(append([]byte(nil), payload...), v...)
			}
			parts++
			continue
		}
		if k >= 0 {
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
	if arm < 0 {
		if unknown > 0 {
			// The arm has no type name on the wire, only its number.
			return 0, nil, &UnknownEventTypeError{Type: "protobuf envelope field " + strconv.Itoa(int(unknown))}
		}
		return 0, nil, protoErr("the envelope carries no event")
	}
	return arm, payload, nil
}

func protoArmIndex(num protowire.Number) int {
	for i := range protoEvents {
		if protoEvents[i].arm == num {
			return i
		}
	}
	return -1
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

func protoErr(reason string) error {
	return &DecodeError{Path: "", Reason: "protobuf: " + reason}
}

func protoWireErr(n int) error {
	return protoErr(protowire.ParseError(n).Error())
}

// Kinds of table entries.
type protoKind uint8

const (
	pkString  protoKind = iota // string
	pkInt                      // int64 varint
	pkBool                     // bool varint
	pkValue                    // google.protobuf.Value: any JSON
	pkStruct                   // google.protobuf.Struct: a JSON object
	pkMessage                  // a nested message (msg)
	pkUnion                    // a union value (union): wrapper or merged message
	pkFlatten                  // a single merged union flattened into this message
	pkContent                  // Content: a string at num or parts at parts
)

// protoMsg is the decoding table of one protobuf message.
type protoMsg struct {
	name   string
	open   bool // keeps members it does not define (JSON Patch operations)
	fields []protoField
}

// protoField maps one field number to one JSON member.
type protoField struct {
	num      protowire.Number
	parts    protowire.Number // pkContent: the content-part list
	name     string
	kind     protoKind
	repeated bool
	required bool
	msg      *protoMsg
	union    *protoUnion
}

// protoUnion is a union: variants are arms of a wrapper message, or share
// one message and are told apart by the discriminator at discNum.
type protoUnion struct {
	name     string
	disc     string
	discNum  protowire.Number
	enum     bool
	merged   bool
	variants []protoVariant
}

type protoVariant struct {
	disc string
	arm  protowire.Number
	enum int
	msg  *protoMsg
}

type protoEvent struct {
	arm  protowire.Number
	enum uint64
	typ  EventType
	msg  *protoMsg
}

// protoReader turns protobuf bytes into JSON text by the tables.
type protoReader struct {
	depth int
}

// last returns the payload of the last occurrence of the length-delimited
// field num, merging occurrences as protobuf merges a singular message.
func (t *protoReader) last(b []byte, num protowire.Number) ([]byte, bool, error) {
	var out []byte
	found, merged := false, false
	for i := 0; i < len(b); {
		n, typ, k := protowire.ConsumeTag(b[i:])
		if k < 0 {
			return nil, false, protoWireErr(k)
		}
		i += k
		if n == num && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b[i:])
			if m < 0 {
				return nil, false, protoWireErr(m)
			}
			if found {
				if !merged {
					out = append([]byte(nil), out...)
					merged = true
				}
				out = append(out, v...)
			} else {
				out = v
			}
			found = true
			i += m
			continue
		}
		m := protowire.ConsumeFieldValue(n, typ, b[i:])
		if m < 0 {
			return nil, false, protoWireErr(m)
		}
		i += m
	}
	return out, found, nil
}

// lastVarint returns the last varint field num.
func (t *protoReader) lastVarint(b []byte, num protowire.Number) (uint64, bool, error) {
	var out uint64
	found := false
	for i := 0; i < len(b); {
		n, typ, k := protowire.ConsumeTag(b[i:])
		if k < 0 {
			return 0, false, protoWireErr(k)
		}
		i += k
		if n == num && typ == protowire.VarintType {
			v, m := protowire.ConsumeVarint(b[i:])
			if m < 0 {
				return 0, false, protoWireErr(m)
			}
			out, found = v, true
			i += m
			continue
		}
		m := protowire.ConsumeFieldValue(n, typ, b[i:])
		if m < 0 {
			return 0, false, protoWireErr(m)
		}
		i += m
	}
	return out, found, nil
}

// each calls f with every occurrence of field num of the wanted wire type.
func (t *protoReader) each(b []byte, num protowire.Number, want protowire.Type, f func(raw []byte, v uint64) error) error {
	for i := 0; i < len(b); {
		n, typ, k := protowire.ConsumeTag(b[i:])
		if k < 0 {
			return protoWireErr(k)
		}
		i += k
		if n == num && typ == want {
			switch typ {
			case protowire.BytesType:
				v, m := protowire.ConsumeBytes(b[i:])
				if m < 0 {
					return protoWireErr(m)
				}
				i += m
				if err := f(v, 0); err != nil {
					return err
				}
			case protowire.VarintType:
				v, m := protowire.ConsumeVarint(b[i:])
				if m < 0 {
					return protoWireErr(m)
				}
				i += m
				if err := f(nil, v); err != nil {
					return err
				}
			}
			continue
		}
		m := protowire.ConsumeFieldValue(n, typ, b[i:])
		if m < 0 {
			return protoWireErr(m)
		}
		i += m
	}
	return nil
}

func (t *protoReader) has(b []byte, num protowire.Number) (bool, error) {
	found := false
	err := t.each(b, num, protowire.BytesType, func([]byte, uint64) error { found = true; return nil })
	return found, err
}

// fields appends the members of the message b as described by d, each
// preceded by a comma when comma is set (or after the first otherwise).
func (t *protoReader) fields(dst, b []byte, d *protoMsg, comma bool) ([]byte, error) {
	t.depth++
	defer func() { t.depth-- }()
	if t.depth > maxDepth {
		return dst, protoErr("nested too deeply")
	}
	var err error
	for i := range d.fields {
		f := &d.fields[i]
		start := len(dst)
		sep := func(dst []byte) []byte {
			if comma {
				dst = append(dst, ',')
			}
			dst = appendString(dst, f.name)
			return append(dst, ':')
		}
		var wrote bool
		if f.repeated {
			wrote = true
			dst = sep(dst)
			dst = append(dst, '[')
			n := 0
			want := protowire.BytesType
			if f.kind == pkInt || f.kind == pkBool {
				want = protowire.VarintType
			}
			err = t.each(b, f.num, want, func(raw []byte, v uint64) error {
				mark := len(dst)
				if n > 0 {
					dst = append(dst, ',')
				}
				var keep bool
				var err error
				dst, keep, err = t.single(dst, f, raw, v)
				if !keep {
					dst = dst[:mark]
					return err
				}
				n++
				return err
			})
			if err != nil {
				return dst, err
			}
			dst = append(dst, ']')
			if n == 0 && !f.required {
				dst, wrote = dst[:start], false
			}
		} else {
			switch f.kind {
			case pkFlatten:
				dst, wrote, err = t.flatten(dst, b, f, sep)
			case pkContent:
				dst, wrote, err = t.content(dst, b, f, sep)
			case pkInt, pkBool:
				v, ok, e := t.lastVarint(b, f.num)
				if err = e; err == nil && ok {
					dst = sep(dst)
					dst, _, err = t.single(dst, f, nil, v)
					wrote = true
				}
			default:
				raw, ok, e := t.last(b, f.num)
				err = e
				switch {
				case err != nil:
				case ok:
					dst = sep(dst)
					var keep bool
					dst, keep, err = t.single(dst, f, raw, 0)
					wrote = keep
					if !keep {
						dst = dst[:start]
					}
				case f.required && f.kind == pkString:
					dst = sep(dst)
					dst = append(dst, `""`...)
					wrote = true
				}
			}
		}
		if err != nil {
			return dst, err
		}
		if wrote {
			comma = true
		}
	}
	return dst, nil
}

// single appends one value of f. keep is false when the value is to be
// left out (a content part of a kind this SDK does not know).
func (t *protoReader) single(dst []byte, f *protoField, raw []byte, v uint64) ([]byte, bool, error) {
	var err error
	switch f.kind {
	case pkString:
		return appendProtoString(dst, raw), true, nil
	case pkInt:
		return strconv.AppendInt(dst, int64(v), 10), true, nil
	case pkBool:
		return strconv.AppendBool(dst, v != 0), true, nil
	case pkValue:
		dst, err = t.value(dst, raw)
		return dst, true, err
	case pkStruct:
		dst, err = t.structure(dst, raw)
		return dst, true, err
	case pkMessage:
		dst = append(dst, '{')
		dst, err = t.fields(dst, raw, f.msg, false)
		return append(dst, '}'), true, err
	case pkUnion:
		return t.union(dst, raw, f.union)
	}
	return dst, false, protoErr("no decoding for " + f.name)
}

// union appends one union value from its message.
func (t *protoReader) union(dst, raw []byte, u *protoUnion) ([]byte, bool, error) {
	if !u.merged {
		var v *protoVariant
		var payload []byte
		for i := range u.variants {
			p, ok, err := t.last(raw, u.variants[i].arm)
			if err != nil {
				return dst, false, err
			}
			if ok {
				if v != nil {
					return dst, false, protoErr(u.name + " carries more than one arm")
				}
				v, payload = &u.variants[i], p
			}
		}
		if v == nil {
			// An arm this build does not know: the reference drops the
			// value too.
			return dst, false, nil
		}
		dst = append(dst, '{')
		dst = appendString(dst, u.disc)
		dst = append(dst, ':')
		dst = appendString(dst, v.disc)
		dst, err := t.fields(dst, payload, v.msg, true)
		return append(dst, '}'), true, err
	}
	var disc string
	if u.enum {
		n, _, err := t.lastVarint(raw, u.discNum)
		if err != nil {
			return dst, false, err
		}
		disc = strconv.FormatUint(n, 10)
		for i := range u.variants {
			if uint64(u.variants[i].enum) == n {
				disc = u.variants[i].disc
			}
		}
	} else {
		s, _, err := t.last(raw, u.discNum)
		if err != nil {
			return dst, false, err
		}
		disc = string(s)
	}
	dst = append(dst, '{')
	dst = appendString(dst, u.disc)
	dst = append(dst, ':')
	dst = appendString(dst, disc)
	for i := range u.variants {
		v := &u.variants[i]
		if v.disc != disc {
			continue
		}
		dst, err := t.fields(dst, raw, v.msg, true)
		if err != nil {
			return dst, false, err
		}
		if dst, err = t.foreign(dst, raw, u, v); err != nil {
			return dst, false, err
		}
		return append(dst, '}'), true, nil
	}
	// An unknown discriminator: the JSON decoder names it.
	return append(dst, '}'), true, nil
}

// foreign handles the fields of a merged message that another variant owns
// (string content on an activity message, parts on a role without parts,
// a value on a remove operation). An open variant keeps them as members, as
// the reference does; any other rejects them, since the value would
// otherwise be lost without a word.
func (t *protoReader) foreign(dst, raw []byte, u *protoUnion, v *protoVariant) ([]byte, error) {
	own := func(n protowire.Number) bool {
		if n == u.discNum {
			return true
		}
		for _, f := range v.msg.fields {
			if f.num == n || (f.kind == pkContent && f.parts == n) {
				return true
			}
		}
		return false
	}
	done := map[protowire.Number]bool{}
	for i := range u.variants {
		for k := range u.variants[i].msg.fields {
			f := &u.variants[i].msg.fields[k]
			for _, n := range []protowire.Number{f.num, f.parts} {
				if n == 0 || own(n) || done[n] {
					continue
				}
				done[n] = true
				found, err := t.present(raw, n)
				if err != nil {
					return dst, err
				}
				if !found {
					continue
				}
				if !v.msg.open || f.kind == pkContent || f.repeated {
					return dst, protoErr(u.name + " " + strconv.Quote(v.disc) + " carries field " + strconv.Itoa(int(n)) + " (" + f.name + "), which it does not have")
				}
				payload, _, err := t.last(raw, n)
				if err != nil {
					return dst, err
				}
				dst = append(dst, ',')
				dst = appendString(dst, f.name)
				dst = append(dst, ':')
				if dst, _, err = t.single(dst, f, payload, 0); err != nil {
					return dst, err
				}
			}
		}
	}
	return dst, nil
}

// present reports whether field num occurs in b, of any wire type.
func (t *protoReader) present(b []byte, num protowire.Number) (bool, error) {
	for i := 0; i < len(b); {
		n, typ, k := protowire.ConsumeTag(b[i:])
		if k < 0 {
			return false, protoWireErr(k)
		}
		i += k
		if n == num {
			return true, nil
		}
		m := protowire.ConsumeFieldValue(n, typ, b[i:])
		if m < 0 {
			return false, protoWireErr(m)
		}
		i += m
	}
	return false, nil
}

// flatten appends a union member whose discriminator is the string at
// f.num and whose members sit beside it in b (outcomes).
func (t *protoReader) flatten(dst, b []byte, f *protoField, sep func([]byte) []byte) ([]byte, bool, error) {
	s, ok, err := t.last(b, f.num)
	if err != nil || !ok || len(s) == 0 {
		return dst, false, err
	}
	dst = sep(dst)
	dst = append(dst, '{')
	dst = appendString(dst, f.union.disc)
	dst = append(dst, ':')
	dst = appendProtoString(dst, s)
	for i := range f.union.variants {
		v := &f.union.variants[i]
		if v.disc == string(s) {
			dst, err = t.fields(dst, b, v.msg, true)
			break
		}
	}
	return append(dst, '}'), true, err
}

// content appends Content: the string at f.num, else the list of parts at
// f.parts (empty when neither is there).
func (t *protoReader) content(dst, b []byte, f *protoField, sep func([]byte) []byte) ([]byte, bool, error) {
	s, isText, err := t.last(b, f.num)
	if err != nil {
		return dst, false, err
	}
	hasParts, err := t.has(b, f.parts)
	if err != nil {
		return dst, false, err
	}
	if isText && hasParts {
		return dst, false, protoErr(f.name + " carries both string content and content parts")
	}
	dst = sep(dst)
	if isText {
		return appendProtoString(dst, s), true, nil
	}
	dst = append(dst, '[')
	n := 0
	err = t.each(b, f.parts, protowire.BytesType, func(raw []byte, _ uint64) error {
		mark := len(dst)
		if n > 0 {
			dst = append(dst, ',')
		}
		var keep bool
		var err error
		dst, keep, err = t.union(dst, raw, f.union)
		if !keep {
			dst = dst[:mark]
			return err
		}
		n++
		return err
	})
	return append(dst, ']'), true, err
}

// value appends the JSON form of a google.protobuf.Value message. Like the
// reference, when several kinds are set the string wins, then the number,
// the bool, the struct, the list, and null; a Value with none is null.
func (t *protoReader) value(dst, b []byte) ([]byte, error) {
	t.depth++
	defer func() { t.depth-- }()
	if t.depth > maxDepth {
		return dst, protoErr("nested too deeply")
	}
	var (
		str, st, list       []byte
		hasStr, hasSt, hasL bool
		num                 uint64
		hasNum, hasBool     bool
		boolean             uint64
	)
	for i := 0; i < len(b); {
		n, typ, k := protowire.ConsumeTag(b[i:])
		if k < 0 {
			return dst, protoWireErr(k)
		}
		i += k
		switch {
		case n == valueString && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b[i:])
			if m < 0 {
				return dst, protoWireErr(m)
			}
			str, hasStr, i = v, true, i+m
			continue
		case n == valueStruct && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b[i:])
			if m < 0 {
				return dst, protoWireErr(m)
			}
			st, hasSt, i = v, true, i+m
			continue
		case n == valueList && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b[i:])
			if m < 0 {
				return dst, protoWireErr(m)
			}
			list, hasL, i = v, true, i+m
			continue
		case n == valueNumber && typ == protowire.Fixed64Type:
			v, m := protowire.ConsumeFixed64(b[i:])
			if m < 0 {
				return dst, protoWireErr(m)
			}
			num, hasNum, i = v, true, i+m
			continue
		case n == valueBool && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(b[i:])
			if m < 0 {
				return dst, protoWireErr(m)
			}
			boolean, hasBool, i = v, true, i+m
			continue
		}
		m := protowire.ConsumeFieldValue(n, typ, b[i:])
		if m < 0 {
			return dst, protoWireErr(m)
		}
		i += m
	}
	switch {
	case hasStr:
		return appendProtoString(dst, str), nil
	case hasNum:
		return appendJSNumber(dst, math.Float64frombits(num))
	case hasBool:
		return strconv.AppendBool(dst, boolean != 0), nil
	case hasSt:
		return t.structure(dst, st)
	case hasL:
		dst = append(dst, '[')
		first := true
		err := t.each(list, listValues, protowire.BytesType, func(raw []byte, _ uint64) error {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			var err error
			dst, err = t.value(dst, raw)
			return err
		})
		return append(dst, ']'), err
	}
	return append(dst, "null"...), nil
}

// structure appends the JSON object of a google.protobuf.Struct message, its
// members in JavaScript property order (what the reference's object has).
func (t *protoReader) structure(dst, b []byte) ([]byte, error) {
	type entry struct {
		key   string
		value []byte
	}
	var entries []entry
	err := t.each(b, structFields, protowire.BytesType, func(raw []byte, _ uint64) error {
		key, _, err := t.last(raw, entryKey)
		if err != nil {
			return err
		}
		val, ok, err := t.last(raw, entryValue)
		if err != nil || !ok {
			return err // an entry without a value is dropped, as the reference does
		}
		entries = append(entries, entry{string(key), val})
		return nil
	})
	if err != nil {
		return dst, err
	}
	// JavaScript property order: a repeated key keeps its first place and
	// its last value; array-index keys come first, in numeric order.
	order := make([]int, 0, len(entries))
	pos := map[string]int{}
	for i, e := range entries {
		if k, ok := pos[e.key]; ok {
			order[k] = i
			continue
		}
		pos[e.key] = len(order)
		order = append(order, i)
	}
	var index, rest []int
	for _, i := range order {
		if isIndexName([]byte(entries[i].key)) {
			index = append(index, i)
		} else {
			rest = append(rest, i)
		}
	}
	num := func(i int) uint64 { v, _ := strconv.ParseUint(entries[i].key, 10, 64); return v }
	for a := 1; a < len(index); a++ {
		for c := a; c > 0 && num(index[c]) < num(index[c-1]); c-- {
			index[c], index[c-1] = index[c-1], index[c]
		}
	}
	dst = append(dst, '{')
	for n, i := range append(index, rest...) {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = appendProtoString(dst, []byte(entries[i].key))
		dst = append(dst, ':')
		if dst, err = t.value(dst, entries[i].value); err != nil {
			return dst, err
		}
	}
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

// errNilUnion reports a nil union value met while encoding.
func errNilUnion(name string) error {
	return errors.New("a " + name + " value is nil")
}

// appendProtoString appends a protobuf string as a JSON string. Bytes that
// are not UTF-8 become U+FFFD itself, not its escape, as a UTF-8 decoder
// such as the reference's reads them; so the JSON text of a decoded event
// does not change when it is encoded and decoded again.
func appendProtoString(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return appendString(dst, string(s))
	}
	clean := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			clean = utf8.AppendRune(clean, utf8.RuneError)
		} else {
			clean = append(clean, s[i:i+size]...)
		}
		i += size
	}
	return appendString(dst, string(clean))
}
