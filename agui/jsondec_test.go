package agui

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const maxSafe = 1<<53 - 1 // JavaScript's Number.MAX_SAFE_INTEGER

// decCase runs fn on a decoder over in and checks its result, error text,
// the cursor afterwards and the warnings.
type decCase struct {
	name    string
	in      string
	lenient bool
	fn      func(d *decoder) (any, error)
	want    any             // compared with reflect.DeepEqual when wantErr is ""
	wantErr string          // exact Error() text
	wantPos int             // cursor after fn; -1 = len(in)
	warns   []DecodeWarning // expected warnings
}

func runDecCases(t *testing.T, tests []decCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDecoder([]byte(tt.in), tt.lenient)
			got, err := tt.fn(d)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("got %#v, want error %q", got, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Fatalf("error = %q\nwant    %q", err, tt.wantErr)
				}
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Errorf("error is %T, want *DecodeError", err)
				}
			} else {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("got %#v, want %#v", got, tt.want)
				}
				wantPos := tt.wantPos
				if wantPos < 0 {
					wantPos = len(tt.in)
				}
				if d.pos != wantPos {
					t.Errorf("cursor at %d, want %d", d.pos, wantPos)
				}
			}
			if !reflect.DeepEqual(d.Warnings(), tt.warns) {
				t.Errorf("warnings = %#v, want %#v", d.Warnings(), tt.warns)
			}
		})
	}
}

// root formats the error text expected for a problem at the document root.
func root(offset int, reason string) string {
	return (&DecodeError{Offset: offset, Reason: reason}).Error()
}

func at(path string, offset int, reason string) string {
	return (&DecodeError{Path: path, Offset: offset, Reason: reason}).Error()
}

func TestDecoderStr(t *testing.T) {
	str := func(d *decoder) (any, error) { return d.str() }
	runDecCases(t, []decCase{
		{name: "plain", in: `"hi"`, fn: str, want: "hi", wantPos: -1},
		{name: "leading whitespace", in: " \n\t\"hi\" ", fn: str, want: "hi", wantPos: 7},
		{name: "empty", in: `""`, fn: str, want: "", wantPos: -1},
		{name: "short escapes", in: `"a\"b\\c\/d\b\f\n\r\t"`, fn: str, want: "a\"b\\c/d\b\f\n\r\t", wantPos: -1},
		{name: "unicode escapes", in: `"\u00e9\u00E9 \ud83d\ude00"`, fn: str, want: "éé 😀", wantPos: -1},
		{name: "raw non-ASCII", in: `"日本 😀"`, fn: str, want: "日本 😀", wantPos: -1},
		{name: "lone high surrogate", in: `"\ud800"`, fn: str, want: "\uFFFD", wantPos: -1},
		{name: "high surrogate then other escape", in: `"\ud800\u0041"`, fn: str, want: "\uFFFDA", wantPos: -1},
		{name: "lone low surrogate", in: `"\udc00x"`, fn: str, want: "\uFFFDx", wantPos: -1},
		{name: "invalid UTF-8 replaced", in: "\"a\xffb\"", fn: str, want: "a\uFFFDb", wantPos: -1},
		{name: "invalid UTF-8 with escape replaced", in: "\"\\n\xc3\"", fn: str, want: "\n\uFFFD", wantPos: -1},
		{name: "number", in: `123`, fn: str, wantErr: root(0, "expected string, got number")},
		{name: "object after whitespace", in: `  {}`, fn: str, wantErr: root(2, "expected string, got object")},
		{name: "array", in: `[]`, fn: str, wantErr: root(0, "expected string, got array")},
		{name: "boolean", in: `false`, fn: str, wantErr: root(0, "expected string, got boolean")},
		{name: "null", in: `null`, fn: str, wantErr: root(0, "expected string, got null")},
		{name: "end of input", in: ` `, fn: str, wantErr: root(1, "expected string, got end of input")},
		{name: "broken literal is a syntax error", in: `tru`, fn: str, wantErr: root(3, "invalid JSON: unexpected end of input in literal true")},
		{name: "garbage", in: `x`, fn: str, wantErr: root(0, "invalid JSON: unexpected 'x'")},
		{name: "unterminated", in: `"abc`, fn: str, wantErr: root(4, "invalid JSON: unexpected end of input in string")},
		{name: "control character", in: "\"a\tb\"", fn: str, wantErr: root(2, "invalid JSON: unexpected control character U+0009 in string")},
		{name: "bad escape", in: `"\a"`, fn: str, wantErr: root(2, `invalid JSON: unexpected 'a' after '\' in string`)},
	})
}

