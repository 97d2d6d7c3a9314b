package exhaustive

import (
	"go/constant"
	"go/token"
	"strings"
)

// sealedFact is exported on the type name of a //agui:sealed interface. It
// lists the interface's variants in declaration order.
type sealedFact struct {
	Variants []variant
}

// variant is one implementation of a sealed interface, identified by its
// name in the interface's package.
type variant struct {
	Name    string
	Pointer bool // the variant is *Name: only the pointer type implements the interface
}

func (*sealedFact) AFact() {}

func (f *sealedFact) String() string {
	names := make([]string, len(f.Variants))
	for i, v := range f.Variants {
		names[i] = v.String()
	}
	return "sealed(" + strings.Join(names, ", ") + ")"
}

func (v variant) String() string {
	if v.Pointer {
		return "*" + v.Name
	}
	return v.Name
}

// enumFact is exported on the type name of a //agui:enum type. It lists the
// type's member constants in declaration order.
type enumFact struct {
	Members []member
}

// member is one constant of an enum type. Its value is kept as the pair
// (Kind, ExactString) so that it survives gob encoding without loss.
type member struct {
	Name  string
	Kind  constant.Kind
	Value string
}

func (*enumFact) AFact() {}

func (f *enumFact) String() string {
	names := make([]string, len(f.Members))
	for i, m := range f.Members {
		names[i] = m.Name
	}
	return "enum(" + strings.Join(names, ", ") + ")"
}

func newMember(name string, val constant.Value) member {
	return member{Name: name, Kind: val.Kind(), Value: val.ExactString()}
}

// value rebuilds the member's constant value; it is Unknown if the recorded
// text cannot be read back, in which case the member can still be matched by
// name.
func (m member) value() constant.Value {
	switch m.Kind {
	case constant.Bool:
		return constant.MakeBool(m.Value == "true")
	case constant.String:
		// ExactString of a string is its quoted Go literal.
		return constant.MakeFromLiteral(m.Value, token.STRING, 0)
	case constant.Int:
		return parseNumber(m.Value)
	case constant.Float:
		// An integral Float prints like an Int; keep its kind.
		return constant.ToFloat(parseNumber(m.Value))
	}
	return constant.MakeUnknown()
}

// parseNumber reads the ExactString form of an Int or Float constant: an
// optionally negative decimal integer, fraction "n/d", or hexadecimal float
// such as "0x.8p+1".
func parseNumber(s string) constant.Value {
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return constant.UnaryOp(token.SUB, parseNumber(rest), 0)
	}
	if num, den, ok := strings.Cut(s, "/"); ok {
		n := constant.MakeFromLiteral(num, token.INT, 0)
		d := constant.MakeFromLiteral(den, token.INT, 0)
		if n.Kind() != constant.Int || d.Kind() != constant.Int || constant.Sign(d) == 0 {
			return constant.MakeUnknown()
		}
		return constant.BinaryOp(n, token.QUO, d)
	}
	if v := constant.MakeFromLiteral(s, token.INT, 0); v.Kind() == constant.Int {
		return v
	}
	return constant.MakeFromLiteral(s, token.FLOAT, 0)
}
