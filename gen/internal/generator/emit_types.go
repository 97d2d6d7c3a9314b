package generator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	. "github.com/dave/jennifer/jen"

	"github.com/agui-go/sdk/internal/schemamodel"
)

const jsonPkg = "encoding/json"

// goType is the Go type of a field.
func goType(f *Field) Code {
	if f.IsConst {
		return Op("*").String()
	}
	t := typeCode(f.Type)
	if !f.Required && needsPointer(f.Type) {
		return Op("*").Add(t)
	}
	return t
}

// needsPointer says whether an optional value needs a pointer to tell absent
// from zero. Raw JSON, slices, unions and Content have their own nil.
func needsPointer(t *TypeRef) bool {
	switch t.Kind {
	case KindString, KindInt, KindBool, KindEnum, KindStruct:
		return true
	}
	return false
}

func typeCode(t *TypeRef) Code {
	switch t.Kind {
	case KindString:
		return String()
	case KindInt:
		return Int64()
	case KindBool:
		return Bool()
	case KindRaw, KindRawNotNull, KindRawObject:
		return Qual(jsonPkg, "RawMessage")
	case KindEnum:
		return Id(t.Enum.GoName)
	case KindStruct:
		return Id(t.Struct.GoName)
	case KindUnion:
		return Id(t.Union.GoName)
	case KindArray:
		if t.Named != nil {
			return Id(t.Named.GoName)
		}
		return Index().Add(typeCode(t.Elem))
	case KindContent:
		return Id("Content")
	}
	panic(fmt.Sprintf("unknown kind %d", t.Kind))
}

// fieldDoc documents what Go cannot show: optionality, nullability, bounds.
func fieldDoc(f *Field) string {
	var parts []string
	if f.Doc != "" {
		d := strings.TrimSpace(f.Doc)
		if !strings.HasSuffix(d, ".") {
			d += "."
		}
		parts = append(parts, d)
	}
	switch {
	case f.IsConst:
		parts = append(parts, fmt.Sprintf("Optional; when set it must be %q.", f.Const))
	case !f.Required:
		switch f.Type.Kind {
		case KindArray:
			parts = append(parts, "Optional: nil is absent, an empty slice is [].")
		case KindUnion:
			parts = append(parts, "Optional: nil is absent.")
		case KindRawNotNull:
			parts = append(parts, "Optional: nil is absent; any JSON value except null.")
		case KindRawObject:
			parts = append(parts, "Optional: nil is absent; a JSON object.")
		default:
			parts = append(parts, "Optional: nil is absent.")
		}
	default:
		switch f.Type.Kind {
		case KindRaw:
			parts = append(parts, "Any JSON value, null included; nil encodes as null.")
		case KindRawNotNull:
			parts = append(parts, "Any JSON value except null.")
		case KindRawObject:
			parts = append(parts, "A JSON object.")
		case KindArray:
			if f.Type.MinItems > 0 {
				parts = append(parts, fmt.Sprintf("At least %d.", f.Type.MinItems))
			}
		}
	}
	switch {
	case f.NullAlways:
		parts = append(parts, "Decoding reads a null as absent.")
	case f.NullTolerated:
		parts = append(parts, "Lenient decoding reads a legacy null as absent.")
	}
	parts = append(parts, fmt.Sprintf("JSON %q.", f.JSON))
	return strings.Join(parts, " ")
}

func (e *emitter) structFields(s *StructDef) []Code {
	var fields []Code
	if s.Embeds != nil {
		fields = append(fields, Id(s.Embeds.GoName), Line())
	}
	for _, gm := range s.GoMixins {
		fields = append(fields, Id(gm.GoName), Line())
	}
	for _, f := range s.Fields {
		if f.IsConst && f.Required {
			continue // implied by the Go type
		}
		if f.Mixin != nil {
			continue // promoted from the embedded mixin
		}
		fields = append(fields, Comment(fieldDoc(f)), Id(f.GoName).Add(goType(f)))
	}
	if s.Open {
		fields = append(fields,
			Comment("Extra holds members the schema does not define, in input order; they are kept and re-encoded."),
			Id("Extra").Index().Id("RawMember"))
	}
	return fields
}