func TestDecoderInteger(t *testing.T) {
	safe := func(d *decoder) (any, error) { return d.integer(-maxSafe, maxSafe) }
	full := func(d *decoder) (any, error) { return d.integer(math.MinInt64, math.MaxInt64) }
	small := func(d *decoder) (any, error) { return d.integer(0, 10) }
	const safeRange = "[-9007199254740991, 9007199254740991]"
	const fullRange = "[-9223372036854775808, 9223372036854775807]"
	long := "1" + strings.Repeat("0", 80) + ".5"
	runDecCases(t, []decCase{
		{name: "one", in: `1`, fn: safe, want: int64(1), wantPos: -1},
		{name: "negative", in: ` -3 `, fn: safe, want: int64(-3), wantPos: 3},
		{name: "zero", in: `0`, fn: safe, want: int64(0), wantPos: -1},
		{name: "negative zero", in: `-0`, fn: safe, want: int64(0), wantPos: -1},
		{name: "trailing zero fraction", in: `1.0`, fn: safe, want: int64(1), wantPos: -1},
		{name: "exponent", in: `1e3`, fn: safe, want: int64(1000), wantPos: -1},
		{name: "fraction and exponent", in: `1.5E+1`, fn: safe, want: int64(15), wantPos: -1},
		{name: "negative exponent", in: `100e-2`, fn: safe, want: int64(1), wantPos: -1},
		{name: "zero with huge exponent", in: `0.000e-99999999999999999999`, fn: safe, want: int64(0), wantPos: -1},
		{name: "leading zero digits in fraction", in: `0.0012e4`, fn: safe, want: int64(12), wantPos: -1},
		{name: "max safe", in: `9007199254740991`, fn: safe, want: int64(maxSafe), wantPos: -1},
		{name: "min safe", in: `-9007199254740991`, fn: safe, want: int64(-maxSafe), wantPos: -1},
		{name: "max int64", in: `9223372036854775807`, fn: full, want: int64(math.MaxInt64), wantPos: -1},
		{name: "min int64", in: `-9223372036854775808`, fn: full, want: int64(math.MinInt64), wantPos: -1},
		{name: "max int64 spelled with exponent", in: `92233720368547758.07e2`, fn: full, want: int64(math.MaxInt64), wantPos: -1},
		{name: "1e18", in: `1e18`, fn: full, want: int64(1e18), wantPos: -1},

		{name: "fraction", in: `1.5`, fn: safe, wantErr: root(0, "expected integer, got 1.5")},
		{name: "fraction via exponent", in: `150e-2`, fn: safe, wantErr: root(0, "expected integer, got 150e-2")},
		{name: "tiny", in: `1e-400`, fn: safe, wantErr: root(0, "expected integer, got 1e-400")},
		{name: "long number clipped", in: long, fn: safe, wantErr: root(0, "expected integer, got "+long[:64]+"...")},
		{name: "above max safe", in: `9007199254740992`, fn: safe, wantErr: root(0, "integer 9007199254740992 is outside "+safeRange)},
		{name: "below min safe", in: `-9007199254740992`, fn: safe, wantErr: root(0, "integer -9007199254740992 is outside "+safeRange)},
		{name: "huge exponent", in: `1e400`, fn: safe, wantErr: root(0, "integer 1e400 is outside "+safeRange)},
		{name: "absurd exponent", in: `1e99999999999999999999999`, fn: full, wantErr: root(0, "integer 1e99999999999999999999999 is outside "+fullRange)},
		{name: "above max int64", in: `9223372036854775808`, fn: full, wantErr: root(0, "integer 9223372036854775808 is outside "+fullRange)},
		{name: "below min int64", in: `-9223372036854775809`, fn: full, wantErr: root(0, "integer -9223372036854775809 is outside "+fullRange)},
		{name: "1e19", in: `1e19`, fn: full, wantErr: root(0, "integer 1e19 is outside "+fullRange)},
		{name: "above small max", in: `11`, fn: small, wantErr: root(0, "integer 11 is outside [0, 10]")},
		{name: "below small min", in: ` -1`, fn: small, wantErr: root(1, "integer -1 is outside [0, 10]")},
		{name: "string", in: `"1"`, fn: safe, wantErr: root(0, "expected integer, got string")},
		{name: "null", in: `null`, fn: safe, wantErr: root(0, "expected integer, got null")},
		{name: "end of input", in: ``, fn: safe, wantErr: root(0, "expected integer, got end of input")},
		{name: "malformed", in: `1.`, fn: safe, wantErr: root(2, "invalid JSON: unexpected end of input in number")},
		{name: "leading zero", in: `007`, fn: safe, wantErr: root(1, "invalid JSON: unexpected '0' in number (leading zeros are not allowed)")},
	})
}

