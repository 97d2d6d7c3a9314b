package generator

import (
	"fmt"
	"strconv"
	"strings"

	. "github.com/dave/jennifer/jen"
)

func (e *emitter) emitDecode(f *File) {
	m := e.m
	for _, s := range m.Structs {
		e.emitDecodeStruct(f, s)
	}
	e.emitDecodeBase(f, m.Embed)
	for _, u := range m.Unions {
		e.emitDecodeUnion(f, u)
	}
	for _, s := range m.Structs {
		f.Comment("UnmarshalJSON decodes data strictly into v, replacing its contents.")
		f.Func().Params(Id("v").Op("*").Id(s.GoName)).Id("UnmarshalJSON").Params(Id("data").Index().Byte()).Error().Block(
			Return(Id("unmarshalStruct").Call(Id("data"), Id("v"))),
		)
	}
	for _, a := range m.Arrays {
		f.Comment("UnmarshalJSON decodes a JSON array strictly into v, replacing its contents.")
		f.Func().Params(Id("v").Op("*").Id(a.GoName)).Id("UnmarshalJSON").Params(Id("data").Index().Byte()).Error().Block(
			Return(Id("unmarshalList").Call(Id("data"), Parens(Op("*").Index().Add(typeCode(a.Elem))).Call(Id("v")), Func().Params(Id("d").Op("*").Id("decoder")).Params(Index().Add(typeCode(a.Elem)), Error()).Block(Return(listDecode(a.Elem))))),
		)
	}
}

// emitDefinitions writes the test-only lookup of a decoder by definition
// name, which tests use to decode fixtures addressed by $anchor.
func (e *emitter) emitDefinitions(f *File) {
	m := e.m
	f.Comment("decodeDefinition decodes one value of the named schema definition.")
	f.Func().Id("decodeDefinition").Params(Id("name").String(), Id("d").Op("*").Id("decoder")).Params(Id("appender"), Error()).BlockFunc(func(g *Group) {
		g.Switch(Id("name")).BlockFunc(func(sw *Group) {
			for _, s := range m.Structs {
				sw.Case(Lit(s.Name)).Block(
					Id("v").Op(":=").New(Id(s.GoName)),
					Return(Id("v"), Id("v").Dot("decodeJSON").Call(Id("d"))),
				)
			}
			for _, u := range m.Unions {
				sw.Case(Lit(u.Name)).Block(Return(Id("decode" + u.GoName + "Union").Call(Id("d"))))
			}
		})
		g.Return(Nil(), Id("errUnknownDefinition").Call(Id("name")))
	})
}

// listDecode is the expression decoding a list of t at the cursor d.
func listDecode(t *TypeRef) Code {
	switch t.Kind {
	case KindString:
		return Id("decodeStringList").Call(Id("d"))
	case KindUnion:
		return Id("decodeUnionList").Call(Id("d"), Id("decode"+t.Union.GoName+"Union"))
	case KindStruct:
		return Id("decodeStructList").Index(Id(t.Struct.GoName)).Call(Id("d"))
	}
	panic(fmt.Sprintf("no list decoder for kind %d", t.Kind))
}

