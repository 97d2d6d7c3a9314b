package generator

import (
	"fmt"
	"sort"

	. "github.com/dave/jennifer/jen"
)

// The protobuf binding (agui/proto_gen.go). Encoding is generated code that
// writes each member at its field number, in field-number order, the order
// @ag-ui/proto 1.0.0 writes them in; it calls the hand-written helpers of
// agui/protoenc.go for tags, lengths and open JSON. Decoding is generated
// too, beside it (emit_protodec.go).
//
// The rules that are not one member to one field:
//   - a union whose variants carry x-agui-proto.oneof is a wrapper message
//     with one arm per variant (content parts, part sources);
//   - any other union shares one message among its variants, told apart by
//     the discriminator member written at its own number (messages by role,
//     JSON Patch operations by op, as an enum when x-agui-proto.enum says);
//   - a single such union member (outcomes) is flattened: its discriminator
//     is a string at the member's number and its variants' members sit
//     beside it in the enclosing message;
//   - Content is a string at the member's number or a list of content parts
//     at x-agui-proto-parts.

const protowirePkg = "google.golang.org/protobuf/encoding/protowire"

func (e *emitter) emitProto(f *File) {
	f.ImportName(protowirePkg, "protowire")
	pm := &e.m.Proto
	e.emitProtoBase(f)
	for _, s := range pm.Structs {
		e.emitProtoFields(f, s)
	}
	for _, ev := range e.m.Events {
		f.Comment(fmt.Sprintf("AppendProto appends the protobuf encoding of v, one ag_ui.Event message with its %s arm", ev.Event.Wire))
		f.Comment("set, to dst, byte for byte as @ag-ui/proto 1.0.0 encodes it. On error dst is returned unchanged.")
		f.Func().Params(Id("v").Op("*").Id(ev.GoName)).Id("AppendProto").Params(Id("dst").Index().Byte()).Params(Index().Byte(), Error()).Block(
			Id("start").Op(":=").Len(Id("dst")),
			List(Id("b"), Id("m")).Op(":=").Id("protoBegin").Call(Id("dst"), Lit(ev.Event.ProtoOneof)),
			List(Id("b"), Err()).Op(":=").Id("v").Dot("appendProtoFields").Call(Id("b")),
			If(Err().Op("!=").Nil()).Block(Return(Id("dst").Index(Empty(), Id("start")), Err())),
			Return(Id("protoEnd").Call(Id("b"), Id("m")), Nil()),
		)
	}
	for _, u := range e.protoUnions() {
		e.emitProtoUnion(f, u)
	}
}

// protoUnions lists the unions the binding reaches through a list or a
// wrapper, in model order.
func (e *emitter) protoUnions() []*UnionDef {
	used := map[*UnionDef]bool{}
	for _, s := range e.m.Proto.Structs {
		for _, fl := range s.Fields {
			t := fl.Type
			if t.Kind == KindUnion && e.m.Proto.Merged(t.Union) {
				continue // flattened into the enclosing message
			}
			if t.Kind == KindArray || t.Kind == KindContent {
				t = t.Elem
			}
			if t.Kind == KindUnion {
				used[t.Union] = true
			}
		}
	}
	var out []*UnionDef
	for _, u := range e.m.Unions {
		if used[u] {
			out = append(out, u)
		}
	}
	return out
}

func (e *emitter) emitProtoBase(f *File) {
	s := e.m.Embed
	f.Comment("appendProtoBase appends the BaseEvent message, with typ as its event type.")
	f.Func().Params(Id("v").Op("*").Id(s.GoName)).Id("appendProtoBase").Params(Id("b").Index().Byte(), Id("typ").Uint64()).Params(Id("_").Index().Byte(), Err().Error()).BlockFunc(func(g *Group) {
		g.List(Id("b"), Id("m")).Op(":=").Id("protoBegin").Call(Id("b"), Lit(1))
		fields := append([]*Field(nil), s.Fields...)
		sort.SliceStable(fields, func(i, j int) bool { return fields[i].ProtoField < fields[j].ProtoField })
		for _, fl := range fields {
			if fl.JSON == "type" {
				g.If(Id("typ").Op("!=").Lit(0)).Block(
					Id("b").Op("=").Id("protoVarint").Call(Id("b"), Lit(fl.ProtoField), Id("typ")),
				)
				continue
			}
			e.protoField(g, Id("v"), "BaseEvent", fl)
		}
		g.Return(Id("protoEnd").Call(Id("b"), Id("m")), Nil())
	})
}