func TestDecoderBoolean(t *testing.T) {
	boolean := func(d *decoder) (any, error) { return d.boolean() }
	runDecCases(t, []decCase{
		{name: "true", in: `true`, fn: boolean, want: true, wantPos: -1},
		{name: "false", in: ` false `, fn: boolean, want: false, wantPos: 6},
		{name: "null", in: `null`, fn: boolean, wantErr: root(0, "expected boolean, got null")},
		{name: "string", in: `"true"`, fn: boolean, wantErr: root(0, "expected boolean, got string")},
		{name: "number", in: `1`, fn: boolean, wantErr: root(0, "expected boolean, got number")},
		{name: "wrong case", in: `tRue`, fn: boolean, wantErr: root(1, "invalid JSON: unexpected 'R' in literal true")},
		{name: "truncated", in: `fals`, fn: boolean, wantErr: root(4, "invalid JSON: unexpected end of input in literal false")},
	})
}

func TestDecoderConstString(t *testing.T) {
	cs := func(d *decoder) (any, error) { return nil, d.constString("TEXT_MESSAGE_START") }
	runDecCases(t, []decCase{
		{name: "match", in: `"TEXT_MESSAGE_START"`, fn: cs, wantPos: -1},
		{name: "match with escapes", in: ` "TEXT_\u004dESSAGE_START"`, fn: cs, wantPos: -1},
		{name: "other", in: `"RUN_STARTED"`, fn: cs, wantErr: root(0, `expected "TEXT_MESSAGE_START", got "RUN_STARTED"`)},
		{name: "other with escapes shown decoded", in: `"a\nb"`, fn: cs, wantErr: root(0, `expected "TEXT_MESSAGE_START", got "a\nb"`)},
		{name: "long other clipped", in: `"` + strings.Repeat("x", 100) + `"`, fn: cs, wantErr: root(0, `expected "TEXT_MESSAGE_START", got "`+strings.Repeat("x", 64)+`..."`)},
		{name: "number", in: `1`, fn: cs, wantErr: root(0, `expected "TEXT_MESSAGE_START", got number`)},
		{name: "unterminated", in: `"TEXT`, fn: cs, wantErr: root(5, `invalid JSON: unexpected end of input in string`)},
	})
}

func TestDecoderRaw(t *testing.T) {
	raw := func(d *decoder) (any, error) { b, err := d.raw(); return string(b), err }
	rawObj := func(d *decoder) (any, error) { b, err := d.rawObject(); return string(b), err }
	runDecCases(t, []decCase{
		{name: "object kept byte for byte", in: ` { "a" : [1, 2.50] } ,`, fn: raw, want: `{ "a" : [1, 2.50] }`, wantPos: 20},
		{name: "null", in: `null`, fn: raw, want: `null`, wantPos: -1},
		{name: "string escapes kept", in: `"\u00e9"`, fn: raw, want: `"\u00e9"`, wantPos: -1},
		{name: "number", in: `-1.5e3]`, fn: raw, want: `-1.5e3`, wantPos: 6},
		{name: "invalid", in: `[1,`, fn: raw, wantErr: root(3, "invalid JSON: unexpected end of input")},
		{name: "end of input", in: ``, fn: raw, wantErr: root(0, "expected value, got end of input")},
		{name: "object", in: `{"a":{}}`, fn: rawObj, want: `{"a":{}}`, wantPos: -1},
		{name: "object rejects array", in: `[]`, fn: rawObj, wantErr: root(0, "expected object, got array")},
		{name: "object rejects null", in: `null`, fn: rawObj, wantErr: root(0, "expected object, got null")},
	})

	t.Run("returns a copy", func(t *testing.T) {
		in := []byte(`{"a":1}`)
		d := newDecoder(in, false)
		got, err := d.raw()
		if err != nil {
			t.Fatal(err)
		}
		in[2] = 'X'
		if string(got) != `{"a":1}` {
			t.Errorf("raw aliases the input: %q", got)
		}
	})
}

func TestDecoderSkipAndPeek(t *testing.T) {
	skip := func(d *decoder) (any, error) { return nil, d.skip() }
	runDecCases(t, []decCase{
		{name: "object", in: ` {"a":[1,{"b":null}],"c":"}"} ,1`, fn: skip, wantPos: 29},
		{name: "string", in: `"x\"y"`, fn: skip, wantPos: -1},
		{name: "number", in: `12,`, fn: skip, wantPos: 2},
		{name: "invalid", in: `{"a":tru}`, fn: skip, wantErr: root(8, "invalid JSON: unexpected '}' in literal true")},
		{name: "end of input", in: `  `, fn: skip, wantErr: root(2, "expected value, got end of input")},
		{name: "stray closer", in: `]`, fn: skip, wantErr: root(0, "invalid JSON: unexpected ']'")},
	})

	peeks := []struct {
		name string
		in   string
		want byte
	}{
		{name: "object", in: ` {`, want: '{'},
		{name: "array", in: `[`, want: '['},
		{name: "string", in: `"`, want: '"'},
		{name: "null", in: `null`, want: 'n'},
		{name: "true", in: `true`, want: 't'},
		{name: "false", in: `false`, want: 'f'},
		{name: "number", in: `7`, want: '0'},
		{name: "negative number", in: "\n-7", want: '0'},
		{name: "end of input", in: " \t", want: 0},
		{name: "garbage passed through", in: `x`, want: 'x'},
	}
	for _, tt := range peeks {
		t.Run("peek "+tt.name, func(t *testing.T) {
			d := newDecoder([]byte(tt.in), false)
			if got := d.peekKind(); got != tt.want {
				t.Errorf("peekKind() = %q, want %q", got, tt.want)
			}
			if got := d.peekKind(); got != tt.want {
				t.Errorf("second peekKind() = %q, want %q (peek must not consume)", got, tt.want)
			}
		})
	}
}

