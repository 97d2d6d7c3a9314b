package agui

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agui-go/sdk/internal/schemamodel"
)

// stdMarshal encodes v with encoding/json without HTML escaping, which the
// codec does not do (it writes what JSON.stringify writes).
func stdMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// htmlEscaped is what json.Marshal makes of the codec's output: the same
// document with <, >, & and U+2028/U+2029 escaped.
func htmlEscaped(b []byte) []byte {
	var out bytes.Buffer
	json.HTMLEscape(&out, b)
	return out.Bytes()
}

// TestEncodingJSON walks every generated struct and union variant (a maximal
// sample of each schema definition, with characters encoding/json escapes
// mixed in) and checks that encoding/json, given the value by pointer, by
// value, or non-addressable inside a map, writes what the codec writes, and
// that json.Unmarshal reads it back to the same document.
func TestEncodingJSON(t *testing.T) {
	m, err := schemamodel.Load("../schema/events.json")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]bool{}
	for _, def := range schemamodel.Definitions(m) {
		t.Run(def, func(t *testing.T) {
			sample, err := schemamodel.Sample(m, def)
			if err != nil {
				t.Fatal(err)
			}
			sample = bytes.ReplaceAll(sample, []byte(`"x"`), []byte(`"<a&b>\u2028"`))
			sample = bytes.ReplaceAll(sample, []byte("-é"), []byte("-é<&>\u2028"))
			if !bytes.Contains(sample, []byte("<&>")) && !bytes.Contains(sample, []byte("<a&b>")) {
				t.Logf("no escapable characters in %s", sample)
			}
			v, err := decodeDefinition(def, newDecoder(sample, false))
			if err != nil {
				t.Fatalf("decode: %v\n%s", err, sample)
			}
			want, err := v.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			rv := reflect.ValueOf(v) // always a pointer to a generated struct
			types[rv.Elem().Type().Name()] = true
			byValue := rv.Elem().Interface()
			inMap := reflect.MakeMap(reflect.MapOf(reflect.TypeFor[string](), rv.Elem().Type()))
			inMap.SetMapIndex(reflect.ValueOf("k"), rv.Elem())
			for _, c := range []struct {
				name string
				v    any
				want []byte
			}{
				{"pointer", v, want},
				{"value", byValue, want},
				{"map value", inMap.Interface(), append(append([]byte(`{"k":`), want...), '}')},
			} {
				got, err := stdMarshal(c.v)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if !bytes.Equal(got, c.want) {
					t.Errorf("%s: encoding/json wrote\n%s\nthe codec\n%s", c.name, got, c.want)
				}
				got, err = json.Marshal(c.v)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if !bytes.Equal(got, htmlEscaped(c.want)) {
					t.Errorf("%s: json.Marshal wrote\n%s\nwant\n%s", c.name, got, htmlEscaped(c.want))
				}
			}
			back := reflect.New(rv.Elem().Type())
			if err := json.Unmarshal(want, back.Interface()); err != nil {
				t.Fatalf("json.Unmarshal: %v", err)
			}
			if !reflect.DeepEqual(back.Interface(), v) {
				t.Errorf("json.Unmarshal gave %#v, want %#v", back.Interface(), v)
			}
			// Strictness carries over: an unknown member is refused.
			bad := append([]byte(`{"unknownMember":1,`), want[1:]...)
			if err := json.Unmarshal(bad, back.Interface()); err == nil && !isOpen(m, def) {
				t.Errorf("json.Unmarshal accepted an unknown member: %s", bad)
			}
		})
	}
	for _, s := range m.Structs {
		if !types[s.GoName] {
			t.Errorf("struct %s was not walked", s.GoName)
		}
	}
}

func isOpen(m *schemamodel.Model, def string) bool {
	for _, s := range m.Structs {
		if s.Name == def {
			return s.Open
		}
	}
	for _, u := range m.Unions {
		if u.Name == def {
			return u.Variants[len(u.Variants)-1].Open
		}
	}
	return false
}

// TestEncodingJSONEnums checks every generated enum through encoding/json:
// defined values as JSON strings both ways, undefined ones refused both ways.
func TestEncodingJSONEnums(t *testing.T) {
	m, err := schemamodel.Load("../schema/events.json")
	if err != nil {
		t.Fatal(err)
	}
	// One member of each enum type, so reflection reaches every type.
	probes := map[string]reflect.Type{}
	for _, v := range []any{EventTypeRaw, TextMessageRoleUser, RoleUser, ReasoningEncryptedValueSubtypeMessage, ResumeStatusResolved} {
		probes[reflect.TypeOf(v).Name()] = reflect.TypeOf(v)
	}
	for _, en := range m.Enums {
		typ, ok := probes[en.GoName]
		if !ok {
			t.Errorf("enum %s has no probe in this test", en.GoName)
			continue
		}
		for _, val := range en.Values {
			v := reflect.New(typ).Elem()
			v.SetString(val.Wire)
			got, err := json.Marshal(v.Interface())
			if err != nil || string(got) != `"`+val.Wire+`"` {
				t.Errorf("%s %q: json.Marshal = %s, %v", en.GoName, val.Wire, got, err)
			}
			back := reflect.New(typ)
			if err := json.Unmarshal(got, back.Interface()); err != nil || back.Elem().String() != val.Wire {
				t.Errorf("%s %q: json.Unmarshal = %q, %v", en.GoName, val.Wire, back.Elem().String(), err)
			}
		}
		bad := reflect.New(typ).Elem()
		bad.SetString("no-such-value")
		if _, err := json.Marshal(bad.Interface()); err == nil {
			t.Errorf("%s: json.Marshal accepted an undefined value", en.GoName)
		}
		if err := json.Unmarshal([]byte(`"no-such-value"`), reflect.New(typ).Interface()); err == nil {
			t.Errorf("%s: json.Unmarshal accepted an undefined value", en.GoName)
		}
	}
}

// TestEncodingJSONPatchList covers the named list type, whose nil value is
// the empty patch for the codec too.
func TestEncodingJSONPatchList(t *testing.T) {
	p := JSONPatch{&AddOperation{Path: "/a", Value: json.RawMessage(`1`)}, &RemoveOperation{Path: "/b"}}
	for _, c := range []struct {
		v    any
		want string
	}{
		{p, `[{"op":"add","path":"/a","value":1},{"op":"remove","path":"/b"}]`},
		{&p, `[{"op":"add","path":"/a","value":1},{"op":"remove","path":"/b"}]`},
		{JSONPatch(nil), `[]`},
	} {
		got, err := json.Marshal(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("json.Marshal(%#v) = %s, %v; want %s", c.v, got, err, c.want)
		}
	}
	var back JSONPatch
	if err := json.Unmarshal([]byte(`[{"op":"add","path":"/a","value":1},{"op":"remove","path":"/b"}]`), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("json.Unmarshal = %#v, want %#v", back, p)
	}
	if err := json.Unmarshal([]byte(`[{"op":"nope","path":"/a"}]`), &back); err == nil {
		t.Error("json.Unmarshal accepted an unknown operation")
	}
}