// slot is one field of a protobuf message, placed by number.
type slot struct {
	num  int
	emit func(g *Group)
}

func (e *emitter) emitProtoFields(f *File, s *StructDef) {
	pm := &e.m.Proto
	var slots []slot
	if s.Embeds != nil {
		enum := s.Event.ProtoEnum
		slots = append(slots, slot{1, func(g *Group) {
			g.List(Id("b"), Err()).Op("=").Id("v").Dot(s.Embeds.GoName).Dot("appendProtoBase").Call(Id("b"), Lit(enum))
			g.If(Err().Op("!=").Nil()).Block(Return(Id("b"), Err()))
		}})
	}
	for _, fl := range s.Fields {
		fl := fl
		switch {
		case fl == s.Disc && len(s.Unions) > 0 && !pm.Merged(s.Unions[0]):
			continue // told apart by the wrapper's arm
		case fl == s.Disc && fl.ProtoField == 0:
			continue // a flattened variant: the enclosing message writes it
		case fl == s.Disc:
			pv := pm.Variants[s]
			if pv != nil && pv.HasEnum {
				if pv.Enum != 0 { // proto3: the zero value is not written
					slots = append(slots, slot{fl.ProtoField, func(g *Group) {
						g.Id("b").Op("=").Id("protoVarint").Call(Id("b"), Lit(fl.ProtoField), Lit(pv.Enum))
					}})
				}
				continue
			}
			slots = append(slots, slot{fl.ProtoField, func(g *Group) {
				g.Id("b").Op("=").Id("protoString").Call(Id("b"), Lit(fl.ProtoField), Lit(fl.Const))
			}})
		case fl.Type.Kind == KindUnion && pm.Merged(fl.Type.Union):
			slots = append(slots, e.flattenSlots(s, fl)...)
		case fl.Type.Kind == KindContent:
			info := pm.Info(fl)
			x := Id("v").Dot(fl.GoName)
			slots = append(slots, slot{fl.ProtoField, func(g *Group) {
				g.If(List(Id("s"), Id("ok")).Op(":=").Add(x).Dot("Text").Call(), Id("ok").Add(condIf(!info.Optional, Op("&&").Id("s").Op("!=").Lit("")))).Block(
					Id("b").Op("=").Id("protoString").Call(Id("b"), Lit(fl.ProtoField), Id("s")),
				)
			}}, slot{info.Parts, func(g *Group) {
				u := fl.Type.Elem.Union
				g.If(List(Id("parts"), Id("ok")).Op(":=").Add(x).Dot("Parts").Call(), Id("ok")).Block(
					For(List(Id("_"), Id("p")).Op(":=").Range().Id("parts")).Block(
						List(Id("b"), Err()).Op("=").Id("appendProto"+u.GoName).Call(Id("b"), Lit(info.Parts), Id("p")),
						If(Err().Op("!=").Nil()).Block(Return(Id("b"), Id("encodeError").Call(Lit(s.GoName), Lit(fl.JSON), Err()))),
					),
				)
			}})
		default:
			slots = append(slots, slot{fl.ProtoField, func(g *Group) { e.protoField(g, Id("v"), s.GoName, fl) }})
		}
	}
	if s.Open && len(s.Unions) > 0 && pm.Merged(s.Unions[0]) {
		slots = append(slots, e.extraSlots(s)...)
	}
	sort.SliceStable(slots, func(i, j int) bool { return slots[i].num < slots[j].num })
	f.Comment("appendProtoFields appends the fields of v's protobuf message, in field-number order.")
	f.Func().Params(Id("v").Op("*").Id(s.GoName)).Id("appendProtoFields").Params(Id("b").Index().Byte()).Params(Id("_").Index().Byte(), Err().Error()).BlockFunc(func(g *Group) {
		for _, sl := range slots {
			sl.emit(g)
		}
		g.Return(Id("b"), Nil())
	})
}

