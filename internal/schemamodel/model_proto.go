package schemamodel

import (
	"strconv"
	"strings"
)

// The protobuf binding of the model. It is kept beside the rest of the model
// rather than inside Field and StructDef, so that it reads as one piece: what
// a member is on the protobuf wire besides its field number
// (Field.ProtoField), and how a union variant is told apart there.

// ProtoModel is what the x-agui-proto* annotations add to the model.
type ProtoModel struct {
	Fields   map[*Field]*ProtoField
	Variants map[*StructDef]*ProtoVariant
	// Structs lists, in model order, every struct the binding reaches from
	// the events; each gets an encoder and a decoder.
	Structs []*StructDef
}

// ProtoField is a member's protobuf shape.
type ProtoField struct {
	// JSON is the well-known type carrying open JSON: "Value" or "Struct".
	JSON string
	// Optional marks a field with explicit presence in the .proto: written
	// whenever the member is present, even when it is empty.
	Optional bool
	// Parts is, for Content, the field number of the repeated content-part
	// carrier; the string form goes to the member's own field number.
	Parts int
}

// ProtoVariant says how a union variant is told apart on the protobuf wire.
type ProtoVariant struct {
	// Oneof is the variant's arm in its union's wrapper message (content
	// parts, part sources). Zero for merged unions, whose variants share one
	// message and are told apart by their discriminator member.
	Oneof int
	// Enum, when HasEnum, is the value the discriminator is written as, in
	// place of its string (JSON Patch operations).
	Enum    int
	HasEnum bool
}

// Info returns the protobuf shape of f; never nil.
func (p *ProtoModel) Info(f *Field) *ProtoField {
	if i := p.Fields[f]; i != nil {
		return i
	}
	return &ProtoField{}
}

// Merged reports whether the union's variants share one protobuf message
// (rather than each being an arm of a wrapper message).
func (p *ProtoModel) Merged(u *UnionDef) bool {
	for _, v := range u.Variants {
		if pv := p.Variants[v]; pv != nil && pv.Oneof != 0 {
			return false
		}
	}
	return true
}

// nodeAt resolves a JSON Pointer of the schema document.
func (r *resolver) nodeAt(ptr string) *node {
	n := r.root
	if ptr == "" {
		return n
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if n.kind == '[' {
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(n.vals) {
				return nil
			}
			n = n.vals[i]
			continue
		}
		if n = n.get(tok); n == nil {
			return nil
		}
	}
	return n
}

// resolveProto reads the protobuf annotations that the first pass does not:
// those of non-event definitions and the member-level x-agui-proto-*
// keywords. It then checks that every member the binding reaches has a
// field number and that no two members of a message share one.
func (r *resolver) resolveProto() error {
	pm := &r.model.Proto
	pm.Fields = map[*Field]*ProtoField{}
	pm.Variants = map[*StructDef]*ProtoVariant{}
	all := append([]*StructDef{r.model.Embed}, r.model.Structs...)
	for _, s := range all {
		if s == nil {
			continue
		}
		for _, f := range s.Fields {
			p := r.nodeAt(f.Ptr)
			if p == nil {
				continue
			}
			info := &ProtoField{}
			switch f.Type.Kind {
			case KindRaw, KindRawNotNull:
				info.JSON = "Value"
			case KindRawObject:
				info.JSON = "Struct"
			}
			if x := p.get("x-agui-proto-json"); x != nil {
				if x.str != "Value" && x.str != "Struct" {
					return r.errAt(x, `x-agui-proto-json must be "Value" or "Struct"`)
				}
				if info.JSON == "" {
					return r.errAt(x, "x-agui-proto-json on a member that is not open JSON")
				}
				info.JSON = x.str
			}
			if x := p.get("x-agui-proto-optional"); x != nil {
				if x.kind != 'b' {
					return r.errAt(x, "x-agui-proto-optional must be a boolean")
				}
				info.Optional = x.b
			}
			if x := p.get("x-agui-proto-parts"); x != nil {
				n, err := strconv.Atoi(x.str)
				if err != nil || n <= 0 || f.Type.Kind != KindContent {
					return r.errAt(x, "x-agui-proto-parts must be a positive integer, on a content member")
				}
				info.Parts = n
			}
			pm.Fields[f] = info
		}
		if s.Event != nil || s == r.model.Embed {
			continue
		}
		d := r.def(s.Name)
		pr := d.get("x-agui-proto")
		if pr == nil {
			continue
		}
		pv := &ProtoVariant{}
		for i, k := range pr.keys {
			n, err := strconv.Atoi(pr.vals[i].str)
			if err != nil || n < 0 {
				return r.errAt(pr.vals[i], "x-agui-proto.%s must be a non-negative integer", k)
			}
			switch k {
			case "oneof":
				pv.Oneof = n
			case "enum":
				pv.Enum, pv.HasEnum = n, true
			case "subagentRunId":
				var tag *Field
				for _, f := range s.Fields {
					if f.JSON == "subagentRunId" {
						tag = f
					}
				}
				if tag == nil {
					return r.errAt(pr.vals[i], "x-agui-proto.subagentRunId on a definition without subagentRunId")
				}
				tag.ProtoField = n
			default:
				return r.errAt(pr.vals[i], "unknown x-agui-proto member %q", k)
			}
		}
		pm.Variants[s] = pv
	}
	return r.checkProto()
}

