package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	// want values were checked against node's JSON.stringify where the input
	// is valid UTF-8 (invalid UTF-8 cannot exist in a JavaScript string).
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "empty", in: "", want: `""`},
		{name: "ascii", in: "hello, world", want: `"hello, world"`},
		{name: "quote", in: `a"b`, want: `"a\"b"`},
		{name: "backslash", in: `a\b`, want: `"a\\b"`},
		{name: "short escapes", in: "\b\f\n\r\t", want: `"\b\f\n\r\t"`},
		{name: "other controls lower-case hex", in: "\x00\x01\x1a\x1f", want: `"\u0000\u0001\u001a\u001f"`},
		{name: "ansi escape", in: "\x1b[31m", want: `"\u001b[31m"`},
		{name: "DEL raw", in: "\x7f", want: "\"\x7f\""},
		{name: "no HTML escaping", in: "<a href='x'>&amp;</a>", want: `"<a href='x'>&amp;</a>"`},
		{name: "slash raw", in: "a/b", want: `"a/b"`},
		{name: "U+2028 and U+2029 raw", in: "a\u2028b\u2029c", want: "\"a\u2028b\u2029c\""},
		{name: "multi-byte raw", in: "é日本", want: `"é日本"`},
		{name: "emoji raw", in: "hi 😀!", want: `"hi 😀!"`},
		{name: "valid U+FFFD raw", in: "\uFFFD", want: "\"\uFFFD\""},
		{name: "invalid byte is a raw U+FFFD", in: "a\xffb", want: "\"a\uFFFDb\""},
		{name: "truncated sequence at end", in: "a\xc3", want: "\"a\uFFFD\""},
		{name: "truncated sequence is one U+FFFD a byte", in: "\xf0\x9f\x98!", want: "\"\uFFFD\uFFFD\uFFFD!\""},
		{name: "encoded surrogate is three invalid bytes", in: "\xed\xa0\x80", want: "\"\uFFFD\uFFFD\uFFFD\""},
		{name: "overlong encoding", in: "\xc0\xaf", want: "\"\uFFFD\uFFFD\""},
		{name: "mixed", in: "\"x\"\n\xff😀\t", want: `"\"x\"\n` + "\uFFFD" + `😀\t"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendJSONString([]byte("prefix:"), tt.in)
			if string(got) != "prefix:"+tt.want {
				t.Errorf("AppendJSONString(%q) = %s, want %s", tt.in, got[len("prefix:"):], tt.want)
			}
			var back string
			if err := json.Unmarshal(got[len("prefix:"):], &back); err != nil {
				t.Fatalf("output is not a JSON string: %v", err)
			}
			if utf8.ValidString(tt.in) && back != tt.in {
				t.Errorf("round trip = %q, want %q", back, tt.in)
			}
		})
	}
}

func TestAppendStringAllBytes(t *testing.T) {
	// Every single byte must produce valid, newline-free JSON that decodes
	// back to the input (or U+FFFD for bytes that are not UTF-8 on their own).
	for c := 0; c < 256; c++ {
		in := string([]byte{byte(c)})
		out := AppendJSONString(nil, in)
		if bytes.ContainsAny(out, "\r\n") {
			t.Errorf("byte %#x: output %q contains a raw line break", c, out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("byte %#x: %q: %v", c, out, err)
		}
		want := in
		if c >= utf8.RuneSelf {
			want = "\uFFFD"
		}
		if back != want {
			t.Errorf("byte %#x: round trip %q, want %q", c, back, want)
		}
	}
}

func TestAppendStringNoAllocs(t *testing.T) {
	inputs := []string{"hello", "line\nbreak \"quoted\" \x01", "日本 😀 \xff"}
	for _, bb := range stringBenches {
		inputs = append(inputs, bb.in)
	}
	buf := make([]byte, 0, 16<<10)
	for _, s := range inputs {
		if n := testing.AllocsPerRun(100, func() { buf = AppendJSONString(buf[:0], s) }); n != 0 {
			t.Errorf("AppendJSONString(%q) allocates %v times with spare capacity", s, n)
		}
	}
}

func TestAppendRaw(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "compact object copied", in: `{"a":1,"b":[true,false,null]}`, want: `{"a":1,"b":[true,false,null]}`},
		{name: "nested whitespace removed", in: " {\n\t\"a\" : [ 1 , { \"b\" : { } } , [ ] ] ,\r\n \"c\":\"d\" } ", want: `{"a":[1,{"b":{}},[]],"c":"d"}`},
		{name: "whitespace inside strings kept", in: `{ "a b" : " x\ty " }`, want: `{"a b":" x\ty "}`},
		{name: "escaped quotes", in: `[ "a\"b" , "\\" , "\\\"" , "x" ]`, want: `["a\"b","\\","\\\"","x"]`},
		{name: "escapes kept as written", in: ` "\u00e9\/\n\uD83D\uDE00" `, want: `"\u00e9\/\n\uD83D\uDE00"`},
		{name: "number spelling kept", in: `[ 1.0e+10 , -0 , 1E5 , 0.50 , 12345678901234567890123 ]`, want: `[1.0e+10,-0,1E5,0.50,12345678901234567890123]`},
		{name: "duplicate keys and order kept", in: `{ "b":1, "a":2, "b":3 }`, want: `{"b":1,"a":2,"b":3}`},
		{name: "scalars", in: "\n null \n", want: `null`},
		{name: "empty containers", in: `[ [ ] , { } ]`, want: `[[],{}]`},
		{name: "non-ASCII raw", in: `["日本", "😀", "<&>"]`, want: `["日本","😀","<&>"]`},
		{name: "invalid UTF-8 inside strings kept (json.Valid accepts it)", in: "[ \"\xff\" ]", want: "[\"\xff\"]"},
		{name: "max depth", in: strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth), want: strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)},

		{name: "empty", in: ``, wantErr: `invalid JSON at offset 0: unexpected end of input`},
		{name: "only whitespace", in: "  \n", wantErr: `invalid JSON at offset 3: unexpected end of input`},
		{name: "value expected", in: `[1,}`, wantErr: `invalid JSON at offset 3: unexpected '}'`},
		{name: "trailing comma in array", in: `[1,]`, wantErr: `invalid JSON at offset 3: unexpected ']'`},
		{name: "trailing comma in object", in: `{"a":1,}`, wantErr: `invalid JSON at offset 7: unexpected '}', expected string key`},
		{name: "missing colon", in: `{"a"}`, wantErr: `invalid JSON at offset 4: unexpected '}', expected ':'`},
		{name: "non-string key", in: `{1:2}`, wantErr: `invalid JSON at offset 1: unexpected '1', expected string key`},
		{name: "missing comma in array", in: `[1 2]`, wantErr: `invalid JSON at offset 3: unexpected '2', expected ',' or ']'`},
		{name: "missing comma in object", in: `{"a":1 "b":2}`, wantErr: `invalid JSON at offset 7: unexpected '"', expected ',' or '}'`},
		{name: "mismatched bracket", in: `[1}`, wantErr: `invalid JSON at offset 2: unexpected '}', expected ',' or ']'`},
		{name: "unclosed array", in: `[1,2`, wantErr: `invalid JSON at offset 4: unexpected end of input, expected ',' or ']'`},
		{name: "leading zero", in: `01`, wantErr: `invalid JSON at offset 1: unexpected '1' in number (leading zeros are not allowed)`},
		{name: "bare minus", in: `-`, wantErr: `invalid JSON at offset 1: unexpected end of input in number`},
		{name: "minus letter", in: `-a`, wantErr: `invalid JSON at offset 1: unexpected 'a' in number`},
		{name: "dot without digits", in: `1.`, wantErr: `invalid JSON at offset 2: unexpected end of input in number`},
		{name: "exponent without digits", in: `1e+]`, wantErr: `invalid JSON at offset 3: unexpected ']' in number`},
		{name: "leading plus", in: `+1`, wantErr: `invalid JSON at offset 0: unexpected '+'`},
		{name: "leading dot", in: `.5`, wantErr: `invalid JSON at offset 0: unexpected '.'`},
		{name: "NaN", in: `NaN`, wantErr: `invalid JSON at offset 0: unexpected 'N'`},
		{name: "truncated literal", in: `tru`, wantErr: `invalid JSON at offset 3: unexpected end of input in literal true`},
		{name: "wrong literal", in: `nulL`, wantErr: `invalid JSON at offset 3: unexpected 'L' in literal null`},
		{name: "single quotes", in: `'a'`, wantErr: `invalid JSON at offset 0: unexpected '\''`},
		{name: "unterminated string", in: `"abc`, wantErr: `invalid JSON at offset 4: unexpected end of input in string`},
		{name: "raw newline in string", in: "\"a\nb\"", wantErr: `invalid JSON at offset 2: unexpected control character U+000A in string`},
		{name: "bad escape", in: `"\x"`, wantErr: `invalid JSON at offset 2: unexpected 'x' after '\' in string`},
		{name: "bad unicode escape", in: `"\u12G4"`, wantErr: `invalid JSON at offset 5: unexpected 'G' in \u escape`},
		{name: "truncated unicode escape", in: `"\u12`, wantErr: `invalid JSON at offset 5: unexpected end of input in string`},
		{name: "trailing data", in: `{"a":1} x`, wantErr: `invalid JSON at offset 8: unexpected 'x' after the value`},
		{name: "two values", in: `[1,2]]`, wantErr: `invalid JSON at offset 5: unexpected ']' after the value`},
		{name: "invalid byte", in: "\xff", wantErr: `invalid JSON at offset 0: unexpected byte 0xff`},
		{name: "byte order mark", in: "\ufeff{}", wantErr: `invalid JSON at offset 0: unexpected '\ufeff'`},
		{name: "too deep", in: strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), wantErr: `invalid JSON at offset 10000: exceeded maximum nesting depth of 10000`},
		{name: "too deep objects", in: strings.Repeat(`{"a":`, maxDepth+1), wantErr: `invalid JSON at offset 50000: exceeded maximum nesting depth of 10000`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte("data:")
			got, err := appendRaw(dst, []byte(tt.in))
			if valid := json.Valid([]byte(tt.in)); valid != (err == nil) {
				t.Errorf("json.Valid = %v but appendRaw error = %v", valid, err)
			}
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("appendRaw(%q) = %q, want error %q", tt.in, got, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("error = %q\nwant    %q", err, tt.wantErr)
				}
				if string(got) != "data:" {
					t.Errorf("dst changed on error: %q", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("appendRaw(%q): %v", tt.in, err)
			}
			if string(got) != "data:"+tt.want {
				t.Errorf("appendRaw(%q)\n got %q\nwant %q", tt.in, got[5:], tt.want)
			}
		})
	}
}