func (e *emitter) emitEvents(f *File) {
	m := e.m
	f.PackageComment("")
	et := m.EventType
	f.Comment(comment(et.GoName, et.Doc, et.GoName+" is a string enum."))
	f.Comment("")
	f.Comment(schemaRef(et.Name))
	f.Comment("")
	f.Comment("//agui:enum")
	f.Type().Id(et.GoName).String()
	f.Const().DefsFunc(func(g *Group) {
		for _, v := range et.Values {
			g.Id(v.GoName).Id(et.GoName).Op("=").Lit(v.Wire)
		}
	})
	f.Comment("EventTypes returns every event type in protocol order.")
	f.Func().Id("EventTypes").Params().Index().Id(et.GoName).Block(
		Return(Index().Id(et.GoName).ValuesFunc(func(g *Group) {
			for _, v := range et.Values {
				g.Id(v.GoName)
			}
		})),
	)
	e.emitValid(f, et)

	// The sealed Event interface, listing its variants.
	u := m.EventUnion
	f.Comment(comment("Event", u.Doc, "Event is a sealed union."))
	f.Comment("")
	f.Comment(schemaRef(u.Name))
	f.Comment("")
	f.Comment("The set is closed: only this package implements Event, and the exhaustive")
	f.Comment("analyzer (analysis/exhaustive) reports a switch over events that misses one.")
	f.Comment("Variants, in protocol order:")
	for _, s := range m.Events {
		f.Comment(fmt.Sprintf("  - [*%s] (%s)", s.GoName, s.Event.Wire))
	}
	f.Comment("")
	f.Comment("//agui:sealed")
	f.Type().Id("Event").Interface(
		Comment("Type returns the event's wire type."),
		Id("Type").Params().Id(et.GoName),
		Comment("Base returns the members every event may carry."),
		Id("Base").Params().Op("*").Id(m.Embed.GoName),
		Comment("AppendJSON appends the event's compact JSON encoding to dst."),
		Id("AppendJSON").Params(Id("dst").Index().Byte()).Params(Index().Byte(), Error()),
		Id("isEvent").Params(),
	)

	// EventBase.
	emb := m.Embed
	f.Comment(emb.GoName + " holds the members every event may carry. Events embed it.")
	f.Comment("")
	f.Comment(schemaRef(emb.Name))
	f.Type().Id(emb.GoName).StructFunc(func(g *Group) {
		for _, fl := range emb.Fields {
			if fl.IsConst || fl.JSON == "type" {
				continue
			}
			g.Comment(fieldDoc(fl))
			g.Id(fl.GoName).Add(goType(fl))
		}
	})
	f.Comment("Base returns b itself; through embedding it gives every event access to its base members.")
	f.Func().Params(Id("b").Op("*").Id(emb.GoName)).Id("Base").Params().Op("*").Id(emb.GoName).Block(Return(Id("b")))

	for _, gm := range m.Mixins {
		e.emitMixin(f, gm)
	}

	f.Var().DefsFunc(func(g *Group) {
		for _, s := range m.Events {
			g.Id("_").Id("Event").Op("=").Parens(Op("*").Id(s.GoName)).Parens(Nil())
		}
	})

	for _, s := range m.Events {
		f.Comment(comment(s.GoName, s.Doc, fmt.Sprintf("%s is the %s event.", s.GoName, s.Event.Wire)))
		f.Comment("")
		f.Comment(schemaRef(s.Name))
		f.Type().Id(s.GoName).Struct(e.structFields(s)...)
		f.Comment(fmt.Sprintf("Type returns %s.", s.Event.ConstName))
		f.Func().Params(Op("*").Id(s.GoName)).Id("Type").Params().Id(et.GoName).Block(Return(Id(s.Event.ConstName)))
		f.Func().Params(Op("*").Id(s.GoName)).Id("isEvent").Params().Block()
		e.emitConstructor(f, s)
	}
}