func (e *emitter) emitDecodeStruct(f *File, s *StructDef) {
	var req []*Field
	for _, fl := range s.Fields {
		if fl.Required {
			req = append(req, fl)
		}
	}
	if len(req) > 64 {
		panic("more than 64 required members")
	}
	bit := map[*Field]int{}
	for i, fl := range req {
		bit[fl] = i
	}
	hasUnion := false
	for _, fl := range s.Fields {
		if fl.Type.Kind == KindUnion && fl.Required {
			hasUnion = true
		}
	}
	f.Comment(fmt.Sprintf("decodeJSON reads one %s object at the cursor.", s.Name))
	f.Func().Params(Id("v").Op("*").Id(s.GoName)).Id("decodeJSON").Params(Id("d").Op("*").Id("decoder")).Error().BlockFunc(func(g *Group) {
		if len(req) > 0 {
			g.Var().Id("seen").Uint64()
		}
		if hasUnion {
			g.Id("dropped").Op(":=").False()
		}
		g.Var().Id("o").Id("objMark")
		g.For(Id("i").Op(":=").Lit(0), Empty(), Id("i").Op("++")).BlockFunc(func(loop *Group) {
			loop.List(Id("key"), Id("more"), Err()).Op(":=").Id("d").Dot("member").Call(Op("&").Id("o"), Id("i"))
			loop.If(Op("!").Id("more")).BlockFunc(func(end *Group) {
				// The object is closed (or broken): check what it lacked.
				if hasUnion {
					end.If(Err().Op("==").Nil().Op("&&").Id("dropped")).Block(Err().Op("=").Id("errDropped"))
				}
				if len(req) > 0 {
					all := uint64(1)<<len(req) - 1
					if len(req) == 64 {
						all = ^uint64(0)
					}
					names := []Code{Id("seen")}
					for _, fl := range req {
						names = append(names, Lit(fl.JSON))
					}
					end.If(Err().Op("==").Nil().Op("&&").Id("seen").Op("!=").Lit(all)).Block(
						Err().Op("=").Id("d").Dot("missingOf").Call(names...))
				}
				end.Return(Err())
			})
			loop.Id("d").Dot("push").Call(Id("key"))
			loop.Switch(String().Call(Id("key"))).BlockFunc(func(sw *Group) {
				for _, fl := range s.Fields {
					sw.Case(Lit(fl.JSON)).BlockFunc(func(c *Group) {
						if b, ok := bit[fl]; ok && fl.Type.Kind == KindStruct {
							// Given twice: the last one wins whole, so
							// nothing of the first may leak into it.
							c.If(Id("seen").Op("&").Parens(Op(fmt.Sprintf("1 << %d", b))).Op("!=").Lit(0)).Block(
								Id("v").Dot(fl.GoName).Op("=").Id(fl.Type.Struct.GoName).Values())
						}
						if b, ok := bit[fl]; ok && s.Open && fl == s.Disc {
							// RFC 6902 (section 4, appendix A.13): an
							// operation with two "op" members is invalid,
							// an exception to "the last one wins".
							c.If(Id("seen").Op("&").Parens(Op(fmt.Sprintf("1 << %d", b))).Op("!=").Lit(0)).Block(
								Err().Op("=").Id("d").Dot("fail").Call(Lit(strconv.Quote(fl.JSON) + " given twice"))).Else().BlockFunc(func(b *Group) { e.decodeField(b, fl) })
						} else {
							e.decodeField(c, fl)
						}
						if b, ok := bit[fl]; ok {
							c.Id("seen").Op("|=").Op(fmt.Sprintf("1 << %d", b))
						}
					})
				}
				sw.Default().BlockFunc(func(c *Group) {
					switch {
					case s.Open:
						c.Err().Op("=").Id("d").Dot("extra").Call(Op("&").Id("v").Dot("Extra"), Id("key"))
					case s.Embeds != nil:
						c.Err().Op("=").Id("v").Dot(s.Embeds.GoName).Dot("decodeMember").Call(Id("d"), Id("key"))
					default:
						c.Err().Op("=").Id("d").Dot("unknown").Call(Id("key"))
					}
				})
			})
			loop.If(Err().Op("!=").Nil().Op("&&").Op("!").Id("d").Dot("overridden").Call(Id("o"), Id("i"))).Block(Return(Err()))
			loop.Id("d").Dot("pop").Call()
		})
	})
}

// emitDecodeBase writes the decoder of the embedded mixin's members, which
// every event's decoder falls back to for members it does not declare.
func (e *emitter) emitDecodeBase(f *File, s *StructDef) {
	f.Comment(fmt.Sprintf("decodeMember reads the %s member named key, or rejects an unknown one.", s.Name))
	f.Func().Params(Id("v").Op("*").Id(s.GoName)).Id("decodeMember").Params(Id("d").Op("*").Id("decoder"), Id("key").Index().Byte()).Params(Err().Error()).BlockFunc(func(g *Group) {
		g.Switch(String().Call(Id("key"))).BlockFunc(func(sw *Group) {
			for _, fl := range s.Fields {
				if fl.JSON == "type" {
					continue
				}
				sw.Case(Lit(fl.JSON)).BlockFunc(func(c *Group) { e.decodeField(c, fl) })
			}
			sw.Default().Block(Err().Op("=").Id("d").Dot("unknown").Call(Id("key")))
		})
		g.Return(Err())
	})
}

