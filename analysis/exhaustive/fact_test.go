package exhaustive

import (
	"bytes"
	"encoding/gob"
	"go/constant"
	"go/token"
	"reflect"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// TestFactsGob checks that the facts survive gob encoding the way the
// analysis drivers send them between packages: as analysis.Fact interface
// values of registered types.
func TestFactsGob(t *testing.T) {
	t.Parallel()
	for _, f := range Analyzer.FactTypes {
		gob.Register(f)
	}
	tests := []struct {
		name string
		fact analysis.Fact
	}{
		{"sealed", &sealedFact{Variants: []variant{
			{Name: "TextMessageStart", Pointer: true},
			{Name: "Custom"},
			{Name: "RunError", Pointer: true},
		}}},
		{"sealed without variants", &sealedFact{}},
		{"enum", &enumFact{Members: []member{
			newMember("EventTypeTextMessageStart", constant.MakeString("TEXT_MESSAGE_START")),
			newMember("RoleTool", constant.MakeInt64(2)),
			newMember("Half", constant.MakeFloat64(-0.5)),
			newMember("On", constant.MakeBool(true)),
		}}},
		{"enum without members", &enumFact{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			in := []analysis.Fact{tt.fact}
			if err := gob.NewEncoder(&buf).Encode(in); err != nil {
				t.Fatalf("encode: %v", err)
			}
			var out []analysis.Fact
			if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(out, in) {
				t.Errorf("round trip: got %v, want %v", out, in)
			}
		})
	}
}

// TestMemberValue checks that a member's value read back from its fact is
// the constant it was made from.
func TestMemberValue(t *testing.T) {
	t.Parallel()
	huge := constant.Shift(constant.MakeInt64(1), token.SHL, 200)
	tests := []struct {
		name string
		val  constant.Value
	}{
		{"string", constant.MakeString("TEXT_MESSAGE_START")},
		{"string with escapes", constant.MakeString("a\"b\\c\n\u00e9")},
		{"empty string", constant.MakeString("")},
		{"int", constant.MakeInt64(42)},
		{"negative int", constant.MakeInt64(-7)},
		{"big int", huge},
		{"fraction", constant.MakeFloat64(2.25)},
		{"negative fraction", constant.MakeFloat64(-1.5)},
		{"huge float", constant.BinaryOp(constant.MakeFloat64(1.5), token.MUL, constant.Shift(huge, token.SHL, 1000))},
		{"tiny float", constant.BinaryOp(constant.MakeFloat64(-1), token.QUO, constant.Shift(huge, token.SHL, 1000))},
		{"true", constant.MakeBool(true)},
		{"false", constant.MakeBool(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMember("M", tt.val)
			got := m.value()
			if got.Kind() != tt.val.Kind() {
				t.Fatalf("kind of %q = %v, want %v", m.Value, got.Kind(), tt.val.Kind())
			}
			if !constant.Compare(got, token.EQL, tt.val) {
				t.Errorf("value of %q = %v, want %v", m.Value, got, tt.val)
			}
		})
	}
	if v := (member{Kind: constant.Int, Value: "not a number"}).value(); v.Kind() != constant.Unknown {
		t.Errorf("unreadable value = %v, want unknown", v)
	}
}
