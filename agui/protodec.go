package agui

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"

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

var protoReaders = sync.Pool{New: func() any { return &protoReader{stack: make([]protoEntry, 0, 64)} }}

func getProtoReader() *protoReader { return protoReaders.Get().(*protoReader) }

// putProtoReader returns t to the pool, unless it grew large, and without
// references into the caller's bytes.
func putProtoReader(t *protoReader) {
	if cap(t.stack) > 4096 || cap(t.out) > 1<<20 {
		return
	}
	clear(t.stack[:cap(t.stack)])
	t.stack, t.out, t.depth = t.stack[:0], t.out[:0], 0
	protoReaders.Put(t)
}

// EventProtoToJSON appends the JSON form of the ag_ui.Event message b to
// dst, without checking it against the schema: the form @ag-ui/proto's
// decode() produces, for tools that inspect what was sent.
func EventProtoToJSON(dst, b []byte) ([]byte, error) {
	t := getProtoReader()
	defer putProtoReader(t)
	return t.event(dst, b)
}

func (t *protoReader) event(dst, b []byte) ([]byte, error) {
	arm, payload, err := envelopeArm(b)
	if err != nil {
		return dst, err
	}
	ev := &protoEvents[arm]
	m, err := t.parse(payload)
	if err != nil {
		return dst, err
	}
	base, ok := lastBytes(m, 1)
	if !ok {
		return dst, protoErr("the event carries no base event")
	}
	bm, err := t.parse(base)
	if err != nil {
		return dst, err
	}
	typ, _ := lastVarint(bm, 1)
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
	dst = AppendJSONString(dst, string(ev.typ))
	if dst, err = t.fields(dst, bm, protoMsgBase, true); err != nil {
		return dst, err
	}
	if dst, err = t.fields(dst, m, ev.msg, true); err != nil {
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

// protoReader turns protobuf bytes into JSON text by the tables. Each
// message is parsed once into its fields; the fields of the messages being
// read live on one stack, released as each message is done.
type protoReader struct {
	depth int
	stack []protoEntry
	out   []byte // DecodeEventProto's JSON
}

// protoEntry is one field of a parsed message.
type protoEntry struct {
	num protowire.Number
	typ protowire.Type
	v   uint64 // varint and fixed64 values
	b   []byte // length-delimited payloads
}

// parse splits the message b into its fields, on the reader's stack. The
// result stays valid while the reader lives (a stack that grows moves to a
// new array, leaving the old entries intact).
func (t *protoReader) parse(b []byte) ([]protoEntry, error) {
	t.depth++
	if t.depth > maxDepth {
		return nil, protoErr("nested too deeply")
	}
	start := len(t.stack)
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return nil, protoWireErr(n)
		}
		i += n
		e := protoEntry{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			e.v, n = protowire.ConsumeVarint(b[i:])
		case protowire.Fixed64Type:
			e.v, n = protowire.ConsumeFixed64(b[i:])
		case protowire.BytesType:
			e.b, n = protowire.ConsumeBytes(b[i:])
		default:
			n = protowire.ConsumeFieldValue(num, typ, b[i:])
		}
		if n < 0 {
			return nil, protoWireErr(n)
		}
		i += n
		t.stack = append(t.stack, e)
	}
	return t.stack[start:len(t.stack):len(t.stack)], nil
}

// done releases the fields of a message parsed with parse.
func (t *protoReader) done(m []protoEntry) {
	t.depth--
	if n := len(t.stack) - len(m); n >= 0 && len(m) > 0 && &t.stack[n] == &m[0] {
		t.stack = t.stack[:n]
	}
}

// lastBytes returns the payload of the length-delimited field num, merging
// several occurrences as protobuf merges a singular message.
func lastBytes(m []protoEntry, num protowire.Number) ([]byte, bool) {
	var out []byte
	found, merged := false, false
	for i := range m {
		if m[i].num != num || m[i].typ != protowire.BytesType {
			continue
		}
		switch {
		case !found:
			out = m[i].b
		case !merged:
			out = append(append([]byte(nil), out...), m[i].b...)
			merged = true
		default:
			out = append(out, m[i].b...)
		}
		found = true
	}
	return out, found
}

// lastString is lastBytes for a string field: the last occurrence wins.
func lastString(m []protoEntry, num protowire.Number) ([]byte, bool) {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i].num == num && m[i].typ == protowire.BytesType {
			return m[i].b, true
		}
	}
	return nil, false
}