// decodeField emits the body of one member's case. The key is pushed; the
// cursor is at the value; err is declared by the enclosing loop.
func (e *emitter) decodeField(c *Group, fl *Field) {
	target := Id("v").Dot(fl.GoName)
	t := fl.Type
	if fl.IsConst {
		c.Err().Op("=").Id("d").Dot("constString").Call(Lit(fl.Const))
		if !fl.Required {
			c.If(Err().Op("==").Nil()).Block(target.Clone().Op("=").New(Lit(fl.Const)))
		}
		return
	}
	// read emits code decoding into dest (an assignable expression).
	read := func(b *Group, dest *Statement, ptr bool) {
		switch t.Kind {
		case KindString, KindEnum, KindInt, KindBool:
			var call Code
			switch t.Kind {
			case KindString, KindEnum:
				call = Id("d").Dot("str").Call()
			case KindInt:
				call = Id("d").Dot("integer").Call(Lit(*t.Min), Lit(*t.Max))
			case KindBool:
				call = Id("d").Dot("boolean").Call()
			}
			// Scalars decode into x, then land in dest: directly, converted
			// to the enum type, or through a pointer for optionals.
			direct := !ptr && t.Kind != KindEnum
			var x *Statement
			if direct {
				x = dest.Clone()
			} else {
				b.Var().Id("x").Add(typeCode(baseScalar(t)))
				x = Id("x")
			}
			b.List(x.Clone(), Err()).Op("=").Add(call)
			if t.Kind == KindString && t.Format == "json-pointer" {
				b.If(Err().Op("==").Nil().Op("&&").Op("!").Id("validJSONPointer").Call(x.Clone())).Block(
					Err().Op("=").Id("d").Dot("fail").Call(Id("reasonPointer")))
			}
			if t.Kind == KindEnum {
				var q []string
				for _, v := range t.Enum.Values {
					q = append(q, strconv.Quote(v.Wire))
				}
				b.If(Err().Op("==").Nil().Op("&&").Op("!").Id(t.Enum.GoName).Call(x.Clone()).Dot("Valid").Call()).Block(
					Err().Op("=").Id("d").Dot("badEnum").Call(x.Clone(), Lit(strings.Join(q, ", "))))
			}
			if !direct {
				var val Code = Id("x")
				if t.Kind == KindEnum {
					val = Id(t.Enum.GoName).Call(Id("x"))
				}
				if ptr {
					val = New(val)
				}
				b.If(Err().Op("==").Nil()).Block(dest.Clone().Op("=").Add(val))
			}
		case KindRaw:
			b.List(dest.Clone(), Err()).Op("=").Id("d").Dot("raw").Call()
		case KindRawNotNull:
			b.If(Id("d").Dot("isNull").Call()).Block(
				Err().Op("=").Id("d").Dot("fail").Call(Id("reasonNull")),
			).Else().Block(
				List(dest.Clone(), Err()).Op("=").Id("d").Dot("raw").Call(),
			)
		case KindRawObject:
			b.List(dest.Clone(), Err()).Op("=").Id("d").Dot("rawObject").Call()
		case KindStruct:
			if ptr {
				b.Id("x").Op(":=").New(Id(t.Struct.GoName))
				b.Err().Op("=").Id("x").Dot("decodeJSON").Call(Id("d"))
				b.If(Err().Op("==").Nil()).Block(dest.Clone().Op("=").Id("x"))
			} else {
				b.Err().Op("=").Add(dest.Clone()).Dot("decodeJSON").Call(Id("d"))
			}
		case KindUnion:
			b.List(dest.Clone(), Err()).Op("=").Id("decode" + t.Union.GoName + "Union").Call(Id("d"))
			b.If(Err().Op("==").Id("errDropped")).BlockFunc(func(x *Group) {
				if fl.Required {
					x.Id("dropped").Op("=").True()
				}
				x.List(Err()).Op("=").Nil()
			})
		case KindArray:
			b.List(dest.Clone(), Err()).Op("=").Add(listDecode(t.Elem))
			if t.MinItems > 0 {
				b.If(Err().Op("==").Nil().Op("&&").Len(dest.Clone()).Op("<").Lit(t.MinItems)).Block(
					Err().Op("=").Id("d").Dot("fail").Call(Id("reasonMinItems").Call(Lit(t.MinItems))))
			}
		case KindContent:
			b.List(dest.Clone(), Err()).Op("=").Id("decodeContent").Call(Id("d"))
		}
	}
	if fl.Required {
		read(c, target, false)
		return
	}
	// Optional: null is never a value of an optional member; the decoder's
	// policy says whether a legacy null is tolerated. Plain scalars and raw
	// JSON use the shared readers in decodehelp.go.
	if !fl.NullAlways {
		tol := Lit(fl.NullTolerated)
		addr := Op("&").Add(target.Clone())
		switch {
		case t.Kind == KindString && t.Format == "":
			c.Err().Op("=").Id("d").Dot("optString").Call(addr, tol)
			return
		case t.Kind == KindInt:
			c.Err().Op("=").Id("d").Dot("optInt").Call(addr, Lit(*t.Min), Lit(*t.Max), tol)
			return
		case t.Kind == KindBool:
			c.Err().Op("=").Id("d").Dot("optBool").Call(addr, tol)
			return
		case t.Kind == KindRawNotNull || t.Kind == KindRawObject:
			c.Err().Op("=").Id("d").Dot("optRaw").Call(addr, Lit(t.Kind == KindRawObject), tol)
			return
		}
	}
	onNull := Err().Op("=").Id("d").Dot("nullOptional").Call(Lit(fl.NullTolerated))
	if fl.NullAlways {
		onNull = Comment("A null here reads as absent in every mode (see the schema).")
	}
	c.If(Id("d").Dot("isNull").Call()).Block(
		onNull,
	).Else().BlockFunc(func(b *Group) {
		switch t.Kind {
		case KindRawNotNull:
			b.List(target.Clone(), Err()).Op("=").Id("d").Dot("raw").Call()
		default:
			read(b, target, needsPointer(t))
		}
	})
}