func TestDecoderIsNull(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    bool
		wantPos int
	}{
		{name: "null", in: ` null,`, want: true, wantPos: 5},
		{name: "string null", in: `"null"`, want: false, wantPos: 0},
		{name: "truncated", in: `nul`, want: false, wantPos: 0},
		{name: "other", in: `0`, want: false, wantPos: 0},
		{name: "end of input", in: ``, want: false, wantPos: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDecoder([]byte(tt.in), false)
			if got := d.isNull(); got != tt.want || d.pos != tt.wantPos {
				t.Errorf("isNull() = %v with cursor %d, want %v at %d", got, d.pos, tt.want, tt.wantPos)
			}
		})
	}
}

func TestDecoderStructure(t *testing.T) {
	// walkObject reads an object of scalars (skipped) and returns its keys.
	walkObject := func(d *decoder) (any, error) {
		var keys []string
		if err := d.beginObject(); err != nil {
			return nil, err
		}
		for i := 0; ; i++ {
			k, more, err := d.key(i)
			if err != nil {
				return keys, err
			}
			if !more {
				return keys, d.end()
			}
			keys = append(keys, string(k))
			d.push(k)
			err = d.skip()
			d.pop()
			if err != nil {
				return keys, err
			}
		}
	}
	walkArray := func(d *decoder) (any, error) {
		var n []int64
		if err := d.beginArray(); err != nil {
			return nil, err
		}
		for i := 0; ; i++ {
			more, err := d.elem(i)
			if err != nil {
				return n, err
			}
			if !more {
				return n, d.end()
			}
			d.pushIndex(i)
			v, err := d.integer(-maxSafe, maxSafe)
			d.pop()
			if err != nil {
				return n, err
			}
			n = append(n, v)
		}
	}
	runDecCases(t, []decCase{
		{name: "empty object", in: ` { } `, fn: walkObject, want: []string(nil), wantPos: -1},
		{name: "object", in: `{"a":1, "b" : [2] ,"c":{}}`, fn: walkObject, want: []string{"a", "b", "c"}, wantPos: -1},
		{name: "escaped key decoded", in: `{"a\u0062\/":1}`, fn: walkObject, want: []string{"ab/"}, wantPos: -1},
		{name: "invalid UTF-8 key replaced", in: "{\"a\xff\":1}", fn: walkObject, want: []string{"a\uFFFD"}, wantPos: -1},
		{name: "not an object", in: `[]`, fn: walkObject, wantErr: root(0, "expected object, got array")},
		{name: "object at end of input", in: ``, fn: walkObject, wantErr: root(0, "expected object, got end of input")},
		{name: "unclosed", in: `{`, fn: walkObject, wantErr: root(1, "invalid JSON: unexpected end of input, expected string key or '}'")},
		{name: "non-string key", in: `{1:2}`, fn: walkObject, wantErr: root(1, "invalid JSON: unexpected '1', expected string key or '}'")},
		{name: "missing colon", in: `{"a" 1}`, fn: walkObject, wantErr: root(5, "invalid JSON: unexpected '1', expected ':'")},
		{name: "trailing comma", in: `{"a":1,}`, fn: walkObject, wantErr: root(7, "invalid JSON: unexpected '}', expected string key")},
		{name: "missing comma", in: `{"a":1 "b":2}`, fn: walkObject, wantErr: root(7, `invalid JSON: unexpected '"', expected ',' or '}'`)},
		{name: "bad member value has member path", in: `{"a~/b":[1,}`, fn: walkObject, wantErr: at("/a~0~1b", 11, "invalid JSON: unexpected '}'")},
		{name: "trailing data", in: `{} x`, fn: walkObject, wantErr: root(3, "unexpected data after the value")},

		{name: "empty array", in: `[ ]`, fn: walkArray, want: []int64(nil), wantPos: -1},
		{name: "array", in: `[1, 2 ,3]`, fn: walkArray, want: []int64{1, 2, 3}, wantPos: -1},
		{name: "not an array", in: `{}`, fn: walkArray, wantErr: root(0, "expected array, got object")},
		{name: "element error has index path", in: `[1, 2, "x"]`, fn: walkArray, wantErr: at("/2", 7, "expected integer, got string")},
		{name: "array trailing comma", in: `[1,]`, fn: walkArray, wantErr: root(3, "invalid JSON: unexpected ']'")},
		{name: "array missing comma", in: `[1 2]`, fn: walkArray, wantErr: root(3, "invalid JSON: unexpected '2', expected ',' or ']'")},
		{name: "array unclosed", in: `[`, fn: walkArray, wantErr: root(1, "invalid JSON: unexpected end of input")},
		{name: "array unclosed after element", in: `[1`, fn: walkArray, wantErr: root(2, "invalid JSON: unexpected end of input, expected ',' or ']'")},
		{name: "array closed by brace", in: `[1}`, fn: walkArray, wantErr: root(2, "invalid JSON: unexpected '}', expected ',' or ']'")},
	})

	t.Run("key aliases the input", func(t *testing.T) {
		in := []byte(`{"abc":1}`)
		d := newDecoder(in, false)
		if err := d.beginObject(); err != nil {
			t.Fatal(err)
		}
		k, more, err := d.key(0)
		if err != nil || !more || string(k) != "abc" {
			t.Fatalf("key(0) = %q, %v, %v", k, more, err)
		}
		if &k[0] != &in[2] {
			t.Errorf("key without escapes was copied")
		}
	})
}

