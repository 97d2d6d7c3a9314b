package generator

import (
	"fmt"
	"strconv"
	"strings"

	. "github.com/dave/jennifer/jen"
)

// The JSON codec is generated without reflection. Encoding appends into the
// caller's buffer; decoding drives the hand-written cursor in agui/jsondec.go.
// Members are written in wire order: the discriminator, then the definition's
// own properties in schema order, then those of its mixins (BaseEvent last).

// listName names the helper pair for a list of t: appendXList / decodeXList.
func listName(t *TypeRef) string {
	switch t.Kind {
	case KindString:
		return "String"
	case KindStruct:
		return t.Struct.GoName
	case KindUnion:
		return t.Union.GoName
	}
	panic(fmt.Sprintf("no list helper for kind %d", t.Kind))
}

// lists returns every distinct array element type, in first-use order.
func (e *emitter) lists() []*TypeRef {
	var out []*TypeRef
	seen := map[string]bool{}
	var visit func(t *TypeRef)
	visit = func(t *TypeRef) {
		// Content holds a list of content parts, so it needs that list's helpers.
		if t.Kind == KindArray || t.Kind == KindContent {
			if n := listName(t.Elem); !seen[n] {
				seen[n] = true
				out = append(out, t.Elem)
			}
		}
	}
	for _, s := range append(e.m.Structs, e.m.Embed) {
		for _, f := range s.Fields {
			visit(f.Type)
		}
	}
	for _, a := range e.m.Arrays {
		visit(&TypeRef{Kind: KindArray, Elem: a.Elem})
	}
	return out
}

// literal collects constant bytes so runs of them become one append.
type literal struct{ b strings.Builder }

func (l *literal) add(s string) { l.b.WriteString(s) }
func (l *literal) flush(g *Group) {
	if l.b.Len() == 0 {
		return
	}
	g.Id("dst").Op("=").Append(Id("dst"), Lit(l.b.String()).Op("..."))
	l.b.Reset()
}

func quoteKey(k string) string { return strconv.Quote(k) + ":" }

// fallible says whether encoding s can fail, so its encoder needs to
// remember where it started.
func fallible(s *StructDef) bool {
	if s.Embeds != nil || s.Open {
		return true
	}
	for _, f := range s.Fields {
		switch {
		case f.IsConst:
			if !f.Required {
				return true
			}
		case f.Type.Kind == KindBool, f.Type.Kind == KindString && f.Type.Format == "":
		default:
			return true
		}
	}
	return false
}

// dstAtStart is what a failing encoder returns: the caller's buffer as it
// was, so an error never leaves a partial document behind.
func dstAtStart() Code { return Id("dst").Index(Empty(), Id("start")) }

func passErr() Code {
	return If(Err().Op("!=").Nil()).Block(Return(dstAtStart(), Err()))
}

func (e *emitter) emitEncode(f *File) {
	for _, s := range e.m.Structs {
		e.emitAppend(f, s)
	}
	e.emitAppendBase(f, e.m.Embed)
	for _, t := range e.lists() {
		e.emitAppendList(f, t)
	}
	// encoding/json finds a value receiver's MarshalJSON on values, pointers
	// and non-addressable values (map entries, dereferenced events) alike; a
	// pointer receiver would leave the latter to reflection and Go names.
	for _, s := range e.m.Structs {
		f.Comment(fmt.Sprintf("MarshalJSON encodes v like AppendJSON, so %s works with encoding/json.", s.GoName))
		f.Func().Params(Id("v").Id(s.GoName)).Id("MarshalJSON").Params().Params(Index().Byte(), Error()).Block(
			Return(Id("v").Dot("AppendJSON").Call(Nil())),
		)
	}
	for _, a := range e.m.Arrays {
		f.Comment(fmt.Sprintf("MarshalJSON encodes v as a JSON array, so %s works with encoding/json.", a.GoName))
		f.Func().Params(Id("v").Id(a.GoName)).Id("MarshalJSON").Params().Params(Index().Byte(), Error()).Block(
			Return(Id("append"+listName(a.Elem)+"List").Call(Nil(), Id("v"))),
		)
	}
}

func (e *emitter) emitAppend(f *File, s *StructDef) {
	f.Comment("AppendJSON appends the compact JSON encoding of v to dst. It fails, naming the member,")
	f.Comment("when a value breaks the schema in a way Go's types cannot prevent: an unknown enum value,")
	f.Comment("invalid raw JSON, a missing union value, a list below its minimum length.")
	f.Func().Params(Id("v").Op("*").Id(s.GoName)).Id("AppendJSON").Params(Id("dst").Index().Byte()).Params(Id("_").Index().Byte(), Err().Error()).BlockFunc(func(g *Group) {
		if fallible(s) {
			g.Id("start").Op(":=").Len(Id("dst"))
		}
		var lit literal
		lit.add("{")
		state := 0 // 0: nothing written, 1: maybe written, 2: written
		for i, fl := range s.Wire {
			if s.Embeds != nil && i == s.EmbedAt {
				e.appendEmbedded(g, &lit, s, state)
			}
			e.appendField(g, &lit, s, fl, &state)
		}
		if s.Embeds != nil && s.EmbedAt == len(s.Wire) {
			e.appendEmbedded(g, &lit, s, state)
		}
		if s.Open {
			lit.flush(g)
			g.List(Id("dst"), Err()).Op("=").Id("appendExtra").Call(Id("dst"), Id("v").Dot("Extra"))
			g.If(Err().Op("!=").Nil()).Block(Return(dstAtStart(), Id("encodeError").Call(Lit(s.GoName), Lit("Extra"), Err())))
		}
		lit.add("}")
		lit.flush(g)
		g.Return(Id("dst"), Nil())
	})
}

