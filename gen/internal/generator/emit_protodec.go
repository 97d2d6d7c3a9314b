package generator

import (
	"fmt"
	"sort"
	"strconv"

	. "github.com/dave/jennifer/jen"
)

// The protobuf decoder (agui/protodec_gen.go). Each protobuf message gets a
// function that reads its fields once, into one protoSlot per field number
// (agui/protodec.go), and then appends the message's members to the event's
// JSON form in schema order, each after a comma; the JSON decoder judges
// the result, so the protobuf binding accepts exactly what SSE accepts.
//
// What a member becomes, by its kind:
//   - a string is its last occurrence, "" when required and absent;
//   - an integer or a bool is its last varint;
//   - a Value, a Struct, a message or a union is all its occurrences
//     merged, as protobuf merges a singular message; a Value with no kind
//     set, or a union arm this build does not know, leaves the member out;
//   - a list is its occurrences in wire order, [] when required and absent;
//   - Content is the string, else the list of parts, never both;
//   - a flattened union (outcomes) is the string discriminator with the
//     members of its variant, read from the enclosing message; members of
//     another variant are handed on, so the JSON decoder names them;
//   - a merged union (messages, JSON Patch operations) is its discriminator
//     and its variant's members; a member only another variant has is an
//     error, or, on an open variant, kept under its name; an unknown
//     discriminator hands on every member, in wire order.

// decKind is what a member is on the wire, for the decoder.
type decKind uint8

const (
	dkString decKind = iota
	dkInt
	dkBool
	dkValue   // google.protobuf.Value
	dkStruct  // google.protobuf.Struct
	dkMessage // a nested message
	dkUnion   // a union value: a wrapper or a merged message
	dkFlatten // a single merged union flattened into the enclosing message
	dkContent // a string at num or content parts at parts
)

// decField is one member as the decoder reads it.
type decField struct {
	num, parts int
	name       string
	kind       decKind
	repeated   bool
	required   bool
	msg        *StructDef
	union      *UnionDef
}

func (e *emitter) decField(fl *Field) decField {
	pm := &e.m.Proto
	d := decField{num: fl.ProtoField, name: fl.JSON, required: fl.Required}
	t := fl.Type
	if t.Kind == KindArray {
		d.repeated = true
		t = t.Elem
	}
	switch {
	case fl.IsConst, t.Kind == KindString, t.Kind == KindEnum:
		d.kind = dkString
	case t.Kind == KindInt:
		d.kind = dkInt
	case t.Kind == KindBool:
		d.kind = dkBool
	case t.Kind == KindRaw, t.Kind == KindRawNotNull, t.Kind == KindRawObject:
		d.kind = dkValue
		if pm.Info(fl).JSON == "Struct" {
			d.kind = dkStruct
		}
	case t.Kind == KindStruct:
		d.kind, d.msg = dkMessage, t.Struct
	case t.Kind == KindUnion && !d.repeated && pm.Merged(t.Union):
		d.kind, d.union = dkFlatten, t.Union
	case t.Kind == KindUnion:
		d.kind, d.union = dkUnion, t.Union
	case t.Kind == KindContent:
		d.kind, d.parts, d.union = dkContent, pm.Info(fl).Parts, t.Elem.Union
	default:
		panic(fmt.Sprintf("protobuf: no decoding for kind %d of %s", t.Kind, fl.JSON))
	}
	if d.repeated && (d.kind == dkFlatten || d.kind == dkContent) {
		panic("protobuf: no decoding for a list of " + fl.JSON)
	}
	plainName(d.name)
	return d
}

// decFields lists the members of s's message, in schema order; the
// discriminator of a variant is the union's business.
func (e *emitter) decFields(s *StructDef) []decField {
	var out []decField
	for _, fl := range s.Fields {
		if fl == s.Disc && (len(s.Unions) > 0 || fl.ProtoField == 0) {
			continue
		}
		out = append(out, e.decField(fl))
	}
	return out
}