func TestDecoderFindString(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		path      []string // pushed before the lookup
		want      string
		wantFound bool
		wantErr   string
	}{
		{name: "found", in: ` {"a":{"type":"inner"},"type":"text","b":[1]}`, want: "text", wantFound: true},
		{name: "first member", in: `{"type":"x"}`, want: "x", wantFound: true},
		{name: "escaped name and value", in: `{"t\u0079pe":"te\u0078t"}`, want: "text", wantFound: true},
		{name: "last duplicate wins", in: `{"type":"a","type":"b"}`, want: "b", wantFound: true},
		{name: "last duplicate wins after nested mentions", in: `{"type":"a","x":{"type":"c"},"type":"b","y":[{"type":"d"}]}`, want: "b", wantFound: true},
		{name: "value cut off", in: `{"type":`, wantFound: true, wantErr: at("/type", 8, "expected string, got end of input")},
		{name: "earlier non-string duplicate ignored", in: `{"type":1,"type":"b"}`, want: "b", wantFound: true},
		{name: "later non-string duplicate", in: `{"type":"a","type":1}`, wantFound: true, wantErr: at("/type", 19, "expected string, got number")},
		{name: "nested only", in: `{"a":{"type":"x"},"b":[{"type":"y"}]}`},
		{name: "empty object", in: `{ }`},
		{name: "not an object", in: `["type"]`},
		{name: "end of input", in: ``},
		{name: "not a string", in: `{"type": 1}`, path: []string{"content", "1"}, wantFound: true, wantErr: at("/content/1/type", 9, "expected string, got number")},
		{name: "null", in: `{"type":null}`, wantFound: true, wantErr: at("/type", 8, "expected string, got null")},
		{name: "malformed value", in: `{"type":"abc`, wantFound: true, wantErr: at("/type", 12, "invalid JSON: unexpected end of input in string")},
		{name: "malformed before", in: `{"a":[1,],"type":"x"}`, wantErr: root(8, "invalid JSON: unexpected ']'")},
		{name: "missing colon", in: `{"a" 1}`, wantErr: root(5, "invalid JSON: unexpected '1', expected ':'")},
		{name: "missing comma", in: `{"a":1 "type":"x"}`, wantErr: root(7, `invalid JSON: unexpected '"', expected ',' or '}'`)},
		{name: "unclosed", in: `{"a":1`, wantErr: root(6, `invalid JSON: unexpected end of input, expected ',' or '}'`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDecoder([]byte(tt.in), false)
			for _, p := range tt.path {
				if n, err := strconv.Atoi(p); err == nil {
					d.pushIndex(n)
				} else {
					d.push([]byte(p))
				}
			}
			got, found, err := d.findString("type")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v\nwant    %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got != tt.want || found != tt.wantFound {
				t.Errorf("findString = %q, %v; want %q, %v", got, found, tt.want, tt.wantFound)
			}
			if d.pos != 0 {
				t.Errorf("findString consumed input: cursor at %d", d.pos)
			}
			if len(d.path) != len(tt.path) {
				t.Errorf("findString changed the path stack: %d elements", len(d.path))
			}
			if tt.wantErr == "" && tt.in != "" && tt.in[0] != '[' {
				// The object can still be decoded normally afterwards.
				if err := d.skip(); err != nil || d.end() != nil {
					t.Errorf("skip after findString: %v", err)
				}
			}
		})
	}
}