// appendEmbedded emits the call of the embedded mixin's helper, which writes
// each member after a comma: something must have been written before it.
func (e *emitter) appendEmbedded(g *Group, lit *literal, s *StructDef, state int) {
	if state != 2 {
		panic(fmt.Sprintf("%s: the embedded members must follow a required member", s.Name))
	}
	lit.flush(g)
	g.List(Id("dst"), Err()).Op("=").Id("v").Dot(s.Embeds.GoName).Dot("appendJSON").Call(Id("dst"), Lit(s.GoName))
	g.Add(passErr())
}

// emitAppendBase writes the helper that appends the embedded base members;
// they always follow the discriminator, so each starts with a comma.
func (e *emitter) emitAppendBase(f *File, s *StructDef) {
	f.Comment("appendJSON appends the members of b that are present, each after a comma.")
	f.Func().Params(Id("v").Op("*").Id(s.GoName)).Id("appendJSON").Params(Id("dst").Index().Byte(), Id("typ").String()).Params(Id("_").Index().Byte(), Err().Error()).BlockFunc(func(g *Group) {
		g.Id("start").Op(":=").Len(Id("dst"))
		var lit literal
		state := 2
		for _, fl := range s.Fields {
			if fl.JSON == "type" {
				continue
			}
			e.appendFieldIn(g, &lit, "typ", fl, &state, true)
		}
		lit.flush(g)
		g.Return(Id("dst"), Nil())
	})
}

func (e *emitter) appendField(g *Group, lit *literal, s *StructDef, fl *Field, state *int) {
	e.appendFieldIn(g, lit, s.GoName, fl, state, false)
}

