package schemamodel

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// SchemaError points at the place in the schema that the generator cannot use.
type SchemaError struct {
	File    string
	Line    int
	Col     int
	Pointer string // JSON Pointer into the schema document
	Msg     string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", e.File, e.Line, e.Col, e.Pointer, e.Msg)
}

// A Loader reads and resolves schema documents.
type Loader struct {
	// Validate, when set, checks the document against the JSON Schema
	// meta-schema (a validator is a dependency the core module does without:
	// the generator sets it). It runs once every $ref is known to name a
	// definition, before the model is resolved, and is given the document's
	// $id ("" when it has none) and the JSON Pointer of each definition
	// ("/$defs/RunAgentInput"). An error about one of them (a
	// *DefinitionError) is reported at its position.
	Validate func(data []byte, id string, defs []string) error
}

// DefinitionError is an error of Loader.Validate about one definition.
type DefinitionError struct {
	Pointer string // the definition's JSON Pointer, as Validate was given it
	Err     error
}

func (e *DefinitionError) Error() string { return e.Pointer + ": " + e.Err.Error() }

func (e *DefinitionError) Unwrap() error { return e.Err }

// Load reads and resolves the schema at path, without Validate.
func Load(path string) (*Model, error) { return Loader{}.Load(path) }

// LoadBytes resolves a schema document, without Validate.
func LoadBytes(name string, data []byte) (*Model, error) { return Loader{}.LoadBytes(name, data) }

// Load reads the schema at path, validates it when l.Validate is set, and
// resolves it.
func (l Loader) Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return l.LoadBytes(path, data)
}

// LoadBytes validates a schema document when l.Validate is set, and resolves
// it. name is used in error positions and in generated headers.
func (l Loader) LoadBytes(name string, data []byte) (*Model, error) {
	root, err := parseNode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkRefs(name, data, root); err != nil {
		return nil, err
	}
	if l.Validate != nil {
		if err := validate(l.Validate, name, data, root); err != nil {
			return nil, err
		}
	}
	sum := sha256.Sum256(data)
	r := &resolver{
		name: name, data: data, root: root,
		model:   &Model{Source: name, Hash: hex.EncodeToString(sum[:])},
		structs: map[string]*StructDef{}, unions: map[string]*UnionDef{},
		enums: map[string]*Enum{}, arrays: map[string]*NamedArray{},
	}
	if err := r.resolve(); err != nil {
		return nil, err
	}
	return r.model, nil
}