// emitConstructor writes NewX taking the required members in wire order.
func (e *emitter) emitConstructor(f *File, s *StructDef) {
	req := requiredFields(s)
	var params []Code
	var names []string
	for _, fl := range req {
		p := paramName(fl.GoName)
		params = append(params, Id(p).Add(goType(fl)))
		names = append(names, p)
	}
	doc := fmt.Sprintf("New%s returns a %s event", s.GoName, s.Event.Wire)
	if len(names) > 0 {
		doc += " with its required members " + strings.Join(names, ", ")
	}
	f.Comment(doc + ".")
	f.Func().Id("New" + s.GoName).Params(params...).Op("*").Id(s.GoName).Block(
		Return(Op("&").Id(s.GoName).Values(DictFunc(func(d Dict) {
			for i, fl := range req {
				d[Id(fl.GoName)] = Id(names[i])
			}
		}))),
	)
}

func requiredFields(s *StructDef) []*Field {
	var out []*Field
	for _, fl := range s.Fields {
		if fl.Required && !fl.IsConst && !fl.Embedded {
			out = append(out, fl)
		}
	}
	return out
}

var goKeywords = map[string]bool{"type": true, "func": true, "range": true, "map": true, "interface": true, "default": true, "go": true, "select": true, "case": true, "chan": true}

func paramName(goName string) string {
	// Lower the leading initialism or word: MessageID -> messageID, ID -> id.
	i := 0
	for i < len(goName) && goName[i] >= 'A' && goName[i] <= 'Z' {
		i++
	}
	var p string
	switch {
	case i == len(goName):
		p = strings.ToLower(goName)
	case i > 1:
		p = strings.ToLower(goName[:i-1]) + goName[i-1:]
	default:
		p = strings.ToLower(goName[:1]) + goName[1:]
	}
	if goKeywords[p] {
		p += "_"
	}
	return p
}

// emitValid writes the Valid method of an enum.
func (e *emitter) emitValid(f *File, en *Enum) {
	f.Comment(fmt.Sprintf("Valid reports whether v is one of the %s values the protocol defines.", en.GoName))
	f.Func().Params(Id("v").Id(en.GoName)).Id("Valid").Params().Bool().Block(
		Switch(Id("v")).Block(
			Case(ListFunc(func(g *Group) {
				for _, v := range en.Values {
					g.Id(v.GoName)
				}
			})).Block(Return(True())),
		),
		Return(False()),
	)
	var q []string
	for _, v := range en.Values {
		q = append(q, strconv.Quote(v.Wire))
	}
	f.Comment("MarshalJSON writes v as a JSON string; like the codec, it refuses a value the protocol does not define.")
	f.Func().Params(Id("v").Id(en.GoName)).Id("MarshalJSON").Params().Params(Index().Byte(), Error()).Block(
		Return(Id("marshalEnum").Call(Lit(en.GoName), String().Call(Id("v")), Id("v").Dot("Valid").Call())),
	)
	f.Comment("UnmarshalJSON reads a JSON string that must be one of the defined values, as strict decoding does.")
	f.Func().Params(Id("v").Op("*").Id(en.GoName)).Id("UnmarshalJSON").Params(Id("data").Index().Byte()).Error().Block(
		List(Id("s"), Err()).Op(":=").Id("unmarshalEnum").Call(Id("data"), Lit(strings.Join(q, ", ")), Func().Params(Id("s").String()).Bool().Block(Return(Id(en.GoName).Call(Id("s")).Dot("Valid").Call()))),
		If(Err().Op("==").Nil()).Block(Op("*").Id("v").Op("=").Id(en.GoName).Call(Id("s"))),
		Return(Err()),
	)
}