func TestDecoderPolicy(t *testing.T) {
	// member positions the cursor at the value of the only member of a
	// one-member object, with its key pushed, as generated code would.
	member := func(d *decoder) []byte {
		if err := d.beginObject(); err != nil {
			panic(err)
		}
		k, _, err := d.key(0)
		if err != nil {
			panic(err)
		}
		d.push(k)
		return k
	}
	// finish checks that decoding can continue after a lenient repair.
	finish := func(d *decoder, err error) error {
		if err != nil {
			return err
		}
		d.pop()
		if _, more, err := d.key(1); err != nil || more {
			return errors.New("object not closed after repair")
		}
		return d.end()
	}
	unknown := func(d *decoder) (any, error) { k := member(d); return nil, finish(d, d.unknown(k)) }
	nullTolerated := func(d *decoder) (any, error) {
		member(d)
		if !d.isNull() {
			return nil, errors.New("not null")
		}
		return nil, finish(d, d.nullOptional(true))
	}
	nullStrict := func(d *decoder) (any, error) {
		member(d)
		if !d.isNull() {
			return nil, errors.New("not null")
		}
		return nil, finish(d, d.nullOptional(false))
	}
	dropped := func(d *decoder) (any, error) {
		member(d)
		err := d.dropped(`content part type "video"`)
		if err == errDropped {
			return "dropped", finish(d, nil)
		}
		return nil, err
	}
	warn := func(d *decoder) (any, error) {
		member(d)
		d.warn("normalised something")
		return nil, finish(d, d.skip())
	}
	runDecCases(t, []decCase{
		{name: "unknown strict", in: `{"extra": {"deep":[1]}}`, fn: unknown, wantErr: at("/extra", 1, "unknown property")},
		{name: "unknown lenient", in: `{"extra": {"deep":[1]}}`, lenient: true, fn: unknown, wantPos: -1,
			warns: []DecodeWarning{{Path: "/extra", Message: "removed unrecognised member"}}},
		{name: "unknown lenient still validates", in: `{"extra": [1,}`, lenient: true, fn: unknown, wantErr: at("/extra", 13, "invalid JSON: unexpected '}'")},
		{name: "null strict", in: `{"name":null}`, fn: nullTolerated, wantErr: at("/name", 8, "null is not allowed; omit the property instead")},
		{name: "null lenient tolerated", in: `{"name":null}`, lenient: true, fn: nullTolerated, wantPos: -1,
			warns: []DecodeWarning{{Path: "/name", Message: "converted legacy null to absent"}}},
		{name: "null lenient not tolerated", in: `{"name":null}`, lenient: true, fn: nullStrict, wantErr: at("/name", 8, "null is not allowed; omit the property instead")},
		{name: "dropped strict", in: `{"part": {"type":"video"}}`, fn: dropped, wantErr: at("/part", 9, `unknown content part type "video"`)},
		{name: "dropped lenient", in: `{"part": {"type":"video"}}`, lenient: true, fn: dropped, want: "dropped", wantPos: -1,
			warns: []DecodeWarning{{Path: "/part", Message: `removed unrecognised content part type "video"`}}},
		{name: "dropped lenient still validates", in: `{"part": {"type":}}`, lenient: true, fn: dropped, wantErr: at("/part", 17, "invalid JSON: unexpected '}'")},
		{name: "warn strict is a no-op", in: `{"a":1}`, fn: warn, wantPos: -1},
		{name: "warn lenient", in: `{"a":1}`, lenient: true, fn: warn, wantPos: -1,
			warns: []DecodeWarning{{Path: "/a", Message: "normalised something"}}},
	})
}

func TestDecoderMissingAndFail(t *testing.T) {
	// After an object closes, missing points at its opening brace.
	missing := func(d *decoder) (any, error) {
		if err := d.beginObject(); err != nil {
			return nil, err
		}
		k, _, _ := d.key(0)
		d.push(k)
		if err := d.beginObject(); err != nil {
			return nil, err
		}
		for i := 0; ; i++ {
			k, more, err := d.key(i)
			if err != nil {
				return nil, err
			}
			if !more {
				break
			}
			d.push(k)
			err = d.skip()
			d.pop()
			if err != nil {
				return nil, err
			}
		}
		return nil, d.missing("id")
	}
	// fail after reading a value points at that value.
	enum := func(d *decoder) (any, error) {
		if err := d.beginObject(); err != nil {
			return nil, err
		}
		k, _, _ := d.key(0)
		d.push(k)
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return nil, d.fail("unknown enum value " + strconv.Quote(s))
	}
	runDecCases(t, []decCase{
		{name: "missing", in: `{"msg": {"a":1,"b":2}}`, fn: missing, wantErr: at("/msg", 8, `missing required property "id"`)},
		{name: "fail", in: `{"role": "narrator"}`, fn: enum, wantErr: at("/role", 9, `unknown enum value "narrator"`)},
	})
}

