package schemamodel

import (
	"fmt"
	"strconv"
	"strings"
)

// Sample builds a document of the named definition in which every member is
// present, with a representative value, and every union in a list shows each
// of its variants. Tests round-trip these through the generated codec: the
// fixtures exercise what the protocol's authors thought of, samples exercise
// every member the generator emits.
func Sample(m *Model, def string) ([]byte, error) {
	for _, s := range m.Structs {
		if s.Name == def {
			var b strings.Builder
			sampleStruct(&b, s, 0)
			return []byte(b.String()), nil
		}
	}
	for _, u := range m.Unions {
		if u.Name == def {
			var b strings.Builder
			sampleStruct(&b, u.Variants[len(u.Variants)-1], 0)
			return []byte(b.String()), nil
		}
	}
	return nil, fmt.Errorf("no definition %q", def)
}

// Definitions lists the definitions Sample can build, in schema order.
func Definitions(m *Model) []string {
	var out []string
	for _, s := range m.Structs {
		out = append(out, s.Name)
	}
	for _, u := range m.Unions {
		out = append(out, u.Name)
	}
	return out
}

func sampleStruct(b *strings.Builder, s *StructDef, depth int) {
	b.WriteByte('{')
	fields := s.Fields
	if s.Embeds != nil {
		for _, f := range s.Embeds.Fields {
			if f.JSON != "type" {
				fields = append(fields[:len(fields):len(fields)], f)
			}
		}
	}
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(f.JSON))
		b.WriteByte(':')
		if f.IsConst {
			b.WriteString(strconv.Quote(f.Const))
			continue
		}
		sampleValue(b, f.Type, f.JSON, depth)
	}
	if s.Open {
		if len(fields) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"x-extra":{"kept":[1,null]}`)
	}
	b.WriteByte('}')
}

func sampleValue(b *strings.Builder, t *TypeRef, name string, depth int) {
	switch t.Kind {
	case KindString:
		if t.Format == "json-pointer" {
			b.WriteString(`"/a~1b/~0c/0"`)
		} else {
			b.WriteString(strconv.Quote(name + "-é\n\"x\""))
		}
	case KindInt:
		fmt.Fprintf(b, "%d", *t.Max)
	case KindBool:
		b.WriteString("true")
	case KindRaw:
		b.WriteString(`{"k":[1,null,"x",2.5e3,{"n":{}}]}`)
	case KindRawNotNull:
		b.WriteString(`[1,"two",{"three":null}]`)
	case KindRawObject:
		b.WriteString(`{"k":null,"n":[true]}`)
	case KindEnum:
		b.WriteString(strconv.Quote(t.Enum.Values[len(t.Enum.Values)-1].Wire))
	case KindStruct:
		sampleStruct(b, t.Struct, depth+1)
	case KindUnion:
		sampleStruct(b, t.Union.Variants[depth%len(t.Union.Variants)], depth+1)
	case KindArray:
		b.WriteByte('[')
		if t.Elem.Kind == KindUnion && depth < 3 {
			for i, v := range t.Elem.Union.Variants {
				if i > 0 {
					b.WriteByte(',')
				}
				sampleStruct(b, v, depth+1)
			}
		} else if depth < 4 {
			sampleValue(b, t.Elem, name, depth+1)
			b.WriteByte(',')
			sampleValue(b, t.Elem, name, depth+1)
		}
		b.WriteByte(']')
	case KindContent:
		// Content is a string or a list of the ContentPart union: a list
		// that exercises a text part and both media sources.
		b.WriteString(`[{"type":"text","text":"hi"},{"type":"image","source":{"type":"url","value":"https://x"}},{"type":"document","source":{"type":"file","value":"f1","provider":"openai"}}]`)
	}
}

// WireOrder lists the JSON names of s's members in the order the encoder
// writes them, the embedded mixin's members included.
func WireOrder(s *StructDef) []string {
	var out []string
	for i, f := range s.Wire {
		if s.Embeds != nil && i == s.EmbedAt {
			for _, ef := range s.Embeds.Wire {
				if ef.JSON != "type" {
					out = append(out, ef.JSON)
				}
			}
		}
		out = append(out, f.JSON)
	}
	if s.Embeds != nil && s.EmbedAt == len(s.Wire) {
		for _, ef := range s.Embeds.Wire {
			if ef.JSON != "type" {
				out = append(out, ef.JSON)
			}
		}
	}
	return out
}