func (e *emitter) emitTypes(f *File) {
	m := e.m
	for _, en := range m.Enums {
		if en == m.EventType {
			continue
		}
		f.Comment(comment(en.GoName, en.Doc, en.GoName+" is a string enum."))
		f.Comment("")
		f.Comment(schemaRef(en.Name))
		f.Comment("")
		f.Comment("//agui:enum")
		f.Type().Id(en.GoName).String()
		f.Const().DefsFunc(func(g *Group) {
			for _, v := range en.Values {
				g.Id(v.GoName).Id(en.GoName).Op("=").Lit(v.Wire)
			}
		})
		e.emitValid(f, en)
	}
	for _, u := range m.Unions {
		if u == m.EventUnion {
			continue
		}
		f.Comment(comment(u.GoName, u.Doc, u.GoName+" is a sealed union."))
		f.Comment("")
		f.Comment(schemaRef(u.Name))
		f.Comment("")
		f.Comment(fmt.Sprintf("The set is closed; variants, told apart on the wire by %q:", u.Disc))
		for _, v := range u.Variants {
			f.Comment(fmt.Sprintf("  - [*%s] (%q)", v.GoName, v.Disc.Const))
		}
		f.Comment("")
		f.Comment("//agui:sealed")
		acc := e.accessors(u)
		f.Type().Id(u.GoName).InterfaceFunc(func(g *Group) {
			for _, a := range acc {
				g.Comment(a.doc)
				g.Id(a.name).Params().Add(a.typ)
			}
			g.Comment("AppendJSON appends the value's compact JSON encoding to dst.")
			g.Id("AppendJSON").Params(Id("dst").Index().Byte()).Params(Index().Byte(), Error())
			g.Id(marker(u)).Params()
		})
		f.Var().DefsFunc(func(g *Group) {
			for _, v := range u.Variants {
				g.Id("_").Id(u.GoName).Op("=").Parens(Op("*").Id(v.GoName)).Parens(Nil())
			}
		})
	}
	for _, a := range m.Arrays {
		f.Comment(comment(a.GoName, a.Doc, a.GoName+" is a JSON array."))
		f.Comment("")
		f.Comment(schemaRef(a.Name))
		f.Type().Id(a.GoName).Index().Add(typeCode(a.Elem))
	}
	for _, s := range m.Structs {
		if s.Event != nil {
			continue
		}
		certain := s.GoName + " is a JSON object."
		if s.Disc != nil && len(s.Unions) > 0 {
			certain = fmt.Sprintf("%s is the %q variant of [%s].", s.GoName, s.Disc.Const, s.Unions[0].GoName)
		}
		f.Comment(comment(s.GoName, s.Doc, certain))
		if s.Disc != nil && len(s.Unions) > 0 {
			f.Comment(fmt.Sprintf("On the wire its %q is %q.", s.Disc.JSON, s.Disc.Const))
		}
		f.Comment("")
		f.Comment(schemaRef(s.Name))
		f.Type().Id(s.GoName).Struct(e.structFields(s)...)
		for _, u := range s.Unions {
			for _, a := range e.accessors(u) {
				f.Comment(fmt.Sprintf("%s returns %s.", a.name, a.value(s)))
				recv := Id("v").Op("*").Id(s.GoName)
				if !a.usesV {
					recv = Op("*").Id(s.GoName)
				}
				f.Func().Params(recv).Id(a.name).Params().Add(a.typ).Block(Return(a.body(s)))
				f.Line()
			}
			f.Func().Params(Op("*").Id(s.GoName)).Id(marker(u)).Params().Block()
		}
	}
}

func marker(u *UnionDef) string { return "is" + u.GoName }

// accessor is a method every variant of a union implements, so a consumer
// can read what all variants share without a type switch.
type accessor struct {
	name  string
	doc   string
	typ   Code
	value func(v *StructDef) string // the doc of one variant's method
	body  func(v *StructDef) Code   // the returned expression
	usesV bool                      // the body reads the receiver
}