// checkProto walks the structs reachable from the events and checks their
// numbering.
func (r *resolver) checkProto() error {
	pm := &r.model.Proto
	seen := map[*StructDef]bool{}
	var visitType func(t *TypeRef) error
	var visit func(s *StructDef) error
	visitType = func(t *TypeRef) error {
		switch t.Kind {
		case KindStruct:
			return visit(t.Struct)
		case KindArray, KindContent:
			return visitType(t.Elem)
		case KindUnion:
			for _, v := range t.Union.Variants {
				if err := visit(v); err != nil {
					return err
				}
			}
		}
		return nil
	}
	visit = func(s *StructDef) error {
		if seen[s] {
			return nil
		}
		seen[s] = true
		nums := map[int]string{}
		claim := func(n int, what string) error {
			if prev, dup := nums[n]; dup {
				return r.errAt(r.def(s.Name), "protobuf field %d is used by both %s and %s", n, prev, what)
			}
			nums[n] = what
			return nil
		}
		for _, f := range s.Fields {
			if f.ProtoField == 0 {
				if f == s.Disc && s.Event != nil {
					continue // the envelope's arm says it
				}
				if f == s.Disc && len(s.Unions) > 0 && !pm.Merged(s.Unions[0]) {
					continue // an arm of a wrapper message: the arm says it
				}
				if f == s.Disc && len(s.Unions) > 0 && isFlattened(r.model, s.Unions[0]) {
					continue // written at the union member's own number
				}
				return r.errAt(r.nodeAt(f.Ptr), "member %s.%s has no x-agui-proto-field", s.Name, f.JSON)
			}
			if err := claim(f.ProtoField, f.JSON); err != nil {
				return err
			}
			info := pm.Info(f)
			if f.Type.Kind == KindContent {
				if info.Parts == 0 {
					return r.errAt(r.nodeAt(f.Ptr), "content member %s.%s needs x-agui-proto-parts", s.Name, f.JSON)
				}
				if err := claim(info.Parts, f.JSON+" (parts)"); err != nil {
					return err
				}
			}
			if f.Type.Kind == KindUnion && pm.Merged(f.Type.Union) {
				// A single merged union is flattened into this message.
				for _, v := range f.Type.Union.Variants {
					for _, vf := range v.Fields {
						if vf == v.Disc {
							continue
						}
						if err := claim(vf.ProtoField, v.Name+"."+vf.JSON); err != nil {
							return err
						}
					}
				}
			}
			if err := visitType(f.Type); err != nil {
				return err
			}
		}
		return nil
	}
	for _, ev := range r.model.Events {
		if err := visit(ev); err != nil {
			return err
		}
	}
	for _, f := range r.model.Embed.Fields {
		if f.ProtoField == 0 {
			return r.errAt(r.nodeAt(f.Ptr), "base member %s has no x-agui-proto-field", f.JSON)
		}
	}
	for _, s := range r.model.Structs {
		if seen[s] {
			pm.Structs = append(pm.Structs, s)
		}
	}
	// The variants of a merged union share one message, so a field number
	// must mean the same member in all of them.
	for _, u := range r.model.Unions {
		if !pm.Merged(u) || u == r.model.EventUnion {
			continue
		}
		names := map[int]string{}
		for _, v := range u.Variants {
			for _, f := range v.Fields {
				for _, n := range []int{f.ProtoField, pm.Info(f).Parts} {
					if n == 0 {
						continue
					}
					if prev, ok := names[n]; ok && prev != f.JSON {
						return r.errAt(r.def(v.Name), "protobuf field %d of the shared %s message is %s in one variant and %s in %s", n, u.Name, prev, f.JSON, v.Name)
					}
					names[n] = f.JSON
				}
			}
		}
	}
	return nil
}

// isFlattened reports whether u appears as a single (non-list) member
// somewhere, which is how outcomes are carried: their discriminator is a
// string at the member's number and their members sit beside it.
func isFlattened(m *Model, u *UnionDef) bool {
	for _, s := range m.Structs {
		for _, f := range s.Fields {
			if f.Type.Kind == KindUnion && f.Type.Union == u {
				return true
			}
		}
	}
	return false
}