// flattenSlots places a single merged union member (an outcome): the
// discriminator as a string at the member's number, and each variant's
// members at theirs.
func (e *emitter) flattenSlots(s *StructDef, fl *Field) []slot {
	u := fl.Type.Union
	x := Id("v").Dot(fl.GoName)
	out := []slot{{fl.ProtoField, func(g *Group) {
		g.Switch(x.Clone().Assert(Type())).BlockFunc(func(sw *Group) {
			for _, v := range u.Variants {
				sw.Case(Op("*").Id(v.GoName)).Block(
					Id("b").Op("=").Id("protoString").Call(Id("b"), Lit(fl.ProtoField), Lit(v.Disc.Const)),
				)
			}
		})
	}}}
	for _, v := range u.Variants {
		for _, vf := range v.Fields {
			if vf == v.Disc {
				continue
			}
			out = append(out, slot{vf.ProtoField, func(g *Group) {
				g.If(List(Id("o"), Id("ok")).Op(":=").Add(x).Assert(Op("*").Id(v.GoName)), Id("ok")).BlockFunc(func(g *Group) {
					e.protoField(g, Id("o"), s.GoName, vf)
				})
			}})
		}
	}
	return out
}

func condIf(ok bool, c *Statement) *Statement {
	if ok {
		return c
	}
	return Null()
}

// protoField writes the statements that append one member of recv.
func (e *emitter) protoField(g *Group, recv *Statement, typ string, fl *Field) {
	pm := &e.m.Proto
	info := pm.Info(fl)
	n := Lit(fl.ProtoField)
	x := recv.Clone().Dot(fl.GoName)
	fail := func() *Statement {
		return If(Err().Op("!=").Nil()).Block(Return(Id("b"), Id("encodeError").Call(Lit(typ), Lit(fl.JSON), Err())))
	}
	str := func(v *Statement) *Statement { return Id("b").Op("=").Id("protoString").Call(Id("b"), n.Clone(), v) }
	t := fl.Type
	e.protoCheck(g, x, typ, fl)
	if fl.IsConst {
		if fl.Required {
			g.Add(str(Lit(fl.Const)))
		} else {
			g.If(x.Clone().Op("!=").Nil()).Block(str(Op("*").Add(x.Clone())))
		}
		return
	}
	switch t.Kind {
	case KindString, KindEnum:
		conv := func(v *Statement) *Statement {
			if t.Kind == KindEnum {
				return String().Call(v)
			}
			return v
		}
		switch {
		case !fl.Required:
			g.If(x.Clone().Op("!=").Nil()).Block(str(conv(Op("*").Add(x.Clone()))))
		case info.Optional:
			g.Add(str(conv(x.Clone())))
		default:
			g.If(x.Clone().Op("!=").Lit("")).Block(str(conv(x.Clone())))
		}
	case KindInt:
		put := func(v *Statement) *Statement {
			return Id("b").Op("=").Id("protoVarint").Call(Id("b"), n.Clone(), Uint64().Call(v))
		}
		if fl.Required {
			g.If(x.Clone().Op("!=").Lit(0)).Block(put(x.Clone()))
		} else {
			g.If(x.Clone().Op("!=").Nil()).Block(put(Op("*").Add(x.Clone())))
		}
	case KindBool:
		put := func(v *Statement) *Statement {
			return Id("b").Op("=").Id("protoBool").Call(Id("b"), n.Clone(), v)
		}
		if fl.Required {
			g.If(x.Clone()).Block(put(x.Clone()))
		} else {
			g.If(x.Clone().Op("!=").Nil()).Block(put(Op("*").Add(x.Clone())))
		}
	case KindRaw, KindRawNotNull, KindRawObject:
		fn := "protoValue"
		if info.JSON == "Struct" {
			fn = "protoStruct"
		}
		body := []Code{
			List(Id("b"), Err()).Op("=").Id(fn).Call(Id("b"), n.Clone(), x.Clone()),
			fail(),
		}
		if fl.Required {
			for _, c := range body {
				g.Add(c)
			}
		} else {
			g.If(x.Clone().Op("!=").Nil()).Block(body...)
		}
	case KindStruct:
		body := func(v *Statement) []Code {
			return []Code{
				Id("b").Op("=").Id("protoOpen").Call(Id("b"), n.Clone()),
				Id("m").Op(":=").Len(Id("b")),
				List(Id("b"), Err()).Op("=").Add(v).Dot("appendProtoFields").Call(Id("b")),
				fail(),
				Id("b").Op("=").Id("protoEnd").Call(Id("b"), Id("m")),
			}
		}
		if fl.Required {
			g.Block(body(x.Clone())...)
		} else {
			g.If(x.Clone().Op("!=").Nil()).Block(body(x.Clone())...)
		}
	case KindUnion:
		if fl.Required {
			g.If(x.Clone().Op("==").Nil()).Block(Return(Id("b"), Id("encodeError").Call(Lit(typ), Lit(fl.JSON), Id("errMissing"))))
		}
		g.If(x.Clone().Op("!=").Nil()).Block(
			List(Id("b"), Err()).Op("=").Id("appendProto"+t.Union.GoName).Call(Id("b"), n.Clone(), x.Clone()),
			fail(),
		)
	case KindArray:
		el := t.Elem
		var each []Code
		switch el.Kind {
		case KindString:
			each = []Code{Id("b").Op("=").Id("protoString").Call(Id("b"), n.Clone(), Id("x"))}
		case KindStruct:
			each = []Code{
				Id("b").Op("=").Id("protoOpen").Call(Id("b"), n.Clone()),
				Id("m").Op(":=").Len(Id("b")),
				List(Id("b"), Err()).Op("=").Id("x").Dot("appendProtoFields").Call(Id("b")),
				fail(),
				Id("b").Op("=").Id("protoEnd").Call(Id("b"), Id("m")),
			}
		case KindUnion:
			each = []Code{
				List(Id("b"), Err()).Op("=").Id("appendProto"+el.Union.GoName).Call(Id("b"), n.Clone(), Id("x")),
				fail(),
			}
		default:
			panic(fmt.Sprintf("protobuf: no list encoding for kind %d", el.Kind))
		}
		rng := Id("x")
		if el.Kind == KindStruct {
			rng = Id("i")
			each = append([]Code{Id("x").Op(":=").Op("&").Add(x.Clone()).Index(Id("i"))}, each...)
			g.For(List(rng).Op(":=").Range().Add(x.Clone())).Block(each...)
			return
		}
		g.For(List(Id("_"), rng).Op(":=").Range().Add(x.Clone())).Block(each...)
	default:
		panic(fmt.Sprintf("protobuf: no encoding for kind %d of %s.%s", t.Kind, typ, fl.JSON))
	}
}