func TestAppendRawKinds(t *testing.T) {
	tests := []struct {
		name    string
		fn      func(dst, raw []byte) ([]byte, error)
		in      string
		want    string
		wantErr string
	}{
		{name: "object ok", fn: appendRawObject, in: ` { "a" : 1 } `, want: `{"a":1}`},
		{name: "object rejects array", fn: appendRawObject, in: `[1]`, wantErr: `must be a JSON object, got array`},
		{name: "object rejects null", fn: appendRawObject, in: ` null`, wantErr: `must be a JSON object, got null`},
		{name: "object rejects string", fn: appendRawObject, in: `"{}"`, wantErr: `must be a JSON object, got string`},
		{name: "object reports syntax first", fn: appendRawObject, in: `[1,`, wantErr: `invalid JSON at offset 3: unexpected end of input`},
		{name: "not null ok", fn: appendRawNotNull, in: `0`, want: `0`},
		{name: "not null ok for false", fn: appendRawNotNull, in: ` false `, want: `false`},
		{name: "not null rejects null", fn: appendRawNotNull, in: " null\n", wantErr: `must not be null`},
		{name: "not null reports syntax", fn: appendRawNotNull, in: `nul`, wantErr: `invalid JSON at offset 3: unexpected end of input in literal null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fn([]byte("x"), []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				if string(got) != "x" {
					t.Errorf("dst changed on error: %q", got)
				}
				return
			}
			if err != nil || string(got) != "x"+tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, "x"+tt.want)
			}
		})
	}
}

func TestAppendRawNoAllocs(t *testing.T) {
	buf := make([]byte, 0, 256)
	for _, in := range []string{`{"a":[1,2,{"b":"c"}]}`, " { \"a\" : [ 1, 2 ] } "} {
		raw := []byte(in)
		if n := testing.AllocsPerRun(100, func() { buf, _ = appendRaw(buf[:0], raw) }); n != 0 {
			t.Errorf("appendRaw(%q) allocates %v times with spare capacity", in, n)
		}
	}
}

func TestEncodeErrorWrapping(t *testing.T) {
	_, err := appendRaw(nil, []byte(`[1,}`))
	err = encodeError("ToolCall", "Arguments", err)
	const want = `agui: encode ToolCall.Arguments: invalid JSON at offset 3: unexpected '}'`
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	var ee *EncodeError
	if !errors.As(err, &ee) || ee.Type != "ToolCall" || ee.Field != "Arguments" {
		t.Fatalf("errors.As failed or wrong fields: %#v", err)
	}
	// The innermost location wins when an error passes through nested values.
	outer := encodeError("RunAgentInput", "Messages", err)
	if outer != err {
		t.Errorf("encodeError re-wrapped an *EncodeError: %v", outer)
	}
	noField := &EncodeError{Type: "Custom", Err: errors.New("boom")}
	if got := noField.Error(); got != "agui: encode Custom: boom" {
		t.Errorf("Error() = %q", got)
	}
}

// FuzzAppendRaw checks appendRaw against encoding/json: it accepts exactly
// what json.Valid accepts, its output is exactly json.Compact's, and the
// output means the same as the input.
func FuzzAppendRaw(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, ` [ 1 , 2.5e-3 , "x\"y" , null , true , false ] `, `{"a":{"b":[{}]}}`,
		`"\u00e9\ud83d\ude00"`, `-0`, `1e400`, "\"\xff\"", `[1,]`, `{"a" 1}`, `01`, `"\x"`,
		"\t\n\r ", `{"a":1,"a":2}`, strings.Repeat("[", 50) + strings.Repeat("]", 50),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := appendRaw(nil, in)
		if valid := json.Valid(in); valid != (err == nil) {
			t.Fatalf("json.Valid(%q) = %v, appendRaw error = %v", in, valid, err)
		}
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output %q of %q is not valid JSON", out, in)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, in); err != nil {
			t.Fatalf("json.Compact: %v", err)
		}
		if !bytes.Equal(out, compact.Bytes()) {
			t.Fatalf("appendRaw(%q) = %q, json.Compact = %q", in, out, compact.Bytes())
		}
		var a, b any
		errA, errB := json.Unmarshal(in, &a), json.Unmarshal(out, &b)
		if (errA == nil) != (errB == nil) { // both fail alike on e.g. 1e400
			t.Fatalf("unmarshal input: %v, output: %v", errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("appendRaw(%q) = %q changes the value", in, out)
		}
	})
}

// stringBenches are the strings BenchmarkAppendString encodes: text deltas
// as a model streams them (short, mostly ASCII, an escape now and then),
// longer text, escape-heavy text, and text in other scripts.
var stringBenches = []struct {
	name string
	in   string
}{
	{name: "ascii-5", in: "Hello"},
	{name: "ascii-14", in: "Hello, world! "},
	{name: "ascii-100", in: strings.Repeat("The quick brown fox jumps over the lazy dog. ", 3)[:100]},
	{name: "ascii-4k", in: strings.Repeat("The quick brown fox jumps over the lazy dog. ", 92)[:4096]},
	{name: "occasional-escapes-100", in: "Sure! Here is the \"plan\":\n1. Read the file.\n2. Fix the bug in parse().\n3. Run the tests again, please."},
	{name: "escape-heavy", in: "line one\nline \"two\"\twith \\ backslash\r\n{\"a\":\"b\",\"c\":[\"d\"]}\n"},
	{name: "latin-accents", in: "Ça va très bien, merci ! Où est la bibliothèque ? À demain."},
	{name: "cjk", in: "こんにちは、世界。今日はとてもいい天気ですね。散歩に行きましょう。"},
	{name: "emoji", in: "Great job! 🎉🎉 👍🏽 Let's ship it 🚀 — done ✅"},
}

func BenchmarkAppendString(b *testing.B) {
	for _, bb := range stringBenches {
		b.Run(bb.name, func(b *testing.B) {
			buf := make([]byte, 0, 2*len(bb.in)+2)
			b.SetBytes(int64(len(bb.in)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendJSONString(buf[:0], bb.in)
			}
		})
	}
}

func BenchmarkAppendRaw(b *testing.B) {
	benches := []struct {
		name string
		in   string
	}{
		{name: "compact", in: `{"city":"Berlin","units":"metric","days":[1,2,3],"detail":{"hourly":true}}`},
		{name: "indented", in: "{\n  \"city\": \"Berlin\",\n  \"units\": \"metric\",\n  \"days\": [1, 2, 3],\n  \"detail\": {\"hourly\": true}\n}"},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			raw := []byte(bb.in)
			buf := make([]byte, 0, 256)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = appendRaw(buf[:0], raw)
			}
		})
	}
}

// verbatimByRunes is verbatim one character at a time, with the standard
// library's UTF-8 decoder.
func verbatimByRunes(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if escapeOf[c] != 0 {
				return i
			}
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 {
			return i
		}
		i += n
	}
	return i
}

// FuzzVerbatim holds the word-at-a-time scan to a scan by characters: from
// any start, even inside a character, it stops exactly at the first byte
// to escape or not part of valid UTF-8.
func FuzzVerbatim(f *testing.F) {
	for _, s := range []string{"", "Hello, world! ", "abcdefgh\"", "\x1f1234567", "1234567\\", "0123456789abcde\x80", "!#[]]]]]]]", "é, world ab", "\n\xff\n\xff\n\xff\n\xff\n", "日本語のテキスト\n", "\xed\xa0\x80abcdefgh"} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, i int) {
		if i < 0 || i > len(s) {
			return
		}
		if got, want := verbatim(s, i), verbatimByRunes(s, i); got != want {
			t.Fatalf("verbatim(%q, %d) = %d, want %d", s, i, got, want)
		}
	})
}

func TestVerbatimEveryLane(t *testing.T) {
	// Every byte value in every lane of two words, in strings of every
	// length that holds it, from every start, with an escape or a wide
	// byte before the start, which the scan must not see.
	for c := range 256 {
		for lane := range 16 {
			for _, before := range []byte{'a', '"', 0, 0x80, 0xe6} {
				for n := lane + 1; n <= 16; n++ {
					b := []byte("abcdefghijklmnop")[:n]
					b[lane] = byte(c)
					for i := 0; i <= lane; i++ {
						if i > 0 {
							b[i-1] = before
						}
						s := string(b)
						if got, want := verbatim(s, i), verbatimByRunes(s, i); got != want {
							t.Fatalf("verbatim(%q, %d) = %d, want %d", s, i, got, want)
						}
					}
				}
			}
		}
	}
}

func TestVerbatimSequences(t *testing.T) {
	// Every lead byte and second byte, with the third and fourth at the
	// edges of the continuation range, whole and cut short, alone and
	// after a word of ASCII, before ASCII and before the end: verbatim
	// stops where the standard library's decoder says.
	edges := []byte{0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff}
	for c := 0x80; c < 0x100; c++ {
		for b1 := range 256 {
			for _, b2 := range edges {
				for _, b3 := range edges {
					full := []byte{byte(c), byte(b1), b2, b3}
					for n := 1; n <= 4; n++ {
						for _, s := range []string{string(full[:n]), "abcdefgh" + string(full[:n]) + "z"} {
							if got, want := verbatim(s, 0), verbatimByRunes(s, 0); got != want {
								t.Fatalf("verbatim(%q, 0) = %d, want %d", s, got, want)
							}
						}
					}
				}
			}
		}
	}
}