// baseScalar is the Go type decoded before taking its address.
func baseScalar(t *TypeRef) *TypeRef {
	if t.Kind == KindEnum {
		return &TypeRef{Kind: KindString}
	}
	return t
}

// emitDecodeUnion writes the decoder of a union: the generic decodeUnion
// with a generated switch that only picks the variant to decode into.
func (e *emitter) emitDecodeUnion(f *File, u *UnionDef) {
	isEvent := u == e.m.EventUnion
	vt := lowerFirst(u.GoName) + "Variant"
	f.Comment(fmt.Sprintf("decode%sUnion reads one %s, choosing the variant by %q.", u.GoName, u.Name, u.Disc))
	f.Func().Id("decode"+u.GoName+"Union").Params(Id("d").Op("*").Id("decoder")).Params(Id(u.GoName), Error()).Block(
		Return(Id("decodeUnion").Call(Id("d"), Lit(u.Disc), Id("pick"+u.GoName), Lit(isEvent))),
	)
	f.Comment(fmt.Sprintf("%s is a %s that can decode itself.", vt, u.GoName))
	f.Type().Id(vt).Interface(Id(u.GoName), Id("decodable"))
	f.Comment(fmt.Sprintf("pick%s returns a new %s of the variant disc names, or nil.", u.GoName, u.GoName))
	f.Func().Id("pick" + u.GoName).Params(Id("disc").Index().Byte()).Id(vt).BlockFunc(func(g *Group) {
		g.Switch(String().Call(Id("disc"))).BlockFunc(func(sw *Group) {
			for _, v := range u.Variants {
				sw.Case(Lit(v.Disc.Const)).Block(Return(New(Id(v.GoName))))
			}
		})
		g.Return(Nil())
	})
}