// lastVarint returns the last varint field num.
func lastVarint(m []protoEntry, num protowire.Number) (uint64, bool) {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i].num == num && m[i].typ == protowire.VarintType {
			return m[i].v, true
		}
	}
	return 0, false
}

// has reports whether field num occurs, of any wire type.
func has(m []protoEntry, num protowire.Number) bool {
	for i := range m {
		if m[i].num == num {
			return true
		}
	}
	return false
}

// fields appends the members of the parsed message m as described by d,
// each preceded by a comma when comma is set (or after the first
// otherwise).
func (t *protoReader) fields(dst []byte, m []protoEntry, d *protoMsg, comma bool) ([]byte, error) {
	var err error
	for i := range d.fields {
		f := &d.fields[i]
		start := len(dst)
		sep := func(dst []byte) []byte {
			if comma {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, f.name)
			return append(dst, ':')
		}
		var wrote bool
		switch {
		case f.repeated:
			wrote = true
			dst = sep(dst)
			dst = append(dst, '[')
			want := protowire.BytesType
			if f.kind == pkInt || f.kind == pkBool {
				want = protowire.VarintType
			}
			n := 0
			for k := range m {
				if m[k].num != f.num || m[k].typ != want {
					continue
				}
				mark := len(dst)
				if n > 0 {
					dst = append(dst, ',')
				}
				var keep bool
				dst, keep, err = t.single(dst, f, m[k].b, m[k].v)
				if err != nil {
					return dst, err
				}
				if !keep {
					dst = dst[:mark]
					continue
				}
				n++
			}
			dst = append(dst, ']')
			if n == 0 && !f.required {
				dst, wrote = dst[:start], false
			}
		case f.kind == pkFlatten:
			dst, wrote, err = t.flatten(dst, m, f, sep)
		case f.kind == pkContent:
			dst, wrote, err = t.content(dst, m, f, sep)
		case f.kind == pkInt || f.kind == pkBool:
			if v, ok := lastVarint(m, f.num); ok {
				dst = sep(dst)
				dst, _, err = t.single(dst, f, nil, v)
				wrote = true
			}
		default:
			var raw []byte
			var ok bool
			if f.kind == pkString {
				raw, ok = lastString(m, f.num)
			} else {
				raw, ok = lastBytes(m, f.num)
			}
			switch {
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
		if !valueSet(raw) {
			// The reference reads a Value with no kind set as undefined,
			// and the member as absent.
			return dst, false, nil
		}
		dst, err = t.value(dst, raw)
		return dst, true, err
	case pkStruct:
		dst, err = t.structure(dst, raw)
		return dst, true, err
	case pkMessage:
		m, err := t.parse(raw)
		if err != nil {
			return dst, false, err
		}
		dst = append(dst, '{')
		dst, err = t.fields(dst, m, f.msg, false)
		t.done(m)
		return append(dst, '}'), true, err
	case pkUnion:
		return t.union(dst, raw, f.union)
	}
	return dst, false, protoErr("no decoding for " + f.name)
}

// union appends one union value from its message.
func (t *protoReader) union(dst, raw []byte, u *protoUnion) ([]byte, bool, error) {
	m, err := t.parse(raw)
	if err != nil {
		return dst, false, err
	}
	defer t.done(m)
	if !u.merged {
		var v *protoVariant
		var payload []byte
		for i := range u.variants {
			if p, ok := lastBytes(m, u.variants[i].arm); ok {
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
		pm, err := t.parse(payload)
		if err != nil {
			return dst, false, err
		}
		dst = append(dst, '{')
		dst = AppendJSONString(dst, u.disc)
		dst = append(dst, ':')
		dst = AppendJSONString(dst, v.disc)
		dst, err = t.fields(dst, pm, v.msg, true)
		t.done(pm)
		return append(dst, '}'), true, err
	}
	var disc string
	if u.enum {
		n, _ := lastVarint(m, u.discNum)
		disc = strconv.FormatUint(n, 10)
		for i := range u.variants {
			if uint64(u.variants[i].enum) == n {
				disc = u.variants[i].disc
			}
		}
	} else {
		s, _ := lastString(m, u.discNum)
		disc = string(s)
	}
	dst = append(dst, '{')
	dst = AppendJSONString(dst, u.disc)
	dst = append(dst, ':')
	dst = appendProtoString(dst, []byte(disc))
	for i := range u.variants {
		v := &u.variants[i]
		if v.disc != disc {
			continue
		}
		if dst, err = t.fields(dst, m, v.msg, true); err != nil {
			return dst, false, err
		}
		if dst, err = t.foreign(dst, m, u, v); err != nil {
			return dst, false, err
		}
		return append(dst, '}'), true, nil
	}
	// An unknown discriminator: hand on every member under its name, as the
	// reference does, and let the JSON decoder judge the role.
	var done []*protoField
	for k := range m {
		f := u.field(m[k].num)
		if f == nil || m[k].num == u.discNum || slices.Contains(done, f) {
			continue
		}
		done = append(done, f)
		one := protoMsg{name: u.name, fields: []protoField{*f}}
		if dst, err = t.fields(dst, m, &one, true); err != nil {
			return dst, false, err
		}
	}
	return append(dst, '}'), true, nil
}

// foreign handles the fields of a merged message that another variant owns
// (string content on an activity message, parts on a role without parts,
// a value on a remove operation). An open variant keeps them as members, as
// the reference does; any other rejects them, since the value would
// otherwise be lost without a word.
func (t *protoReader) foreign(dst []byte, m []protoEntry, u *protoUnion, v *protoVariant) ([]byte, error) {
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
	for k := range m {
		n := m[k].num
		if own(n) {
			continue
		}
		f := u.field(n)
		if f == nil {
			continue // a field no variant defines: protobuf ignores it
		}
		first := true
		for j := range k {
			if m[j].num == n {
				first = false
			}
		}
		if !first {
			continue
		}
		if !v.msg.open || f.kind == pkContent || f.repeated {
			return dst, protoErr(u.name + " " + strconv.Quote(v.disc) + " carries field " + strconv.Itoa(int(n)) + " (" + f.name + "), which it does not have")
		}
		var raw []byte
		if f.kind == pkString {
			raw, _ = lastString(m, n)
		} else {
			raw, _ = lastBytes(m, n)
		}
		mark := len(dst)
		dst = append(dst, ',')
		dst = AppendJSONString(dst, f.name)
		dst = append(dst, ':')
		var keep bool
		var err error
		if dst, keep, err = t.single(dst, f, raw, m[k].v); err != nil {
			return dst, err
		}
		if !keep {
			dst = dst[:mark]
		}
	}
	return dst, nil
}

// field returns the field number n of any variant of u, or nil.
func (u *protoUnion) field(n protowire.Number) *protoField {
	for i := range u.variants {
		for k := range u.variants[i].msg.fields {
			if f := &u.variants[i].msg.fields[k]; f.num == n || f.parts == n {
				return f
			}
		}
	}
	return nil
}

// flatten appends a union member whose discriminator is the string at
// f.num and whose members sit beside it in m (outcomes). Like the
// reference, members of another variant that arrived anyway are not lost:
// they join the outcome, or sit at the top level when there is no outcome,
// where the JSON decoder names them.
func (t *protoReader) flatten(dst []byte, m []protoEntry, f *protoField, sep func([]byte) []byte) ([]byte, bool, error) {
	s, ok := lastString(m, f.num)
	if !ok || len(s) == 0 {
		dst, err := t.strays(dst, m, f.union, nil)
		return dst, false, err
	}
	dst = sep(dst)
	dst = append(dst, '{')
	dst = AppendJSONString(dst, f.union.disc)
	dst = append(dst, ':')
	dst = appendProtoString(dst, s)
	var chosen *protoVariant
	var err error
	for i := range f.union.variants {
		if v := &f.union.variants[i]; v.disc == string(s) {
			chosen = v
			if dst, err = t.fields(dst, m, v.msg, true); err != nil {
				return dst, false, err
			}
		}
	}
	dst, err = t.strays(dst, m, f.union, chosen)
	return append(dst, '}'), true, err
}

// strays appends, each after a comma, the members of u's variants other
// than chosen that are present in m.
func (t *protoReader) strays(dst []byte, m []protoEntry, u *protoUnion, chosen *protoVariant) ([]byte, error) {
	var done []protowire.Number
	for i := range u.variants {
		v := &u.variants[i]
		if v == chosen {
			continue
		}
		for k := range v.msg.fields {
			f := v.msg.fields[k]
			if !has(m, f.num) || slices.Contains(done, f.num) || (chosen != nil && chosen.owns(f.num)) {
				continue
			}
			done = append(done, f.num)
			one := protoMsg{name: v.msg.name, fields: []protoField{f}}
			var err error
			if dst, err = t.fields(dst, m, &one, true); err != nil {
				return dst, err
			}
		}
	}
	return dst, nil
}

// owns reports whether the variant's message has field n.
func (v *protoVariant) owns(n protowire.Number) bool {
	for _, f := range v.msg.fields {
		if f.num == n {
			return true
		}
	}
	return false
}

// content appends Content: the string at f.num, else the list of parts at
// f.parts (empty when neither is there).
func (t *protoReader) content(dst []byte, m []protoEntry, f *protoField, sep func([]byte) []byte) ([]byte, bool, error) {
	s, isText := lastString(m, f.num)
	hasParts := false
	for k := range m {
		if m[k].num == f.parts && m[k].typ == protowire.BytesType {
			hasParts = true
		}
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
	for k := range m {
		if m[k].num != f.parts || m[k].typ != protowire.BytesType {
			continue
		}
		mark := len(dst)
		if n > 0 {
			dst = append(dst, ',')
		}
		var keep bool
		var err error
		dst, keep, err = t.union(dst, m[k].b, f.union)
		if err != nil {
			return dst, false, err
		}
		if !keep {
			dst = dst[:mark]
			continue
		}
		n++
	}
	return append(dst, ']'), true, nil
}

// value appends the JSON form of a google.protobuf.Value message. Like the
// reference, when several kinds are set the string wins, then the number,
// the bool, the struct, the list, and null; a Value with none is null here
// (an element of a list: JSON.stringify writes undefined there as null),
// and callers that hold a member or an entry drop it instead (valueSet).
func (t *protoReader) value(dst, b []byte) ([]byte, error) {
	m, err := t.parse(b)
	if err != nil {
		return dst, err
	}
	defer t.done(m)
	if s, ok := lastString(m, valueString); ok {
		return appendProtoString(dst, s), nil
	}
	for i := len(m) - 1; i >= 0; i-- {
		if m[i].num == valueNumber && m[i].typ == protowire.Fixed64Type {
			return appendJSNumber(dst, math.Float64frombits(m[i].v))
		}
	}
	if v, ok := lastVarint(m, valueBool); ok {
		return strconv.AppendBool(dst, v != 0), nil
	}
	if st, ok := lastBytes(m, valueStruct); ok {
		return t.structure(dst, st)
	}
	if list, ok := lastBytes(m, valueList); ok {
		lm, err := t.parse(list)
		if err != nil {
			return dst, err
		}
		defer t.done(lm)
		dst = append(dst, '[')
		first := true
		for k := range lm {
			if lm[k].num != listValues || lm[k].typ != protowire.BytesType {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			if dst, err = t.value(dst, lm[k].b); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	return append(dst, "null"...), nil
}

// structure appends the JSON object of a google.protobuf.Struct message, its
// members in JavaScript property order (what the reference's object has).
func (t *protoReader) structure(dst, b []byte) ([]byte, error) {
	m, err := t.parse(b)
	if err != nil {
		return dst, err
	}
	defer t.done(m)
	type entry struct {
		key   []byte
		value []byte
	}
	var buf [16]entry
	entries := buf[:0]
	simple := true // no index-like or repeated key: text order is JavaScript's
	for k := range m {
		if m[k].num != structFields || m[k].typ != protowire.BytesType {
			continue
		}
		em, err := t.parse(m[k].b)
		if err != nil {
			return dst, err
		}
		key, _ := lastString(em, entryKey)
		val, ok := lastBytes(em, entryValue)
		t.done(em)
		if !ok || !valueSet(val) {
			continue // an entry without a value is dropped, as the reference does
		}
		if simple && isIndexName(key) {
			simple = false
		}
		for _, e := range entries {
			if simple && string(e.key) == string(key) {
				simple = false
			}
		}
		entries = append(entries, entry{key, val})
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

// errNilUnion reports a nil union value met while encoding.
func errNilUnion(name string) error {
	return errors.New("a " + name + " value is nil")
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
