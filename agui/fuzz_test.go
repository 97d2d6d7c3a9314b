package agui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agui-go/sdk/internal/spectest"
)

// seedFixtures adds every shared fixture of the given definitions (valid and
// invalid) to the fuzz corpus.
func seedFixtures(f *testing.F, keep func(def string) bool) {
	fixtures := spectest.RequireFixtures(f)
	for _, fx := range fixtures {
		if !keep(fx.Definition) {
			continue
		}
		data, err := os.ReadFile(fx.Path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzDecodeEvent: decoding never panics; what strict decoding accepts
// re-encodes, decodes again and re-encodes to the same bytes; what lenient
// decoding accepts re-encodes to a document strict decoding accepts (the
// repairs leave nothing the schema rejects).
func FuzzDecodeEvent(f *testing.F) {
	seedFixtures(f, func(def string) bool { return def != "RunAgentInput" && def != "Message" })
	f.Add([]byte(`{"type":"FUTURE","x":[1,{"y":null}]}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_END","messageId":null,"messageId":"m","type":"TEXT_MESSAGE_END"}`))
	f.Add([]byte(`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"x"},"outcome":{"type":"success"}}`))
	// Shared by the inputs, so their caches carry over.
	var strict StreamDecoder
	lenient := StreamDecoder{Options: DecodeOptions{Lenient: true}}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A StreamDecoder returns what its Options.DecodeEvent returns.
		for _, stream := range []*StreamDecoder{&strict, &lenient} {
			ev1, w1, err1 := stream.Options.DecodeEvent(data)
			ev2, w2, err2 := stream.DecodeEvent(data)
			if !reflect.DeepEqual(ev1, ev2) || !reflect.DeepEqual(w1, w2) || fmt.Sprint(err1) != fmt.Sprint(err2) {
				t.Fatalf("StreamDecoder (%+v) differs:\n%#v %v %v\n%#v %v %v", stream.Options, ev1, w1, err1, ev2, w2, err2)
			}
		}
		if ev, err := DecodeEvent(data); err == nil {
			out := mustAppend(t, ev)
			ev2, err := DecodeEvent(out)
			if err != nil {
				t.Fatalf("our own encoding does not decode: %v\n%s", err, out)
			}
			if out2 := mustAppend(t, ev2); !bytes.Equal(out, out2) {
				t.Fatalf("unstable:\n%s\n%s", out, out2)
			}
		}
		if ev, _, err := lenient.Options.DecodeEvent(data); err == nil {
			out := mustAppend(t, ev)
			if _, err := DecodeEvent(out); err != nil {
				t.Fatalf("lenient result is not strictly valid: %v\n%s\nfrom %s", err, out, data)
			}
		}
	})
}

// FuzzDecodeRunAgentInput is FuzzDecodeEvent for request bodies.
func FuzzDecodeRunAgentInput(f *testing.F) {
	seedFixtures(f, func(def string) bool { return def == "RunAgentInput" })
	f.Add([]byte(`{"threadId":"t","runId":"r","state":null,"messages":[]}`))
	lenient := DecodeOptions{Lenient: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		if in, err := DecodeRunAgentInput(data); err == nil {
			out, err := in.AppendJSON(nil)
			if err != nil {
				t.Fatalf("decoded input does not encode: %v", err)
			}
			in2, err := DecodeRunAgentInput(out)
			if err != nil {
				t.Fatalf("our own encoding does not decode: %v\n%s", err, out)
			}
			out2, _ := in2.AppendJSON(nil)
			if !bytes.Equal(out, out2) {
				t.Fatalf("unstable:\n%s\n%s", out, out2)
			}
		}
		if in, _, err := lenient.DecodeRunAgentInput(data); err == nil {
			out, err := in.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeRunAgentInput(out); err != nil {
				t.Fatalf("lenient result is not strictly valid: %v\n%s", err, out)
			}
		}
	})
}

func mustAppend(t *testing.T, ev Event) []byte {
	t.Helper()
	out, err := ev.AppendJSON(nil)
	if err != nil {
		t.Fatalf("a decoded event does not encode: %v", err)
	}
	return out
}

// FuzzAppendJSONString: for any Go string the escaper writes one valid JSON
// string, with no raw line break to end an SSE data line, that
// encoding/json decodes back to the input (each invalid byte read as
// U+FFFD); its bytes are those of JSON.stringify's rules applied one
// character at a time (see stringifyByRunes), and encoding the decoded
// string again gives them once more. What dst held is kept.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "Hello, world! ", "a\"b\\c/d", "\x00\x1f\x7f\b\f\n\r\t", "\u2028\u2029\ufeff",
		"日本語のテキスト、😀👍🏽", "\xff\xfe", "\xed\xa0\x80", "\xe6\x97", "\xf0\x9f\x98\"", "line one\nline \"two\"\n",
		"0123456789abcdef\x80", "abcdefgh\"ijklmnop\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendJSONString([]byte("data:"), s)
		if string(out[:5]) != "data:" {
			t.Fatalf("the prefix changed: %q", out)
		}
		out = out[5:]
		if want := stringifyByRunes(s); string(out) != want {
			t.Fatalf("AppendJSONString(%q)\n = %q\nwant %q", s, out, want)
		}
		if !json.Valid(out) || bytes.ContainsAny(out, "\r\n") {
			t.Fatalf("AppendJSONString(%q) = %q: not one JSON string on one line", s, out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("AppendJSONString(%q) = %q: %v", s, out, err)
		}
		if want := string([]rune(s)); back != want { // []rune reads an invalid byte as U+FFFD
			t.Fatalf("AppendJSONString(%q) reads back as %q, want %q", s, back, want)
		}
		if again := AppendJSONString(nil, back); !bytes.Equal(again, out) {
			t.Fatalf("encoding %q again gives %q, not %q", back, again, out)
		}
	})
}

// stringifyByRunes is JSON.stringify's QuoteJSONString, one character at a
// time, for the string a peer reads from s: the model AppendJSONString's
// word-at-a-time scan must agree with.
func stringifyByRunes(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s { // an invalid byte is a U+FFFD of its own
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