func TestDecoderDepthLimit(t *testing.T) {
	t.Run("nested beginArray", func(t *testing.T) {
		in := strings.Repeat("[", maxDepth+1)
		d := newDecoder([]byte(in), false)
		for i := 0; i < maxDepth; i++ {
			if err := d.beginArray(); err != nil {
				t.Fatalf("level %d: %v", i+1, err)
			}
		}
		err := d.beginArray()
		if want := root(maxDepth, "invalid JSON: exceeded maximum nesting depth of 10000"); err == nil || err.Error() != want {
			t.Fatalf("error = %v, want %q", err, want)
		}
	})
	t.Run("skip at the limit", func(t *testing.T) {
		d := newDecoder([]byte(strings.Repeat("[", maxDepth)+strings.Repeat("]", maxDepth)), false)
		if err := d.skip(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("skip beyond the limit", func(t *testing.T) {
		d := newDecoder([]byte(strings.Repeat("[", maxDepth+1)+strings.Repeat("]", maxDepth+1)), false)
		err := d.skip()
		if want := root(maxDepth, "invalid JSON: exceeded maximum nesting depth of 10000"); err == nil || err.Error() != want {
			t.Fatalf("error = %v, want %q", err, want)
		}
	})
	t.Run("limit counts open containers plus skipped ones", func(t *testing.T) {
		const outer = 4000
		build := func(inner int) string {
			return strings.Repeat("[", outer+inner) + strings.Repeat("]", outer+inner)
		}
		for _, tc := range []struct {
			inner int
			ok    bool
		}{{maxDepth - outer, true}, {maxDepth - outer + 1, false}} {
			d := newDecoder([]byte(build(tc.inner)), false)
			for i := 0; i < outer; i++ {
				if err := d.beginArray(); err != nil {
					t.Fatal(err)
				}
				d.elem(0)
			}
			err := d.skip()
			if (err == nil) != tc.ok {
				t.Errorf("inner depth %d: skip error = %v, want ok=%v", tc.inner, err, tc.ok)
			}
		}
	})
	t.Run("findString respects the limit", func(t *testing.T) {
		in := `{"a":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `,"type":"x"}`
		d := newDecoder([]byte(in), false)
		_, _, err := d.findString("type")
		if err == nil || !strings.Contains(err.Error(), "exceeded maximum nesting depth") {
			t.Fatalf("error = %v, want depth error", err)
		}
	})
}

func TestDecoderPath(t *testing.T) {
	d := newDecoder(nil, false)
	if got := d.pointer(); got != "" {
		t.Errorf("root pointer = %q", got)
	}
	d.push([]byte("messages"))
	d.pushIndex(0)
	d.push([]byte("a/b~c"))
	d.push([]byte(""))
	if got, want := d.pointer(), "/messages/0/a~1b~0c/"; got != want {
		t.Errorf("pointer = %q, want %q", got, want)
	}
	for range 6 { // unbalanced pops must not panic
		d.pop()
	}
	if got := d.pointer(); got != "" {
		t.Errorf("pointer after pops = %q", got)
	}
}

// TestDecoderSteadyStateAllocs checks that walking a document with keys,
// paths, skipped values and scalars that are not returned as strings costs
// nothing beyond the decoder and the discriminator.
func TestDecoderSteadyStateAllocs(t *testing.T) {
	in := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":7,"flag":true,"extra":{"x":[1,2,{"y":null}]},"opt":null}`)
	n := testing.AllocsPerRun(100, func() {
		d := newDecoder(in, true)
		if _, _, err := d.findString("type"); err != nil {
			t.Fatal(err)
		}
		if err := d.beginObject(); err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			k, more, err := d.key(i)
			if err != nil {
				t.Fatal(err)
			}
			if !more {
				break
			}
			d.push(k)
			switch string(k) {
			case "type":
				err = d.constString("TEXT_MESSAGE_CONTENT")
			case "messageId":
				_, err = d.integer(0, maxSafe)
			case "flag":
				_, err = d.boolean()
			case "opt":
				if !d.isNull() {
					t.Fatal("opt not null")
				}
			default:
				err = d.skip()
			}
			d.pop()
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := d.end(); err != nil {
			t.Fatal(err)
		}
	})
	// The decoder itself and the discriminator string findString returns.
	if n > 2 {
		t.Errorf("decoding allocates %v times, want at most 2", n)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "decode error", err: &DecodeError{Path: "/messages/0/role", Offset: 57, Reason: `unknown enum value "narrator"`},
			want: `agui: decode error at /messages/0/role (offset 57): unknown enum value "narrator"`},
		{name: "decode error at root", err: &DecodeError{Offset: 0, Reason: "expected object, got array"},
			want: `agui: decode error at the document root (offset 0): expected object, got array`},
		{name: "unknown event type", err: &UnknownEventTypeError{Type: "FUTURE_EVENT"},
			want: `agui: unknown event type "FUTURE_EVENT"`},
		{name: "encode error", err: &EncodeError{Type: "Custom", Field: "Value", Err: errors.New("must not be null")},
			want: `agui: encode Custom.Value: must not be null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}

	var err error = &UnknownEventTypeError{Type: "X"}
	if !errors.Is(err, ErrUnknownEventType) {
		t.Error("UnknownEventTypeError does not match ErrUnknownEventType")
	}
	if errors.Is(&DecodeError{}, ErrUnknownEventType) {
		t.Error("DecodeError matches ErrUnknownEventType")
	}
	inner := errors.New("inner")
	if !errors.Is(&EncodeError{Err: inner}, inner) {
		t.Error("EncodeError does not unwrap")
	}
	if got := (DecodeWarning{Path: "/a", Message: "removed unrecognised member"}).String(); got != "at /a: removed unrecognised member" {
		t.Errorf("DecodeWarning.String() = %q", got)
	}
	if got := (DecodeWarning{Message: "m"}).String(); got != "at the document root: m" {
		t.Errorf("DecodeWarning.String() = %q", got)
	}
}

// FuzzDecoderSkip checks that skip (followed by end) accepts exactly the
// inputs encoding/json accepts as one value.
func FuzzDecoderSkip(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2,{"b":null}]}`, ` "x\"y" `, `-1.5e+3`, `[1,]`, `{"a" 1}`, `tru`, `"\ud800"`,
		"\"\xff\"", `{} {}`, ``, strings.Repeat("[", 20) + strings.Repeat("]", 20),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d := newDecoder(in, false)
		err := d.skip()
		if err == nil {
			err = d.end()
		}
		if valid := json.Valid(in); valid != (err == nil) {
			t.Fatalf("json.Valid(%q) = %v, skip/end error = %v", in, valid, err)
		}
	})
}

// decodeTree builds the same tree as json.Unmarshal into any, using only the
// cursor API, which exercises every structural method on arbitrary input.
func decodeTree(d *decoder) (any, error) {
	switch d.peekKind() {
	case '{':
		if err := d.beginObject(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for i := 0; ; i++ {
			k, more, err := d.key(i)
			if err != nil {
				return nil, err
			}
			if !more {
				return m, nil
			}
			d.push(k)
			v, err := decodeTree(d)
			d.pop()
			if err != nil {
				return nil, err
			}
			m[string(k)] = v
		}
	case '[':
		if err := d.beginArray(); err != nil {
			return nil, err
		}
		s := []any{}
		for i := 0; ; i++ {
			more, err := d.elem(i)
			if err != nil {
				return nil, err
			}
			if !more {
				return s, nil
			}
			d.pushIndex(i)
			v, err := decodeTree(d)
			d.pop()
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
	case '"':
		return d.str()
	case 't', 'f':
		return d.boolean()
	case 'n':
		if d.isNull() {
			return nil, nil
		}
		return d.str() // reports the syntax error
	case '0':
		b, err := d.raw()
		if err != nil {
			return nil, err
		}
		return strconv.ParseFloat(string(b), 64)
	}
	return d.str() // reports end of input or the unexpected byte
}

// FuzzDecoderTree checks the cursor API end to end against json.Unmarshal:
// same acceptance, same decoded strings, keys, numbers and structure.
func FuzzDecoderTree(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2.5,{"b":null}],"c":"\u00e9\ud83d\ude00","d":true}`, `[]`, `{"a":1,"a":2}`,
		`"\ud800\u0041"`, "\"\xff\xfe\"", `{"x\"y":"z"}`, `[1,]`, `1e400`, `nul`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d := newDecoder(in, false)
		got, err := decodeTree(d)
		if err == nil {
			err = d.end()
		}
		var want any
		wantErr := json.Unmarshal(in, &want)
		if wantErr != nil && json.Valid(in) {
			return // e.g. 1e400: valid JSON that does not fit a float64
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("input %q: decoder error %v, json.Unmarshal error %v", in, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("input %q: decoder %#v, json.Unmarshal %#v", in, got, want)
		}
	})
}

func BenchmarkDecoder(b *testing.B) {
	in := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_01HZX","delta":"Hello! How can I help you today?","timestamp":1718000000000}`)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		d := newDecoder(in, false)
		if _, _, err := d.findString("type"); err != nil {
			b.Fatal(err)
		}
		if err := d.beginObject(); err != nil {
			b.Fatal(err)
		}
		for i := 0; ; i++ {
			k, more, err := d.key(i)
			if err != nil {
				b.Fatal(err)
			}
			if !more {
				break
			}
			d.push(k)
			switch string(k) {
			case "type":
				err = d.constString("TEXT_MESSAGE_CONTENT")
			case "timestamp":
				_, err = d.integer(0, maxSafe)
			default:
				_, err = d.str()
			}
			d.pop()
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