// accessors lists a union's shared accessors: the discriminator (typed by the
// enum whose values are exactly the variants' constants, when the schema has
// one) and, when every variant requires a string "id", that id. The id method
// carries the union's name because Go forbids a method named like a field.
func (e *emitter) accessors(u *UnionDef) []accessor {
	disc := schemamodel.GoName(u.Disc)
	var typ Code = String()
	en := e.discEnum(u)
	if en != nil {
		typ = Id(en.GoName)
	}
	out := []accessor{{
		name: disc,
		doc:  fmt.Sprintf("%s returns the variant's %q member, which tells the variants apart.", disc, u.Disc),
		typ:  typ,
		value: func(v *StructDef) string {
			if en != nil {
				return enumConst(en, v.Disc.Const)
			}
			return strconv.Quote(v.Disc.Const)
		},
		body: func(v *StructDef) Code {
			if en != nil {
				return Id(enumConst(en, v.Disc.Const))
			}
			return Lit(v.Disc.Const)
		},
	}}
	if allRequireID(u) {
		name := u.GoName + "ID"
		out = append(out, accessor{
			name:  name,
			doc:   fmt.Sprintf("%s returns the variant's \"id\" member.", name),
			typ:   String(),
			value: func(*StructDef) string { return "v.ID" },
			body:  func(*StructDef) Code { return Id("v").Dot("ID") },
			usesV: true,
		})
	}
	return out
}

// discEnum finds the defined enum whose values are exactly the constants of
// u's variants, in any order; nil when there is none.
func (e *emitter) discEnum(u *UnionDef) *Enum {
	want := map[string]bool{}
	for _, v := range u.Variants {
		want[v.Disc.Const] = true
	}
	for _, en := range e.m.Enums {
		if en == e.m.EventType || len(en.Values) != len(want) {
			continue
		}
		ok := true
		for _, v := range en.Values {
			ok = ok && want[v.Wire]
		}
		if ok {
			return en
		}
	}
	return nil
}

func enumConst(en *Enum, wire string) string {
	for _, v := range en.Values {
		if v.Wire == wire {
			return v.GoName
		}
	}
	panic("no enum value " + wire)
}

func allRequireID(u *UnionDef) bool {
	for _, v := range u.Variants {
		found := false
		for _, f := range v.Fields {
			if f.JSON == "id" && f.Required && f.Type.Kind == KindString && !f.IsConst {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// emitMixin writes a Go-only mixin: the struct that types composing the
// schema definition embed, its accessor, and the interface every embedding
// type satisfies through the promoted accessor, so code can reach the
// members of any of them without a type switch.
func (e *emitter) emitMixin(f *File, gm *StructDef) {
	iface := schemamodel.GoName(gm.Name)
	var users []string
	for _, s := range e.m.Structs {
		if slices.Contains(s.GoMixins, gm) {
			users = append(users, "[*"+s.GoName+"]")
		}
	}
	f.Comment(fmt.Sprintf("%s holds the members of the schema's %s mixin. %s", gm.GoName, gm.Name, gm.Doc))
	f.Comment("")
	f.Comment("Schema: #/$defs/" + gm.Name)
	f.Type().Id(gm.GoName).StructFunc(func(g *Group) {
		for _, fl := range gm.Fields {
			g.Comment(fieldDoc(fl))
			g.Id(fl.GoName).Add(goType(fl))
		}
	})
	f.Comment(fmt.Sprintf("%s returns m itself. Types that embed %s get it by promotion, which makes them %s.", gm.Method, gm.GoName, iface))
	f.Func().Params(Id("m").Op("*").Id(gm.GoName)).Id(gm.Method).Params().Op("*").Id(gm.GoName).Block(Return(Id("m")))
	f.Comment(fmt.Sprintf("%s is implemented by every type that embeds [%s]: %s.", iface, gm.GoName, strings.Join(users, ", ")))
	f.Type().Id(iface).Interface(
		Comment(fmt.Sprintf("%s returns the embedded %s, for reading or setting its members.", gm.Method, gm.GoName)),
		Id(gm.Method).Params().Op("*").Id(gm.GoName),
	)
	f.Var().DefsFunc(func(g *Group) {
		for _, s := range e.m.Structs {
			if slices.Contains(s.GoMixins, gm) {
				g.Id("_").Id(iface).Op("=").Parens(Op("*").Id(s.GoName)).Parens(Nil())
			}
		}
	})
}