// numbers lists the field numbers a function reads fields into: those of
// fs, with content parts and the members of flattened variants.
func (e *emitter) numbers(fs []decField, extra ...int) []int {
	seen := map[int]bool{}
	for _, n := range extra {
		seen[n] = true
	}
	for _, f := range fs {
		seen[f.num] = true
		if f.kind == dkContent {
			seen[f.parts] = true
		}
		if f.kind == dkFlatten {
			for _, v := range f.union.Variants {
				for _, vf := range e.decFields(v) {
					seen[vf.num] = true
				}
			}
		}
	}
	var out []int
	for n := range seen {
		if n != 0 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// plainName panics on a JSON name that would need escaping, since the
// generated code writes names as they are.
func plainName(s string) {
	for _, c := range []byte(s) {
		if !(c == '_' || c == '-' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			panic(fmt.Sprintf("protobuf: name %q needs escaping", s))
		}
	}
}

// raw writes s as a raw string literal.
func raw(s string) *Statement { return Op("`" + s + "`") }

func appendRaw(s string) *Statement {
	return Id("dst").Op("=").Append(Id("dst"), raw(s).Op("..."))
}

func slotOf(n int) *Statement { return Id(fmt.Sprintf("f%d", n)) }

// decBody builds the statements of one decoding function.
type decBody struct {
	e     *emitter
	union bool // the function returns ([]byte, bool, error)
	err   bool // the statements use err
}

// fail returns from the function with the error err.
func (d *decBody) fail(err Code) *Statement {
	if d.union {
		return Return(Id("dst"), False(), err)
	}
	return Return(Id("dst"), err)
}

// call appends the value call appends to dst, returning on its error.
func (d *decBody) call(call *Statement) []Code {
	d.err = true
	return []Code{
		List(Id("dst"), Err()).Op("=").Add(call),
		If(Err().Op("!=").Nil()).Block(d.fail(Err())),
	}
}

// scan reads the fields of b into a slot per number of nums.
func (d *decBody) scan(nums []int) []Code {
	var out []Code
	if len(nums) > 0 {
		var names []Code
		for _, n := range nums {
			names = append(names, slotOf(n))
		}
		out = append(out, Var().List(names...).Id("protoSlot"))
	}
	vars := List(Id("num"), Id("typ"), Id("v"), Id("p"), Id("n"))
	if len(nums) == 0 {
		vars = List(Id("_"), Id("_"), Id("_"), Id("_"), Id("n"))
	}
	loop := []Code{
		vars.Op(":=").Id("protoNext").Call(Id("b").Index(Id("i"), Empty())),
		If(Id("n").Op("<").Lit(0)).Block(d.fail(Id("protoWireErr").Call(Id("n")))),
		Id("i").Op("+=").Id("n"),
	}
	if len(nums) > 0 {
		loop = append(loop, Switch(Id("num")).BlockFunc(func(g *Group) {
			for _, n := range nums {
				g.Case(Lit(n)).Add(slotOf(n).Dot("add").Call(Id("typ"), Id("v"), Id("p")))
			}
		}))
	}
	return append(out, For(Id("i").Op(":=").Lit(0), Id("i").Op("<").Len(Id("b")), Empty()).Block(loop...))
}

// merged is the payload of the singular field n of b.
func merged(n int) *Statement {
	return slotOf(n).Dot("merged").Call(Id("b"), Lit(n))
}

// field appends member f of the message b, whose fields are in slots.
func (d *decBody) field(f decField) []Code {
	s := slotOf(f.num)
	member := appendRaw(`,"` + f.name + `":`)
	switch {
	case f.repeated:
		return d.list(f)
	case f.kind == dkFlatten:
		return d.flatten(f)
	case f.kind == dkContent:
		return d.content(f)
	}
	var body []Code
	switch f.kind {
	case dkInt:
		return []Code{If(s.Clone().Dot("varint")).Block(member,
			Id("dst").Op("=").Qual("strconv", "AppendInt").Call(Id("dst"), Int64().Call(s.Clone().Dot("v")), Lit(10)))}
	case dkBool:
		return []Code{If(s.Clone().Dot("varint")).Block(member,
			Id("dst").Op("=").Qual("strconv", "AppendBool").Call(Id("dst"), s.Clone().Dot("v").Op("!=").Lit(0)))}
	case dkString:
		c := If(s.Clone().Dot("n").Op(">").Lit(0)).Block(member,
			Id("dst").Op("=").Id("appendProtoString").Call(Id("dst"), s.Clone().Dot("last")))
		if f.required {
			c.Else().Block(appendRaw(`,"` + f.name + `":""`))
		}
		return []Code{c}
	case dkValue:
		body = []Code{If(Id("raw").Op(":=").Add(merged(f.num)), Id("valueSet").Call(Id("raw"))).Block(
			append([]Code{member}, d.call(Id("t").Dot("value").Call(Id("dst"), Id("raw")))...)...)}
	case dkStruct:
		body = append([]Code{member}, d.call(Id("t").Dot("structure").Call(Id("dst"), merged(f.num)))...)
	case dkMessage:
		body = append([]Code{member, Id("m").Op(":=").Len(Id("dst"))}, d.call(Id("t").Dot("protoFields"+f.msg.GoName).Call(Id("dst"), merged(f.num)))...)
		body = append(body, Id("dst").Op("=").Id("protoObject").Call(Id("dst"), Id("m")))
	case dkUnion:
		d.err = true
		body = []Code{
			Id("start").Op(":=").Len(Id("dst")),
			member,
			Var().Id("keep").Bool(),
			If(List(Id("dst"), Id("keep"), Err()).Op("=").Id("t").Dot("protoUnion"+f.union.GoName).Call(Id("dst"), merged(f.num)), Err().Op("!=").Nil()).Block(d.fail(Err())),
			If(Op("!").Id("keep")).Block(Id("dst").Op("=").Id("dst").Index(Empty(), Id("start"))),
		}
	}
	return []Code{If(s.Clone().Dot("n").Op(">").Lit(0)).Block(body...)}
}

// list appends the list member f: its occurrences in wire order.
func (d *decBody) list(f decField) []Code {
	typ, val := "BytesType", "p"
	if f.kind == dkInt || f.kind == dkBool {
		typ, val = "VarintType", "v"
	}
	x := Id("it").Dot(val)
	var pre, elem []Code
	drop := false // an element can be left out
	switch f.kind {
	case dkString:
		elem = []Code{Id("dst").Op("=").Id("appendProtoString").Call(Id("dst"), x)}
	case dkInt:
		elem = []Code{Id("dst").Op("=").Qual("strconv", "AppendInt").Call(Id("dst"), Int64().Call(x), Lit(10))}
	case dkBool:
		elem = []Code{Id("dst").Op("=").Qual("strconv", "AppendBool").Call(Id("dst"), x.Clone().Op("!=").Lit(0))}
	case dkValue:
		pre = []Code{If(Op("!").Id("valueSet").Call(x)).Block(Continue())}
		elem = d.call(Id("t").Dot("value").Call(Id("dst"), x))
		drop = true
	case dkStruct:
		elem = d.call(Id("t").Dot("structure").Call(Id("dst"), x))
	case dkMessage:
		elem = append([]Code{Id("m").Op(":=").Len(Id("dst"))}, d.call(Id("t").Dot("protoFields"+f.msg.GoName).Call(Id("dst"), x))...)
		elem = append(elem, Id("dst").Op("=").Id("protoObject").Call(Id("dst"), Id("m")))
	case dkUnion:
		pre = []Code{Id("mark").Op(":=").Len(Id("dst"))}
		elem = d.unionElem(f.union, x)
		drop = true
	default:
		panic(fmt.Sprintf("protobuf: no list decoding for %s", f.name))
	}
	loop := append(pre, If(Id("k").Op(">").Lit(0)).Block(Id("dst").Op("=").Append(Id("dst"), LitRune(','))))
	loop = append(loop, elem...)
	loop = append(loop, Id("k").Op("++"))
	var body []Code
	dropEmpty := drop && !f.required
	if dropEmpty {
		body = append(body, Id("start").Op(":=").Len(Id("dst")))
	}
	body = append(body,
		appendRaw(`,"`+f.name+`":[`),
		Id("k").Op(":=").Lit(0),
		For(Id("it").Op(":=").Id("protoEach").Call(Id("b"), Lit(f.num), Qual(protowirePkg, typ)), Id("it").Dot("next").Call(), Empty()).Block(loop...),
		Id("dst").Op("=").Append(Id("dst"), LitRune(']')),
	)
	if dropEmpty {
		body = append(body, If(Id("k").Op("==").Lit(0)).Block(Id("dst").Op("=").Id("dst").Index(Empty(), Id("start"))))
	}
	if f.required {
		return []Code{Block(body...)}
	}
	present := slotOf(f.num).Dot("n").Op(">").Lit(0)
	if typ == "VarintType" {
		present = slotOf(f.num).Dot("varint")
	}
	return []Code{If(present).Block(body...)}
}

// unionElem appends one union value of a list, x, dropping it (back to
// mark) when its arm is unknown.
func (d *decBody) unionElem(u *UnionDef, x *Statement) []Code {
	d.err = true
	return []Code{
		Var().Id("keep").Bool(),
		If(List(Id("dst"), Id("keep"), Err()).Op("=").Id("t").Dot("protoUnion"+u.GoName).Call(Id("dst"), x), Err().Op("!=").Nil()).Block(d.fail(Err())),
		If(Op("!").Id("keep")).Block(Id("dst").Op("=").Id("dst").Index(Empty(), Id("mark")), Continue()),
	}
}

// content appends Content: the string at f.num, else the list of parts at
// f.parts (empty when neither is there).
func (d *decBody) content(f decField) []Code {
	s, parts := slotOf(f.num), slotOf(f.parts)
	return []Code{
		If(s.Clone().Dot("n").Op(">").Lit(0).Op("&&").Add(parts.Clone()).Dot("n").Op(">").Lit(0)).Block(
			d.fail(Id("protoErr").Call(Lit(f.name + " carries both string content and content parts")))),
		appendRaw(`,"` + f.name + `":`),
		If(s.Clone().Dot("n").Op(">").Lit(0)).Block(
			Id("dst").Op("=").Id("appendProtoString").Call(Id("dst"), s.Clone().Dot("last")),
		).Else().Block(append([]Code{
			Id("dst").Op("=").Append(Id("dst"), LitRune('[')),
			Id("k").Op(":=").Lit(0),
			For(Id("it").Op(":=").Id("protoEach").Call(Id("b"), Lit(f.parts), Qual(protowirePkg, "BytesType")), Id("it").Dot("next").Call(), Empty()).Block(append(append([]Code{
				Id("mark").Op(":=").Len(Id("dst")),
				If(Id("k").Op(">").Lit(0)).Block(Id("dst").Op("=").Append(Id("dst"), LitRune(','))),
			}, d.unionElem(f.union, Id("it").Dot("p"))...), Id("k").Op("++"))...),
		}, Id("dst").Op("=").Append(Id("dst"), LitRune(']')))...),
	}
}

// flatten appends a flattened union member: its discriminator is the
// string at f.num and its variant's members sit in the enclosing message.
// Like the reference, members of another variant are not lost: they join
// the member, or sit at the top level when there is none.
func (d *decBody) flatten(f decField) []Code {
	s := slotOf(f.num)
	u := f.union
	plainName(u.Disc)
	return []Code{If(s.Clone().Dot("n").Op(">").Lit(0).Op("&&").Len(s.Clone().Dot("last")).Op(">").Lit(0)).Block(
		appendRaw(`,"`+f.name+`":{"`+u.Disc+`":`),
		Id("dst").Op("=").Id("appendProtoString").Call(Id("dst"), s.Clone().Dot("last")),
		Switch(String().Call(s.Clone().Dot("last"))).BlockFunc(func(g *Group) {
			for _, v := range u.Variants {
				var body []Code
				for _, vf := range d.e.decFields(v) {
					body = append(body, d.field(vf)...)
				}
				g.Case(Lit(v.Disc.Const)).Block(append(body, d.strays(u, v)...)...)
			}
			if strays := d.strays(u, nil); len(strays) > 0 {
				g.Default().Block(strays...)
			}
		}),
		Id("dst").Op("=").Append(Id("dst"), LitRune('}')),
	).Else().Block(d.strays(u, nil)...)}
}

// strays appends the members of u's variants other than chosen that are
// present, each once.
func (d *decBody) strays(u *UnionDef, chosen *StructDef) []Code {
	own := map[int]bool{}
	if chosen != nil {
		for _, f := range d.e.decFields(chosen) {
			own[f.num] = true
		}
	}
	var out []Code
	for _, v := range u.Variants {
		if v == chosen {
			continue
		}
		for _, f := range d.e.decFields(v) {
			if own[f.num] {
				continue
			}
			own[f.num] = true
			out = append(out, If(slotOf(f.num).Dot("any")).Block(d.field(f)...))
		}
	}
	return out
}

// decUnion is a union as the decoder reads it.
type decUnion struct {
	u       *UnionDef
	merged  bool
	discNum int
	enum    bool
	// fields holds each variant's members, in variant order.
	fields [][]decField
}

func (e *emitter) decUnion(u *UnionDef) *decUnion {
	pm := &e.m.Proto
	du := &decUnion{u: u, merged: pm.Merged(u)}
	for _, v := range u.Variants {
		if v.Disc != nil && v.Disc.ProtoField != 0 {
			du.discNum = v.Disc.ProtoField
		}
		if pv := pm.Variants[v]; pv != nil && pv.HasEnum {
			du.enum = true
		}
		du.fields = append(du.fields, e.decFields(v))
	}
	return du
}

// at returns the member a field number stands for when the variant is not
// known: the first member of any variant at that number (or whose parts
// are there), as variant and member index; ok is false when there is none.
func (du *decUnion) at(n int) (int, int, bool) {
	for i, fs := range du.fields {
		for k, f := range fs {
			if f.num == n || (f.kind == dkContent && f.parts == n) {
				return i, k, true
			}
		}
	}
	return 0, 0, false
}

// owns reports whether variant i has a member at field number n.
func (du *decUnion) owns(i, n int) bool {
	for _, f := range du.fields[i] {
		if f.num == n || (f.kind == dkContent && f.parts == n) {
			return true
		}
	}
	return false
}

func (e *emitter) emitProtoDecode(f *File) {
	f.ImportName(protowirePkg, "protowire")
	e.emitProtoEvents(f)
	e.emitProtoBaseDecode(f)
	for _, ev := range e.m.Events {
		e.emitProtoEvent(f, ev)
	}
	for _, s := range e.protoMessages() {
		e.emitProtoMessage(f, s)
	}
	for _, u := range e.protoUnions() {
		e.emitProtoUnionDecode(f, e.decUnion(u))
	}
}

// protoMessages lists the structs read as messages of their own: nested
// messages and the arms of wrapper unions, in model order.
func (e *emitter) protoMessages() []*StructDef {
	pm := &e.m.Proto
	used := map[*StructDef]bool{}
	for _, s := range pm.Structs {
		for _, fl := range s.Fields {
			t := fl.Type
			if t.Kind == KindArray || t.Kind == KindContent {
				t = t.Elem
			}
			switch {
			case t.Kind == KindStruct:
				used[t.Struct] = true
			case t.Kind == KindUnion && !pm.Merged(t.Union):
				for _, v := range t.Union.Variants {
					used[v] = true
				}
			}
		}
	}
	var out []*StructDef
	for _, s := range pm.Structs {
		if used[s] {
			out = append(out, s)
		}
	}
	return out
}

// emitProtoEvents writes the envelope's arms: their event types, the event
// type of a BaseEvent type number, and the dispatch to each event's reader.
func (e *emitter) emitProtoEvents(f *File) {
	f.Comment("protoEventArm returns the event type the envelope's arm num carries.")
	f.Func().Id("protoEventArm").Params(Id("num").Qual(protowirePkg, "Number")).Params(Id("EventType"), Bool()).Block(
		Switch(Id("num")).BlockFunc(func(g *Group) {
			for _, ev := range e.m.Events {
				g.Case(Lit(ev.Event.ProtoOneof)).Block(Return(Id(ev.Event.ConstName), True()))
			}
		}),
		Return(Lit(""), False()),
	)
	f.Comment("protoEventTypeOf returns the event type whose BaseEvent type number is n.")
	f.Func().Id("protoEventTypeOf").Params(Id("n").Uint64()).Params(Id("EventType"), Bool()).Block(
		Switch(Id("n")).BlockFunc(func(g *Group) {
			for _, ev := range e.m.Events {
				g.Case(Lit(ev.Event.ProtoEnum)).Block(Return(Id(ev.Event.ConstName), True()))
			}
		}),
		Return(Lit(""), False()),
	)
	f.Comment("protoEvent appends the JSON form of the event message b, the envelope's arm num.")
	f.Func().Params(Id("t").Op("*").Id("protoReader")).Id("protoEvent").Params(Id("dst").Index().Byte(), Id("num").Qual(protowirePkg, "Number"), Id("b").Index().Byte()).Params(Index().Byte(), Error()).Block(
		Switch(Id("num")).BlockFunc(func(g *Group) {
			for _, ev := range e.m.Events {
				g.Case(Lit(ev.Event.ProtoOneof)).Block(Return(Id("t").Dot("protoEvent"+ev.GoName).Call(Id("dst"), Id("b"))))
			}
		}),
		Return(Id("dst"), Id("protoErr").Call(Lit("the envelope carries no event"))),
	)
}

// emitProtoBaseDecode writes protoBase, which reads the BaseEvent of an
// event message m from its slot, checks the type it declares, and opens
// the event's JSON object with the base members.
func (e *emitter) emitProtoBaseDecode(f *File) {
	var typeNum int
	var fields []decField
	for _, fl := range e.m.Embed.Fields {
		if fl.JSON == "type" {
			typeNum = fl.ProtoField
			continue
		}
		fields = append(fields, e.decField(fl))
	}
	d := &decBody{e: e}
	var body []Code
	for _, fl := range fields {
		body = append(body, d.field(fl)...)
	}
	f.Comment("protoBase opens the JSON object of an event of type event, whose BaseEvent is the")
	f.Comment("slot base of the event message m and must declare enum, with the base members.")
	f.Func().Params(Id("t").Op("*").Id("protoReader")).Id("protoBase").Params(
		Id("dst"), Id("m").Index().Byte(), Id("base").Op("*").Id("protoSlot"), Id("event").Id("EventType"), Id("enum").Uint64(),
	).Params(Index().Byte(), Error()).BlockFunc(func(g *Group) {
		g.If(Id("base").Dot("n").Op("==").Lit(0)).Block(Return(Id("dst"), Id("protoNoBase").Call()))
		g.Id("b").Op(":=").Id("base").Dot("merged").Call(Id("m"), Lit(1))
		g.If(Err().Op(":=").Id("t").Dot("enter").Call(), Err().Op("!=").Nil()).Block(Return(Id("dst"), Err()))
		nums := e.numbers(fields, typeNum)
		for _, c := range d.scan(nums) {
			g.Add(c)
		}
		if d.err {
			g.Var().Err().Error()
		}
		g.If(slotOf(typeNum).Dot("v").Op("!=").Id("enum")).Block(Return(Id("dst"), Id("protoTypeMismatch").Call(Id("event"), slotOf(typeNum).Dot("v"))))
		g.Add(appendRaw(`{"type":`))
		g.Id("dst").Op("=").Id("AppendJSONString").Call(Id("dst"), String().Call(Id("event")))
		for _, c := range body {
			g.Add(c)
		}
		g.Return(Id("dst"), Nil())
	})
}

// emitProtoEvent writes the reader of one event message.
func (e *emitter) emitProtoEvent(f *File, ev *StructDef) {
	d := &decBody{e: e}
	fields := e.decFields(ev)
	var body []Code
	for _, fl := range fields {
		body = append(body, d.field(fl)...)
	}
	name := "protoEvent" + ev.GoName
	f.Comment(fmt.Sprintf("%s appends the JSON form of the %s message b.", name, ev.Event.Wire))
	f.Func().Params(Id("t").Op("*").Id("protoReader")).Id(name).Params(Id("dst"), Id("b").Index().Byte()).Params(Index().Byte(), Error()).BlockFunc(func(g *Group) {
		g.Id("t").Dot("depth").Op("++")
		for _, c := range d.scan(e.numbers(fields, 1)) {
			g.Add(c)
		}
		g.List(Id("dst"), Err()).Op(":=").Id("t").Dot("protoBase").Call(Id("dst"), Id("b"), Op("&").Add(slotOf(1)), Id(ev.Event.ConstName), Lit(ev.Event.ProtoEnum))
		g.If(Err().Op("!=").Nil()).Block(Return(Id("dst"), Err()))
		for _, c := range body {
			g.Add(c)
		}
		g.Return(Append(Id("dst"), LitRune('}')), Nil())
	})
}

// emitProtoMessage writes protoFieldsS, which appends the members of the
// message b, each after a comma (protoObject closes them).
func (e *emitter) emitProtoMessage(f *File, s *StructDef) {
	d := &decBody{e: e}
	fields := e.decFields(s)
	var body []Code
	for _, fl := range fields {
		body = append(body, d.field(fl)...)
	}
	name := "protoFields" + s.GoName
	f.Comment(fmt.Sprintf("%s appends the members of the %s message b, each after a comma.", name, s.GoName))
	f.Func().Params(Id("t").Op("*").Id("protoReader")).Id(name).Params(Id("dst"), Id("b").Index().Byte()).Params(Index().Byte(), Error()).BlockFunc(func(g *Group) {
		g.If(Err().Op(":=").Id("t").Dot("enter").Call(), Err().Op("!=").Nil()).Block(Return(Id("dst"), Err()))
		for _, c := range d.scan(e.numbers(fields)) {
			g.Add(c)
		}
		if d.err {
			g.Var().Err().Error()
		}
		for _, c := range body {
			g.Add(c)
		}
		g.Id("t").Dot("leave").Call()
		g.Return(Id("dst"), Nil())
	})
}

// emitProtoUnionDecode writes protoUnionU, which appends one value of the
// union from its message b; keep is false when the value is to be left out
// (an arm this build does not know: the reference drops it too).
func (e *emitter) emitProtoUnionDecode(f *File, du *decUnion) {
	u := du.u
	plainName(u.Disc)
	d := &decBody{e: e, union: true}
	var body []Code
	var nums []int
	if du.merged {
		if du.discNum == 0 {
			panic("protobuf: the merged union " + u.GoName + " has no discriminator field")
		}
		var all []decField
		for _, fs := range du.fields {
			all = append(all, fs...)
		}
		nums = e.numbers(all, du.discNum)
		body = e.mergedUnion(d, du, nums)
	} else {
		pm := &e.m.Proto
		for _, v := range u.Variants {
			nums = append(nums, pm.Variants[v].Oneof)
		}
		sort.Ints(nums)
		body = append(body, Id("arm").Op(":=").Lit(0))
		for i, v := range u.Variants {
			n := pm.Variants[v].Oneof
			set := Id("arm").Op("=").Lit(n)
			if i == 0 {
				body = append(body, If(slotOf(n).Dot("n").Op(">").Lit(0)).Block(set))
				continue
			}
			body = append(body, If(slotOf(n).Dot("n").Op(">").Lit(0)).Block(
				If(Id("arm").Op("!=").Lit(0)).Block(d.fail(Id("protoErr").Call(Lit(u.GoName+" carries more than one arm")))),
				set,
			))
		}
		d.err = true
		body = append(body, Switch(Id("arm")).BlockFunc(func(g *Group) {
			for _, v := range u.Variants {
				n := pm.Variants[v].Oneof
				plainName(v.Disc.Const)
				g.Case(Lit(n)).Block(
					appendRaw(`{"`+u.Disc+`":"`+v.Disc.Const+`"`),
					List(Id("dst"), Err()).Op("=").Id("t").Dot("protoFields"+v.GoName).Call(Id("dst"), merged(n)),
				)
			}
			g.Default().Block(Id("t").Dot("leave").Call(), Return(Id("dst"), False(), Nil()))
		}), If(Err().Op("!=").Nil()).Block(d.fail(Err())))
	}
	name := "protoUnion" + u.GoName
	f.Comment(fmt.Sprintf("%s appends the %s value of the message b; keep is false when it is to be", name, u.GoName))
	f.Comment("left out.")
	f.Func().Params(Id("t").Op("*").Id("protoReader")).Id(name).Params(Id("dst"), Id("b").Index().Byte()).Params(Index().Byte(), Bool(), Error()).BlockFunc(func(g *Group) {
		g.If(Err().Op(":=").Id("t").Dot("enter").Call(), Err().Op("!=").Nil()).Block(Return(Id("dst"), False(), Err()))
		for _, c := range d.scan(nums) {
			g.Add(c)
		}
		if d.err {
			g.Var().Err().Error()
		}
		for _, c := range body {
			g.Add(c)
		}
		g.Id("t").Dot("leave").Call()
		g.Return(Append(Id("dst"), LitRune('}')), True(), Nil())
	})
}

// mergedUnion writes the body of a merged union's reader: the
// discriminator, then the members of its variant.
func (e *emitter) mergedUnion(d *decBody, du *decUnion, nums []int) []Code {
	u := du.u
	pm := &e.m.Proto
	disc := slotOf(du.discNum)
	variant := func(i int) []Code {
		var body []Code
		for _, f := range du.fields[i] {
			body = append(body, d.field(f)...)
		}
		return append(body, e.foreign(d, du, i, nums)...)
	}
	var out []Code
	if du.enum {
		seen := map[int]bool{}
		out = append(out, Switch(disc.Clone().Dot("v")).BlockFunc(func(g *Group) {
			for i, v := range u.Variants {
				n := pm.Variants[v].Enum
				if seen[n] {
					panic("protobuf: two variants of " + u.GoName + " share an enum value")
				}
				seen[n] = true
				plainName(v.Disc.Const)
				g.Case(Lit(n)).Block(append([]Code{appendRaw(`{"` + u.Disc + `":"` + v.Disc.Const + `"`)}, variant(i)...)...)
			}
			g.Default().Block(append([]Code{
				appendRaw(`{"` + u.Disc + `":"`),
				Id("dst").Op("=").Qual("strconv", "AppendUint").Call(Id("dst"), disc.Clone().Dot("v"), Lit(10)),
				Id("dst").Op("=").Append(Id("dst"), LitRune('"')),
			}, e.unknownVariant(d, du, nums)...)...)
		}))
		return out
	}
	out = append(out,
		appendRaw(`{"`+u.Disc+`":`),
		Id("dst").Op("=").Id("appendProtoString").Call(Id("dst"), disc.Clone().Dot("last")),
		Switch(String().Call(disc.Clone().Dot("last"))).BlockFunc(func(g *Group) {
			for i, v := range u.Variants {
				g.Case(Lit(v.Disc.Const)).Block(variant(i)...)
			}
			g.Default().Block(e.unknownVariant(d, du, nums)...)
		}))
	return out
}

// foreign handles the fields of a merged message that only other variants
// than variant i have (string content on an activity message, parts on a
// role without parts, a value on a remove operation). An open variant
// keeps them as members, as the reference does; any other rejects them,
// since the value would otherwise be lost without a word.
func (e *emitter) foreign(d *decBody, du *decUnion, i int, nums []int) []Code {
	v := du.u.Variants[i]
	if len(nums) > 64 {
		panic("protobuf: more than 64 fields in the merged message of " + du.u.GoName)
	}
	var present Code
	var cases []Code
	keeps := false
	for bit, n := range nums {
		if n == du.discNum || du.owns(i, n) {
			continue
		}
		vi, k, ok := du.at(n)
		if !ok {
			continue
		}
		f := du.fields[vi][k]
		if present == nil {
			present = slotOf(n).Dot("any")
		} else {
			present = Add(present).Op("||").Add(slotOf(n).Dot("any"))
		}
		if !v.Open || f.kind == dkContent || f.repeated {
			reason := du.u.GoName + " " + strconv.Quote(v.Disc.Const) + " carries field " + strconv.Itoa(n) + " (" + f.name + "), which it does not have"
			cases = append(cases, Case(Lit(n)).Block(d.fail(Id("protoErr").Call(Lit(reason)))))
			continue
		}
		member := appendRaw(`,"` + f.name + `":`)
		var body []Code
		switch f.kind {
		case dkString:
			body = []Code{member, Id("dst").Op("=").Id("appendProtoString").Call(Id("dst"), slotOf(n).Dot("last"))}
		case dkValue:
			body = []Code{If(Id("raw").Op(":=").Add(merged(n)), Id("valueSet").Call(Id("raw"))).Block(
				append([]Code{member}, d.call(Id("t").Dot("value").Call(Id("dst"), Id("raw")))...)...)}
		case dkStruct:
			body = append([]Code{member}, d.call(Id("t").Dot("structure").Call(Id("dst"), merged(n)))...)
		default:
			panic(fmt.Sprintf("protobuf: no decoding for %s kept on an open variant", f.name))
		}
		keeps = true
		mask := Lit(uint64(1) << bit)
		cases = append(cases, Case(Lit(n)).Block(If(Id("seen").Op("&").Add(mask).Op("==").Lit(0)).Block(
			append([]Code{Id("seen").Op("|=").Add(mask)}, body...)...)))
	}
	if present == nil {
		return nil
	}
	var body []Code
	if keeps {
		body = append(body, Var().Id("seen").Uint64())
	}
	body = append(body, For(Id("w").Op(":=").Id("protoEach").Call(Id("b"), Lit(0), Lit(0)), Id("w").Dot("next").Call(), Empty()).Block(
		Switch(Id("w").Dot("at")).Block(cases...)))
	return []Code{If(present).Block(body...)}
}

// unknownVariant hands on, for an unknown discriminator, every member any
// variant has at the numbers present, in wire order, each once; the JSON
// decoder judges the result.
func (e *emitter) unknownVariant(d *decBody, du *decUnion, nums []int) []Code {
	bits := map[[2]int]int{}
	var cases []Code
	for _, n := range nums {
		if n == du.discNum {
			continue
		}
		vi, k, ok := du.at(n)
		if !ok {
			continue
		}
		key := [2]int{vi, k}
		bit, ok := bits[key]
		if !ok {
			bit = len(bits)
			bits[key] = bit
		}
		if bit >= 64 {
			panic("protobuf: more than 64 members in the merged message of " + du.u.GoName)
		}
		mask := Lit(uint64(1) << bit)
		cases = append(cases, Case(Lit(n)).Block(If(Id("done").Op("&").Add(mask).Op("==").Lit(0)).Block(
			append([]Code{Id("done").Op("|=").Add(mask)}, d.field(du.fields[vi][k])...)...)))
	}
	if len(cases) == 0 {
		return nil
	}
	return []Code{
		Var().Id("done").Uint64(),
		For(Id("w").Op(":=").Id("protoEach").Call(Id("b"), Lit(0), Lit(0)), Id("w").Dot("next").Call(), Empty()).Block(
			Switch(Id("w").Dot("at")).Block(cases...)),
	}
}