// emitProtoUnion writes appendProtoU, which appends one value of the union
// as the field num: a wrapper message with the variant's arm, or the
// variant's own message when the variants are merged.
func (e *emitter) emitProtoUnion(f *File, u *UnionDef) {
	pm := &e.m.Proto
	merged := pm.Merged(u)
	f.Comment(fmt.Sprintf("appendProto%s appends x as the protobuf message field num.", u.GoName))
	f.Func().Id("appendProto"+u.GoName).Params(Id("b").Index().Byte(), Id("num").Qual(protowirePkg, "Number"), Id("x").Id(u.GoName)).Params(Id("_").Index().Byte(), Err().Error()).BlockFunc(func(g *Group) {
		g.List(Id("b"), Id("m")).Op(":=").Id("protoBegin").Call(Id("b"), Id("num"))
		g.Switch(Id("x").Op(":=").Id("x").Assert(Type())).BlockFunc(func(sw *Group) {
			for _, v := range u.Variants {
				if merged {
					sw.Case(Op("*").Id(v.GoName)).Block(
						List(Id("b"), Err()).Op("=").Id("x").Dot("appendProtoFields").Call(Id("b")),
					)
					continue
				}
				sw.Case(Op("*").Id(v.GoName)).Block(
					Id("b").Op("=").Id("protoOpen").Call(Id("b"), Lit(pm.Variants[v].Oneof)),
					Id("a").Op(":=").Len(Id("b")),
					List(Id("b"), Err()).Op("=").Id("x").Dot("appendProtoFields").Call(Id("b")),
					Id("b").Op("=").Id("protoEnd").Call(Id("b"), Id("a")),
				)
			}
			sw.Default().Block(Return(Id("b"), Id("errNilUnion").Call(Lit(u.GoName))))
		})
		g.If(Err().Op("!=").Nil()).Block(Return(Id("b"), Err()))
		g.Return(Id("protoEnd").Call(Id("b"), Id("m")), Nil())
	})
}