// validate runs fn over the document and positions what it reports about a
// definition.
func validate(fn func(data []byte, id string, defs []string) error, name string, data []byte, root *node) error {
	var id string
	if n := root.get("$id"); n != nil && n.kind == '"' {
		id = n.str
	}
	var defs []*node
	if n := root.get("$defs"); n != nil {
		defs = n.vals
	}
	ptrs := make([]string, len(defs))
	for i, d := range defs {
		ptrs[i] = d.ptr
	}
	err := fn(data, id, ptrs)
	if err == nil {
		return nil
	}
	var de *DefinitionError
	if errors.As(err, &de) {
		for _, d := range defs {
			if d.ptr == de.Pointer {
				line, col := position(data, d.offset)
				return &SchemaError{File: name, Line: line, Col: col, Pointer: d.ptr, Msg: de.Err.Error()}
			}
		}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// checkRefs proves every $ref names a definition, and says where one does
// not; the validator would also fail, but without a position in the file.
func checkRefs(name string, data []byte, root *node) error {
	defs := root.get("$defs")
	var walk func(n *node) error
	walk = func(n *node) error {
		if n.kind == '{' {
			if ref := n.get("$ref"); ref != nil {
				target, ok := strings.CutPrefix(ref.str, "#/$defs/")
				if !ok || defs.get(target) == nil {
					line, col := position(data, ref.offset)
					return &SchemaError{File: name, Line: line, Col: col, Pointer: ref.ptr, Msg: fmt.Sprintf("$ref %q names no definition under $defs", ref.str)}
				}
			}
		}
		for _, v := range n.vals {
			if err := walk(v); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root)
}

type resolver struct {
	name    string
	data    []byte
	root    *node
	model   *Model
	defs    *node
	structs map[string]*StructDef
	unions  map[string]*UnionDef
	enums   map[string]*Enum
	arrays  map[string]*NamedArray
	mixins  map[string]bool
	goMix   map[string]*StructDef // mixins embedded as Go-only structs (Attribution)
}

func (r *resolver) errAt(n *node, format string, args ...any) error {
	line, col := position(r.data, n.offset)
	return &SchemaError{File: r.name, Line: line, Col: col, Pointer: n.ptr, Msg: fmt.Sprintf(format, args...)}
}

// Keywords the generator understands. Anything else is an error, so a new
// keyword in the schema cannot be silently ignored.
var (
	rootKeywords = []string{"$schema", "$id", "title", "description", "$ref", "$defs",
		"x-agui-protocol-version", "x-agui-entities", "x-agui-rules", "x-agui-error-codes",
		"x-agui-http-error-codes"}
	defKeywords = []string{"$anchor", "description", "type", "allOf", "oneOf", "properties", "required",
		"unevaluatedProperties", "additionalProperties", "items", "enum", "pattern",
		"x-agui-lifecycle", "x-agui-attribution", "x-agui-proto", "x-agui-discriminator",
		"x-agui-format", "x-agui-go-embed", "x-agui-go-mixin"}
	propKeywords = []string{"description", "type", "$ref", "const", "enum", "not", "oneOf", "items",
		"minimum", "maximum", "minItems", "additionalProperties", "default", "contentEncoding",
		"x-agui-proto-field", "x-agui-null-tolerated", "x-agui-go-type",
		"x-agui-proto-optional", "x-agui-proto-parts", "x-agui-proto-json"}
)

func (r *resolver) checkKeywords(n *node, allowed []string) error {
	for i, k := range n.keys {
		if !slices.Contains(allowed, k) {
			return r.errAt(n.vals[i], "unsupported keyword %q", k)
		}
	}
	return nil
}

func (r *resolver) resolve() error {
	if err := r.checkKeywords(r.root, rootKeywords); err != nil {
		return err
	}
	r.defs = r.root.get("$defs")
	if r.defs == nil {
		return r.errAt(r.root, "missing $defs")
	}
	if v := r.root.get("x-agui-protocol-version"); v != nil && v.kind == '"' {
		r.model.Version = v.str
	} else {
		return r.errAt(r.root, "missing x-agui-protocol-version")
	}
	if err := r.readRootAnnotations(); err != nil {
		return err
	}
	// Mixins are the definitions other definitions compose through allOf.
	r.mixins = map[string]bool{}
	for _, d := range r.defs.vals {
		for _, a := range r.allOf(d) {
			r.mixins[a] = true
		}
	}
	// First pass: create every named type so references can be resolved in
	// any order. Second pass: fill in fields and variants.
	for i, name := range r.defs.keys {
		if err := r.declare(name, r.defs.vals[i]); err != nil {
			return err
		}
	}
	// Unions first, so every struct knows its discriminator when its
	// fields are resolved.
	for _, union := range []bool{true, false} {
		for i, name := range r.defs.keys {
			if _, isUnion := r.unions[name]; isUnion != union {
				continue
			}
			if err := r.define(name, r.defs.vals[i]); err != nil {
				return err
			}
		}
	}
	if err := r.finishEvents(); err != nil {
		return err
	}
	return r.resolveProto()
}

func (r *resolver) allOf(d *node) []string {
	var out []string
	if a := d.get("allOf"); a != nil {
		for _, v := range a.vals {
			if ref := v.get("$ref"); ref != nil {
				out = append(out, strings.TrimPrefix(ref.str, "#/$defs/"))
			}
		}
	}
	return out
}

func (r *resolver) def(name string) *node { return r.defs.get(name) }

// declare creates the named Go type a definition becomes, if any.
func (r *resolver) declare(name string, d *node) error {
	if d.kind != '{' {
		return r.errAt(d, "a definition must be an object")
	}
	if err := r.checkKeywords(d, defKeywords); err != nil {
		return err
	}
	if a := d.get("$anchor"); a == nil || a.str != name {
		return r.errAt(d, "definition %q must carry $anchor %q", name, name)
	}
	doc := ""
	if x := d.get("description"); x != nil {
		doc = x.str
	}
	typ := ""
	if t := d.get("type"); t != nil {
		typ = t.str
	}
	switch {
	case d.get("oneOf") != nil:
		disc := d.get("x-agui-discriminator")
		if disc == nil || disc.kind != '"' {
			return r.errAt(d, "a union needs x-agui-discriminator naming its discriminating property")
		}
		u := &UnionDef{Name: name, GoName: GoName(name), Doc: doc, Disc: disc.str}
		r.unions[name] = u
		r.model.Unions = append(r.model.Unions, u)
	case typ == "string" && d.get("enum") != nil:
		e := &Enum{Name: name, GoName: GoName(name), Doc: doc, Defined: true}
		for _, v := range d.get("enum").vals {
			e.Values = append(e.Values, EnumValue{Wire: v.str, GoName: e.GoName + EnumName(v.str)})
		}
		r.enums[name] = e
		r.model.Enums = append(r.model.Enums, e)
		if name == "EventType" {
			r.model.EventType = e
		}
	case typ == "array":
		a := &NamedArray{Name: name, GoName: GoName(name), Doc: doc}
		r.arrays[name] = a
		r.model.Arrays = append(r.model.Arrays, a)
	case typ == "object" && isOpenMap(d):
		// Metadata-like: an open object, represented as raw JSON.
	case typ == "object":
		if r.mixins[name] {
			if gm := d.get("x-agui-go-mixin"); gm != nil {
				typ, method := gm.get("type"), gm.get("method")
				if typ == nil || method == nil || typ.kind != '"' || method.kind != '"' {
					return r.errAt(gm, `x-agui-go-mixin needs {"type": Go type, "method": accessor}`)
				}
				s := &StructDef{Name: name, GoName: typ.str, Doc: doc, Method: method.str}
				if r.goMix == nil {
					r.goMix = map[string]*StructDef{}
				}
				r.goMix[name] = s
				r.model.Mixins = append(r.model.Mixins, s)
				return nil
			}
			if emb := d.get("x-agui-go-embed"); emb != nil {
				s := &StructDef{Name: name, GoName: emb.str, Doc: doc}
				r.structs[name] = s
				r.model.Embed = s
			}
			return nil
		}
		s := &StructDef{Name: name, GoName: GoName(name), Doc: doc}
		if uv := d.get("unevaluatedProperties"); uv == nil || uv.kind != 'b' || uv.b {
			s.Open = true
		}
		if d.get("x-agui-lifecycle") != nil {
			s.GoName = GoName(strings.TrimSuffix(name, "Event"))
			s.Event = &EventInfo{}
		}
		r.structs[name] = s
		r.model.Structs = append(r.model.Structs, s)
	case typ == "string" || typ == "":
		// Aliases (SubagentRunId, JsonPointer, State) are inlined where used.
	default:
		return r.errAt(d, "cannot map definition of type %q", typ)
	}
	return nil
}

func isOpenMap(d *node) bool {
	ap := d.get("additionalProperties")
	return ap != nil && ap.kind == 'b' && ap.b && d.get("properties") == nil
}

func (r *resolver) define(name string, d *node) error {
	if u, ok := r.unions[name]; ok {
		for _, v := range d.get("oneOf").vals {
			ref := v.get("$ref")
			if ref == nil {
				return r.errAt(v, "union members must be $refs")
			}
			target := strings.TrimPrefix(ref.str, "#/$defs/")
			s, ok := r.structs[target]
			if !ok {
				return r.errAt(ref, "union member %q is not an object definition", ref.str)
			}
			u.Variants = append(u.Variants, s)
			s.Unions = append(s.Unions, u)
		}
		if name == "Event" {
			r.model.EventUnion = u
		}
		return nil
	}
	if a, ok := r.arrays[name]; ok {
		t, err := r.typeOf(d.get("items"), d)
		if err != nil {
			return err
		}
		a.Elem = t
		return nil
	}
	s, ok := r.structs[name]
	if !ok {
		return nil
	}
	fields, err := r.fields(d, s)
	if err != nil {
		return err
	}
	s.Fields = fields
	for _, f := range fields {
		if f.Required && !f.IsConst {
			s.Required++
		}
	}
	if s.Event != nil {
		return r.eventInfo(d, s)
	}
	return nil
}

// fields collects a struct's properties and orders them for Go: the
// discriminating constant, then the required members it inherits (a
// message's id), then its own properties in schema order, then the optional
// members it inherits (subagentRunId). Members of the embedded mixin
// (EventBase) live in the mixin. The encoder uses another order, s.Wire
// (see wireOrder). A property the
// definition redeclares (a const role over BaseMessage's string role) keeps
// the definition's schema and position.
func (r *resolver) fields(d *node, s *StructDef) ([]*Field, error) {
	required := map[string]bool{}
	addRequired := func(n *node) {
		if req := n.get("required"); req != nil {
			for _, v := range req.vals {
				required[v.str] = true
			}
		}
	}
	addRequired(d)
	type prop struct {
		name   string
		schema *node
		own    bool
		from   string // the mixin that declares it, "" for own
	}
	var props []prop
	seen := map[string]bool{}
	collect := func(n *node, own bool, from string) {
		if n == nil {
			return
		}
		for i, k := range n.keys {
			if !seen[k] {
				seen[k] = true
				props = append(props, prop{k, n.vals[i], own, from})
			}
		}
	}
	collect(d.get("properties"), true, "")
	var visit func(def *node) error
	visit = func(def *node) error {
		for _, mixin := range r.allOf(def) {
			md := r.def(mixin)
			if md == nil {
				return r.errAt(def.get("allOf"), "allOf names unknown definition %q", mixin)
			}
			if emb := r.structs[mixin]; emb != nil && emb == r.model.Embed {
				s.Embeds = emb
				if emb.Fields == nil {
					ef, err := r.fields(md, emb)
					if err != nil {
						return err
					}
					emb.Fields = ef
				}
				for _, f := range emb.Fields {
					seen[f.JSON] = true
				}
				continue
			}
			if gm := r.goMix[mixin]; gm != nil && gm.Fields == nil {
				gf, err := r.fields(md, gm)
				if err != nil {
					return err
				}
				gm.Fields = gf
			}
			addRequired(md)
			collect(md.get("properties"), false, mixin)
			if err := visit(md); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(d); err != nil {
		return nil, err
	}
	for k := range required {
		if !seen[k] {
			return nil, r.errAt(d.get("required"), "required property %q is not declared", k)
		}
	}
	var disc, inheritedReq, own, inheritedOpt []*Field
	for _, p := range props {
		f, err := r.field(p.name, p.schema)
		if err != nil {
			return nil, err
		}
		f.Required = required[p.name]
		if gm := r.goMix[p.from]; gm != nil && !p.own {
			// The member lives in the embedded Go mixin; the codec reaches
			// it through Go's field promotion.
			f.Mixin = gm
			if !slices.Contains(s.GoMixins, gm) {
				s.GoMixins = append(s.GoMixins, gm)
			}
		}
		switch {
		case f.IsConst && f.JSON == discOf(s) && disc == nil:
			disc = append(disc, f)
			s.Disc = f
		case p.own:
			own = append(own, f)
		case f.Required:
			inheritedReq = append(inheritedReq, f)
		default:
			inheritedOpt = append(inheritedOpt, f)
		}
	}
	all := slices.Concat(disc, inheritedReq, own, inheritedOpt)
	s.Wire, s.EmbedAt = r.wireOrder(d, all)
	return all, nil
}

// embedMark stands for the embedded mixin's members in a declaration order.
const embedMark = "\x00embed"

// wireOrder is the order the encoder writes members in: declaration order,
// in which a definition's allOf mixins come first (recursively, in order) and
// then its own properties, a redeclared property keeping the position of its
// first declaration. It is the key order of the object @ag-ui/core's zod
// schemas build when parsing, so the reference encoder writes the same bytes.
// The embedded mixin's members (written by their own helper) are one block,
// whose position in the result is embedAt (-1 when there is none).
func (r *resolver) wireOrder(d *node, fields []*Field) (wire []*Field, embedAt int) {
	var names []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			names = append(names, k)
		}
	}
	var visit func(def *node)
	visit = func(def *node) {
		for _, mixin := range r.allOf(def) {
			if emb := r.structs[mixin]; emb != nil && emb == r.model.Embed {
				// The mixin's discriminator leads its block, wherever the
				// schema declares it: the block's helper writes each member
				// after a comma.
				for _, f := range emb.Fields {
					if f.JSON == "type" {
						add("type")
					}
				}
				add(embedMark)
				continue
			}
			if md := r.def(mixin); md != nil {
				visit(md)
			}
		}
		if props := def.get("properties"); props != nil {
			for _, k := range props.keys {
				add(k)
			}
		}
	}
	visit(d)
	byName := map[string]*Field{}
	for _, f := range fields {
		byName[f.JSON] = f
	}
	embedAt = -1
	for _, k := range names {
		if k == embedMark {
			embedAt = len(wire)
			continue
		}
		if f := byName[k]; f != nil {
			wire = append(wire, f)
		}
	}
	return wire, embedAt
}

// discOf guesses the discriminator before unions are linked: events and parts
// use "type", messages "role", patch operations "op".
func discOf(s *StructDef) string {
	for _, u := range s.Unions {
		return u.Disc
	}
	return "type"
}

func (r *resolver) field(name string, p *node) (*Field, error) {
	if p.kind != '{' {
		return nil, r.errAt(p, "property schema must be an object")
	}
	if err := r.checkKeywords(p, propKeywords); err != nil {
		return nil, err
	}
	f := &Field{JSON: name, GoName: GoName(name), Ptr: p.ptr}
	if x := p.get("description"); x != nil {
		f.Doc = x.str
	}
	if x := p.get("x-agui-proto-field"); x != nil {
		n, err := strconv.Atoi(x.str)
		if err != nil || n <= 0 {
			return nil, r.errAt(x, "x-agui-proto-field must be a positive integer")
		}
		f.ProtoField = n
	}
	if x := p.get("x-agui-null-tolerated"); x != nil {
		switch {
		case x.kind == 'b':
			f.NullTolerated = x.b
		case x.kind == '"' && x.str == "always":
			f.NullTolerated, f.NullAlways = true, true
		default:
			return nil, r.errAt(x, `x-agui-null-tolerated must be a boolean or "always"`)
		}
	}
	if c := p.get("const"); c != nil {
		if c.kind != '"' {
			return nil, r.errAt(c, "only string constants are supported")
		}
		f.Const, f.IsConst = c.str, true
		f.Type = &TypeRef{Kind: KindString}
		return f, nil
	}
	if e := p.get("enum"); e != nil {
		goName := ""
		if x := p.get("x-agui-go-type"); x != nil {
			goName = x.str
		} else {
			return nil, r.errAt(p, "an inline enum needs x-agui-go-type to name its Go type")
		}
		en := &Enum{Name: goName, GoName: goName, Doc: f.Doc, Defined: true}
		for _, v := range e.vals {
			en.Values = append(en.Values, EnumValue{Wire: v.str, GoName: goName + EnumName(v.str)})
		}
		r.model.Enums = append(r.model.Enums, en)
		f.Type = &TypeRef{Kind: KindEnum, Enum: en}
		return f, nil
	}
	t, err := r.typeOf(p, p)
	if err != nil {
		return nil, err
	}
	f.Type = t
	return f, nil
}

// typeOf maps a schema to a Go representation.
func (r *resolver) typeOf(p, at *node) (*TypeRef, error) {
	if p == nil {
		return nil, r.errAt(at, "missing schema")
	}
	notNull := false
	if n := p.get("not"); n != nil {
		if t := n.get("type"); t == nil || t.str != "null" || len(n.keys) != 1 {
			return nil, r.errAt(n, `only {"not": {"type": "null"}} is supported`)
		}
		notNull = true
	}
	if ref := p.get("$ref"); ref != nil {
		name := strings.TrimPrefix(ref.str, "#/$defs/")
		d := r.def(name)
		if d == nil || !strings.HasPrefix(ref.str, "#/$defs/") {
			return nil, r.errAt(ref, "unresolvable $ref %q", ref.str)
		}
		switch {
		case r.structs[name] != nil:
			return &TypeRef{Kind: KindStruct, Struct: r.structs[name]}, nil
		case r.unions[name] != nil:
			return &TypeRef{Kind: KindUnion, Union: r.unions[name]}, nil
		case r.enums[name] != nil:
			return &TypeRef{Kind: KindEnum, Enum: r.enums[name]}, nil
		case r.arrays[name] != nil:
			a := r.arrays[name]
			t, err := r.typeOf(d.get("items"), d)
			if err != nil {
				return nil, err
			}
			return &TypeRef{Kind: KindArray, Elem: t, Named: a}, nil
		case isOpenMap(d):
			return &TypeRef{Kind: KindRawObject}, nil
		}
		// An alias: resolve the definition's own schema in place.
		t, err := r.typeOf(d, d)
		if err != nil {
			return nil, err
		}
		if notNull && t.Kind == KindRaw {
			t.Kind = KindRawNotNull
		}
		if f := d.get("x-agui-format"); f != nil {
			t.Format = f.str
		}
		return t, nil
	}
	if o := p.get("oneOf"); o != nil {
		// The one inline union the protocol has: a string or a list of
		// content parts.
		if len(o.vals) == 2 {
			a, b := o.vals[0], o.vals[1]
			if t := a.get("type"); t != nil && t.str == "string" {
				if t2 := b.get("type"); t2 != nil && t2.str == "array" {
					if ref := b.get("items").get("$ref"); ref != nil && strings.HasSuffix(ref.str, "/ContentPart") {
						parts := r.unions[strings.TrimPrefix(ref.str, "#/$defs/")]
						if parts == nil {
							return nil, r.errAt(ref, "ContentPart must be a union")
						}
						return &TypeRef{Kind: KindContent, Elem: &TypeRef{Kind: KindUnion, Union: parts}}, nil
					}
				}
			}
		}
		return nil, r.errAt(o, "unsupported inline oneOf")
	}
	typ := ""
	if t := p.get("type"); t != nil {
		typ = t.str
	}
	switch typ {
	case "string":
		return &TypeRef{Kind: KindString}, nil
	case "boolean":
		return &TypeRef{Kind: KindBool}, nil
	case "integer":
		t := &TypeRef{Kind: KindInt}
		for _, k := range []string{"minimum", "maximum"} {
			if x := p.get(k); x != nil {
				v, err := strconv.ParseInt(x.str, 10, 64)
				if err != nil {
					return nil, r.errAt(x, "%s must be an integer", k)
				}
				if k == "minimum" {
					t.Min = &v
				} else {
					t.Max = &v
				}
			}
		}
		if t.Min == nil || t.Max == nil {
			return nil, r.errAt(p, "integers need minimum and maximum (the protocol keeps them within the safe range)")
		}
		return t, nil
	case "array":
		elem, err := r.typeOf(p.get("items"), p)
		if err != nil {
			return nil, err
		}
		t := &TypeRef{Kind: KindArray, Elem: elem}
		if x := p.get("minItems"); x != nil {
			n, err := strconv.Atoi(x.str)
			if err != nil || n < 0 {
				return nil, r.errAt(x, "minItems must be a non-negative integer")
			}
			t.MinItems = n
		}
		return t, nil
	case "object":
		if isOpenMap(p) {
			return &TypeRef{Kind: KindRawObject}, nil
		}
		return nil, r.errAt(p, "inline objects are not supported; define them under $defs")
	case "":
		if notNull {
			return &TypeRef{Kind: KindRawNotNull}, nil
		}
		return &TypeRef{Kind: KindRaw}, nil
	}
	return nil, r.errAt(p, "unsupported type %q", typ)
}

func (r *resolver) eventInfo(d *node, s *StructDef) error {
	ev := s.Event
	if s.Disc == nil || s.Disc.JSON != "type" {
		return r.errAt(d, "an event needs a constant type property")
	}
	ev.Wire = s.Disc.Const
	life := d.get("x-agui-lifecycle")
	if life.kind != '{' {
		return r.errAt(life, "x-agui-lifecycle must be an object")
	}
	for i, k := range life.keys {
		v := life.vals[i]
		switch k {
		case "action":
			if !slices.Contains(Actions(), Action(v.str)) {
				return r.errAt(v, "unknown lifecycle action %q (one of %v)", v.str, Actions())
			}
			ev.Action = Action(v.str)
		case "entity":
			if !slices.ContainsFunc(r.model.Entities, func(e Entity) bool { return e.Kind == v.str }) {
				return r.errAt(v, "unknown entity kind %q (declare it in x-agui-entities)", v.str)
			}
			ev.Entity = v.str
		case "id":
			for _, f := range s.Fields {
				if f.JSON == v.str {
					ev.IDField = f
				}
			}
			if ev.IDField == nil || ev.IDField.Type.Kind != KindString {
				return r.errAt(v, "lifecycle id %q is not a string property of %s", v.str, s.Name)
			}
		default:
			return r.errAt(v, "unknown x-agui-lifecycle member %q", k)
		}
	}
	if ev.Action == "" {
		return r.errAt(life, "x-agui-lifecycle needs an action")
	}
	attr := d.get("x-agui-attribution")
	if attr == nil {
		return r.errAt(d, "an event needs x-agui-attribution (tag, identity or none)")
	}
	ev.Attribution = Attribution(attr.str)
	for _, f := range s.Fields {
		if f.JSON == "subagentRunId" {
			ev.TagField = f
		}
	}
	switch ev.Attribution {
	case AttributionTag:
		if ev.TagField == nil || ev.TagField.Required {
			return r.errAt(attr, "attribution %q needs an optional subagentRunId", ev.Attribution)
		}
	case AttributionIdentity:
		if ev.TagField == nil || !ev.TagField.Required {
			return r.errAt(attr, "attribution %q needs a required subagentRunId", ev.Attribution)
		}
	case AttributionNone:
		if ev.TagField != nil {
			return r.errAt(attr, "attribution none, but the event has subagentRunId")
		}
	default:
		return r.errAt(attr, "unknown attribution %q (tag, identity or none)", ev.Attribution)
	}
	pr := d.get("x-agui-proto")
	if pr == nil {
		return r.errAt(d, "an event needs x-agui-proto with its enum value and oneof field")
	}
	for i, k := range pr.keys {
		n, err := strconv.Atoi(pr.vals[i].str)
		if err != nil {
			return r.errAt(pr.vals[i], "x-agui-proto.%s must be an integer", k)
		}
		switch k {
		case "enum":
			ev.ProtoEnum = n
		case "oneof":
			ev.ProtoOneof = n
		case "subagentRunId":
			if ev.TagField == nil {
				return r.errAt(pr.vals[i], "x-agui-proto.subagentRunId on an event without subagentRunId")
			}
			ev.TagField.ProtoField = n
		default:
			return r.errAt(pr.vals[i], "unknown x-agui-proto member %q", k)
		}
	}
	return nil
}

// finishEvents orders events by the EventType enum and checks that the enum,
// the Event union and the event definitions agree.
func (r *resolver) finishEvents() error {
	et, eu := r.model.EventType, r.model.EventUnion
	if et == nil || eu == nil {
		return r.errAt(r.defs, "the schema needs an EventType enum and an Event union")
	}
	byWire := map[string]*StructDef{}
	for _, s := range eu.Variants {
		if s.Event == nil {
			return r.errAt(r.def(s.Name), "Event member %s has no x-agui-lifecycle", s.Name)
		}
		byWire[s.Event.Wire] = s
	}
	for _, v := range et.Values {
		s, ok := byWire[v.Wire]
		if !ok {
			return r.errAt(r.def("EventType"), "EventType %q has no event definition in the Event union", v.Wire)
		}
		s.Event.ConstName = v.GoName
		r.model.Events = append(r.model.Events, s)
		delete(byWire, v.Wire)
	}
	for w, s := range byWire {
		return r.errAt(r.def(s.Name), "event type %q is missing from the EventType enum", w)
	}
	return nil
}

func (r *resolver) readRootAnnotations() error {
	strs := func(n *node, keys ...string) ([]string, error) {
		out := make([]string, len(keys))
		for i, k := range keys {
			v := n.get(k)
			if v == nil || v.kind != '"' {
				if k == "plural" {
					continue
				}
				return nil, r.errAt(n, "missing string member %q", k)
			}
			out[i] = v.str
		}
		return out, nil
	}
	if ents := r.root.get("x-agui-entities"); ents != nil {
		for _, e := range ents.vals {
			v, err := strs(e, "kind", "noun", "plural")
			if err != nil {
				return err
			}
			r.model.Entities = append(r.model.Entities, Entity{Kind: v[0], GoName: GoName(v[0]), Noun: v[1], Plural: v[2]})
		}
	}
	if rules := r.root.get("x-agui-rules"); rules != nil {
		for _, e := range rules.vals {
			v, err := strs(e, "id", "name", "description", "occursWhen")
			if err != nil {
				return err
			}
			r.model.Rules = append(r.model.Rules, Rule{ID: v[0], GoName: GoName(v[1]), Description: v[2], OccursWhen: v[3]})
		}
	}
	if codes := r.root.get("x-agui-error-codes"); codes != nil {
		for _, e := range codes.vals {
			v, err := strs(e, "code", "name", "description")
			if err != nil {
				return err
			}
			r.model.ErrorCodes = append(r.model.ErrorCodes, ErrorCode{Code: v[0], GoName: GoName(v[1]), Description: v[2]})
		}
	}
	if codes := r.root.get("x-agui-http-error-codes"); codes != nil {
		for _, e := range codes.vals {
			v, err := strs(e, "code", "name", "description")
			if err != nil {
				return err
			}
			// A code has one status: the server takes the status from
			// the code, so the two never disagree.
			at, status := e, 0
			if n := e.get("status"); n != nil {
				at = n
				if n.kind == 'n' {
					status, _ = strconv.Atoi(n.str)
				}
			}
			if status < 400 || status > 599 {
				return r.errAt(at, "member \"status\" must be an HTTP error status, an integer from 400 to 599")
			}
			r.model.HTTPCodes = append(r.model.HTTPCodes, HTTPCode{Code: v[0], GoName: GoName(v[1]), Status: status, Description: v[2]})
		}
	}
	return nil
}