// appendFieldIn emits the code appending one member. typeName is the Go type
// named in errors (a literal, or the variable "typ" for the base helper).
func (e *emitter) appendFieldIn(g *Group, lit *literal, typeName string, fl *Field, state *int, dynamicName bool) {
	name := Lit(typeName)
	if dynamicName {
		name = Id(typeName)
	}
	wrap := func() Code {
		return If(Err().Op("!=").Nil()).Block(Return(dstAtStart(), Id("encodeError").Call(name, Lit(fl.JSON), Err())))
	}
	val := Id("v").Dot(fl.GoName)
	required := fl.Required
	// key emits the member name with the comma the state calls for.
	key := func(b *Group) {
		switch *state {
		case 0:
			lit.add(quoteKey(fl.JSON))
		case 2:
			lit.add("," + quoteKey(fl.JSON))
		default:
			lit.flush(b)
			b.Id("dst").Op("=").Id("appendKey").Call(Id("dst"), Lit(quoteKey(fl.JSON)))
		}
	}
	after := func() {
		if required {
			*state = 2
		} else if *state == 0 {
			*state = 1
		}
	}
	defer after()

	if fl.IsConst {
		if required {
			key(g)
			lit.add(strconv.Quote(fl.Const))
			return
		}
		lit.flush(g)
		g.If(val.Clone().Op("!=").Nil()).BlockFunc(func(b *Group) {
			b.If(Op("*").Add(val.Clone()).Op("!=").Lit(fl.Const)).Block(
				Return(dstAtStart(), Id("encodeError").Call(name, Lit(fl.JSON), Id("errConst").Call(Lit(fl.Const)))))
			saved := *state
			key(b)
			*state = saved
			lit.add(strconv.Quote(fl.Const))
			lit.flush(b)
		})
		return
	}

	// value emits the code appending the value expression x.
	value := func(b *Group, x *Statement) {
		t := fl.Type
		switch t.Kind {
		case KindString:
			if t.Format == "json-pointer" {
				lit.flush(b)
				b.If(Op("!").Id("validJSONPointer").Call(x.Clone())).Block(
					Return(dstAtStart(), Id("encodeError").Call(name, Lit(fl.JSON), Id("errPointer"))))
			}
			lit.flush(b)
			b.Id("dst").Op("=").Id("AppendJSONString").Call(Id("dst"), x)
		case KindEnum:
			lit.flush(b)
			recv := x.Clone()
			if !required {
				recv = Parens(x.Clone())
			}
			b.If(Op("!").Add(recv).Dot("Valid").Call()).Block(
				Return(dstAtStart(), Id("encodeError").Call(name, Lit(fl.JSON), Id("errEnum").Call(String().Call(x.Clone())))))
			b.Id("dst").Op("=").Id("AppendJSONString").Call(Id("dst"), String().Call(x))
		case KindInt:
			lit.flush(b)
			b.If(x.Clone().Op("<").Lit(*t.Min).Op("||").Add(x.Clone()).Op(">").Lit(*t.Max)).Block(
				Return(dstAtStart(), Id("encodeError").Call(name, Lit(fl.JSON), Id("errRange").Call(x.Clone(), Lit(*t.Min), Lit(*t.Max)))))
			b.Id("dst").Op("=").Qual("strconv", "AppendInt").Call(Id("dst"), x, Lit(10))
		case KindBool:
			lit.flush(b)
			b.Id("dst").Op("=").Qual("strconv", "AppendBool").Call(Id("dst"), x)
		case KindRaw:
			lit.flush(b)
			b.If(x.Clone().Op("==").Nil()).Block(
				Id("dst").Op("=").Append(Id("dst"), Lit("null").Op("...")),
			).Else().Block(
				List(Id("dst"), Err()).Op("=").Id("appendRaw").Call(Id("dst"), x.Clone()),
				wrap(),
			)
		case KindRawNotNull:
			lit.flush(b)
			b.List(Id("dst"), Err()).Op("=").Id("appendRawNotNull").Call(Id("dst"), x)
			b.Add(wrap())
		case KindRawObject:
			lit.flush(b)
			b.List(Id("dst"), Err()).Op("=").Id("appendRawObject").Call(Id("dst"), x)
			b.Add(wrap())
		case KindStruct:
			lit.flush(b)
			b.List(Id("dst"), Err()).Op("=").Add(x).Dot("AppendJSON").Call(Id("dst"))
			b.Add(passErr())
		case KindUnion:
			lit.flush(b)
			b.List(Id("dst"), Err()).Op("=").Add(x).Dot("AppendJSON").Call(Id("dst"))
			b.Add(passErr())
		case KindArray:
			if t.MinItems > 0 {
				lit.flush(b)
				b.If(Len(x.Clone()).Op("<").Lit(t.MinItems)).Block(
					Return(dstAtStart(), Id("encodeError").Call(name, Lit(fl.JSON), Id("errMinItems").Call(Lit(t.MinItems)))))
			}
			lit.flush(b)
			b.List(Id("dst"), Err()).Op("=").Id("append"+listName(t.Elem)+"List").Call(Id("dst"), x)
			b.Add(passErr())
		case KindContent:
			lit.flush(b)
			b.List(Id("dst"), Err()).Op("=").Id("appendContent").Call(Id("dst"), x)
			b.Add(passErr())
		}
	}

	if required {
		switch fl.Type.Kind {
		case KindRawNotNull, KindRawObject, KindUnion:
			lit.flush(g)
			g.If(val.Clone().Op("==").Nil()).Block(
				Return(dstAtStart(), Id("encodeError").Call(name, Lit(fl.JSON), Id("errMissing"))))
		}
		key(g)
		value(g, val.Clone())
		return
	}
	lit.flush(g)
	deref := val.Clone()
	if needsPointer(fl.Type) {
		deref = Op("*").Add(val.Clone())
		if fl.Type.Kind == KindStruct {
			deref = val.Clone()
		}
	}
	g.If(val.Clone().Op("!=").Nil()).BlockFunc(func(b *Group) {
		saved := *state
		key(b)
		*state = saved
		value(b, deref)
		lit.flush(b)
	})
}

func (e *emitter) emitAppendList(f *File, t *TypeRef) {
	n := listName(t)
	f.Comment(fmt.Sprintf("append%sList appends list as a JSON array.", n))
	f.Func().Id("append"+n+"List").Params(Id("dst").Index().Byte(), Id("list").Index().Add(typeCode(t))).Params(Index().Byte(), Error()).BlockFunc(func(g *Group) {
		if t.Kind != KindString {
			g.Id("start").Op(":=").Len(Id("dst"))
		}
		g.Id("dst").Op("=").Append(Id("dst"), LitRune('['))
		g.For(Id("i").Op(":=").Range().Id("list")).BlockFunc(func(b *Group) {
			b.If(Id("i").Op(">").Lit(0)).Block(Id("dst").Op("=").Append(Id("dst"), LitRune(',')))
			switch t.Kind {
			case KindString:
				b.Id("dst").Op("=").Id("AppendJSONString").Call(Id("dst"), Id("list").Index(Id("i")))
			case KindUnion:
				b.If(Id("list").Index(Id("i")).Op("==").Nil()).Block(
					Return(dstAtStart(), Id("errNilElement").Call(Lit(n), Id("i"))))
				b.Var().Id("err").Error()
				b.List(Id("dst"), Err()).Op("=").Id("list").Index(Id("i")).Dot("AppendJSON").Call(Id("dst"))
				b.Add(passErr())
			default:
				b.Var().Id("err").Error()
				b.List(Id("dst"), Err()).Op("=").Id("list").Index(Id("i")).Dot("AppendJSON").Call(Id("dst"))
				b.Add(passErr())
			}
		})
		g.Return(Append(Id("dst"), LitRune(']')), Nil())
	})
}