// extraSlots places the kept unknown members of an open variant that a
// sibling variant defines (a "value" on a remove operation): the reference
// encodes the operation as the object it is, so they go on the wire at the
// sibling's field number.
func (e *emitter) extraSlots(s *StructDef) []slot {
	own := map[string]bool{}
	for _, fl := range s.Fields {
		own[fl.JSON] = true
	}
	var out []slot
	for _, v := range s.Unions[0].Variants {
		for _, fl := range v.Fields {
			if own[fl.JSON] || fl == v.Disc {
				continue
			}
			own[fl.JSON] = true
			fl := fl
			switch fl.Type.Kind {
			case KindString:
				out = append(out, slot{fl.ProtoField, func(g *Group) {
					g.If(List(Id("s"), Id("ok")).Op(":=").Id("protoExtraString").Call(Id("v").Dot("Extra"), Lit(fl.JSON)), Id("ok")).Block(
						Id("b").Op("=").Id("protoString").Call(Id("b"), Lit(fl.ProtoField), Id("s")),
					)
				}})
			case KindRaw, KindRawNotNull:
				out = append(out, slot{fl.ProtoField, func(g *Group) {
					g.If(List(Id("x"), Id("ok")).Op(":=").Id("protoExtra").Call(Id("v").Dot("Extra"), Lit(fl.JSON)), Id("ok")).Block(
						List(Id("b"), Err()).Op("=").Id("protoValue").Call(Id("b"), Lit(fl.ProtoField), Id("x")),
						If(Err().Op("!=").Nil()).Block(Return(Id("b"), Id("encodeError").Call(Lit(s.GoName), Lit(fl.JSON), Err()))),
					)
				}})
			}
		}
	}
	return out
}

// protoCheck writes the checks AppendJSON makes on a member before it is
// written, so that the two encodings accept exactly the same values: an
// unknown enum value, a wrong constant, a string that must be a JSON
// Pointer and is not, a missing required object, a list below its minimum.
func (e *emitter) protoCheck(g *Group, x *Statement, typ string, fl *Field) {
	t := fl.Type
	fail := func(reason Code) *Statement {
		return Return(Id("b"), Id("encodeError").Call(Lit(typ), Lit(fl.JSON), reason))
	}
	switch {
	case fl.IsConst:
		if !fl.Required {
			g.If(x.Clone().Op("!=").Nil().Op("&&").Op("*").Add(x.Clone()).Op("!=").Lit(fl.Const)).Block(fail(Id("errConst").Call(Lit(fl.Const))))
		}
	case t.Kind == KindEnum && fl.Required:
		g.If(Op("!").Add(x.Clone()).Dot("Valid").Call()).Block(fail(Id("errEnum").Call(String().Call(x.Clone()))))
	case t.Kind == KindEnum:
		g.If(x.Clone().Op("!=").Nil().Op("&&").Op("!").Parens(Op("*").Add(x.Clone())).Dot("Valid").Call()).Block(fail(Id("errEnum").Call(String().Call(Op("*").Add(x.Clone())))))
	case t.Kind == KindString && t.Format == "json-pointer" && fl.Required:
		g.If(Op("!").Id("validJSONPointer").Call(x.Clone())).Block(fail(Id("errPointer")))
	case t.Kind == KindString && t.Format == "json-pointer":
		g.If(x.Clone().Op("!=").Nil().Op("&&").Op("!").Id("validJSONPointer").Call(Op("*").Add(x.Clone()))).Block(fail(Id("errPointer")))
	case t.Kind == KindRawObject && fl.Required:
		g.If(x.Clone().Op("==").Nil()).Block(fail(Id("errMissing")))
	case t.Kind == KindArray && t.MinItems > 0:
		cond := Len(x.Clone()).Op("<").Lit(t.MinItems)
		if !fl.Required {
			cond = x.Clone().Op("!=").Nil().Op("&&").Add(cond)
		}
		g.If(cond).Block(fail(Id("errMinItems").Call(Lit(t.MinItems))))
	}
}
