package client

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agui-go/sdk/agui"
)

// FuzzFastDelta checks the hot path against the general decoder: whenever
// fastDelta accepts a frame, lenient decoding gives the same event (the
// timestamp's value included) and no warning.
func FuzzFastDelta(f *testing.F) {
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hello"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"","delta":"日本語 ‍ é"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\"b"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"} `))
	f.Add([]byte("{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\xff\"}"))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1700000000000,"messageId":"m","delta":"Hello"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","timestamp":0,"messageId":"m","delta":""}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","timestamp":999999999999999,"messageId":"m","delta":"x"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","timestamp":9007199254740993,"messageId":"m","delta":"x"}`))
	for _, c := range escapeCases {
		f.Add([]byte(c.frame))
	}
	var s deltaSlab
	f.Fuzz(func(t *testing.T, frame []byte) {
		fast := s.fastDelta(frame)
		if fast == nil {
			return
		}
		ev, warns, err := agui.DecodeOptions{Lenient: true}.DecodeEvent(frame)
		if err != nil || len(warns) > 0 {
			t.Fatalf("fast path accepted %q; the decoder says %v %v", frame, warns, err)
		}
		if !reflect.DeepEqual(ev, fast) {
			t.Fatalf("fast path %+v, decoder %+v", fast, ev)
		}
	})
}

// FuzzFastDeltaText is FuzzFastDelta with the mutations kept inside the
// delta, where escapes are: the frame around it is always of the fast
// shape, so the fuzzer spends its time on unescaping.
func FuzzFastDeltaText(f *testing.F) {
	for _, c := range escapeCases {
		if _, rest, ok := strings.Cut(c.frame, `"delta":"`); ok {
			f.Add(strings.TrimSuffix(rest, `"}`))
		}
	}
	var s deltaSlab
	f.Fuzz(func(t *testing.T, delta string) {
		frame := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + delta + `"}`)
		fast := s.fastDelta(frame)
		ev, warns, err := agui.DecodeOptions{Lenient: true}.DecodeEvent(frame)
		if fast == nil {
			// Plain valid text is always the fast path's.
			if err == nil && !strings.ContainsAny(delta, "\\\"") && utf8.ValidString(delta) && !hasControl(delta) {
				t.Fatalf("fast path refused %q", frame)
			}
			return
		}
		if err != nil || len(warns) > 0 {
			t.Fatalf("fast path accepted %q; the decoder says %v %v", frame, warns, err)
		}
		if !reflect.DeepEqual(ev, fast) {
			t.Fatalf("fast path %+v, decoder %+v", fast, ev)
		}
	})
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 })
}

func TestFastDeltaShapes(t *testing.T) {
	var s deltaSlab
	for frame, ok := range map[string]bool{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hello"}`:                           true,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\nb"}`:                            true,  // an escape
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\qb"}`:                            false, // an invalid one
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m\n","delta":"x"}`:                             false, // an escaped id
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","subagentRunId":"s"}`:           false,
		`{"type":"TEXT_MESSAGE_CONTENT","delta":"x","messageId":"m"}`:                               false,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}x`:                              false,
		`{"type":"TEXT_MESSAGE_CONTENT", "messageId":"m","delta":"x"}`:                              false,
		"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\xc3\"}":                false, // invalid UTF-8 is repaired by the decoder
		"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"tab\there\"}":           false,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + string(make([]byte, 0)) + `"}`: true,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1700000000000,"messageId":"m","delta":"x"}`:     true,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":0,"messageId":"m","delta":"x"}`:                 true,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":999999999999999,"messageId":"m","delta":"x"}`:   true,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1000000000000000,"messageId":"m","delta":"x"}`:  false, // 16 digits
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":017,"messageId":"m","delta":"x"}`:               false, // not JSON
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":-5,"messageId":"m","delta":"x"}`:                false,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1.5,"messageId":"m","delta":"x"}`:               false,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1e3,"messageId":"m","delta":"x"}`:               false,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":,"messageId":"m","delta":"x"}`:                  false,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":5}`:                                             false,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","timestamp":5,"delta":"x"}`:                 false,
	} {
		if got := s.fastDelta([]byte(frame)) != nil; got != ok {
			t.Errorf("%q: fast path %v, want %v", frame, got, ok)
		}
	}
}

// escapeCases are deltas with escapes, each with what the fast path does
// with it: decode it (fast) to want, or leave it to the general decoder,
// which fails on it when want is "fails" and decodes it otherwise.
var escapeCases = []struct {
	name  string
	frame string
	fast  bool
	want  string
}{
	{"line break", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\nb"}`, true, "a\nb"},
	{"every short escape", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\"\\\/\b\f\n\r\t"}`, true, "\"\\/\b\f\n\r\t"},
	{"escapes and UTF-8", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"He said \"héllo\"\n\tC:\\tmp — 世界 🙂 "}`, true, "He said \"héllo\"\n\tC:\\tmp — 世界 🙂 "},
	{"only an escape", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\n"}`, true, "\n"},
	{"escaped backslash before the end", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x\\"}`, true, "x\\"},
	{"u escapes", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"h\u00e9llo \u2014 \u4e16\u754C \u0041"}`, true, "héllo — 世界 A"},
	{"u escape of NUL", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\u0000b"}`, true, "a\x00b"},
	{"surrogate pair", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\ude42!"}`, true, "🙂!"},
	{"surrogate pair, upper case", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\uD83D\uDE42"}`, true, "🙂"},
	{"lone high surrogate", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d!"}`, true, "\uFFFD!"},
	{"lone high surrogate at the end", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x\ud83d"}`, true, "x\uFFFD"},
	{"lone low surrogate", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ude42"}`, true, "\uFFFD"},
	{"two high surrogates", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\ud83d\ude42"}`, true, "\uFFFD🙂"},
	{"high surrogate, then a short escape", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\n"}`, true, "\uFFFD\n"},
	{"high surrogate, then a non-surrogate", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\u0041"}`, true, "\uFFFDA"},
	{"escape next to multi-byte text", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"世\n界"}`, true, "世\n界"},
	{"stamped", `{"type":"TEXT_MESSAGE_CONTENT","timestamp":1700000000000,"messageId":"m","delta":"a\tb"}`, true, "a\tb"},

	{"invalid escape", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\qb"}`, false, "fails"},
	{"invalid escape at the end", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"abc\x"}`, false, "fails"},
	{"u escape with a bad digit", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\u00g9"}`, false, "fails"},
	{"u escape cut short", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\u00e"}`, false, "fails"},
	{"pair with a bad second half", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\ude4z"}`, false, "fails"},
	{"escaped closing quote", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x\"}`, false, "fails"},
	{"raw quote", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"b"}`, false, "fails"},
	{"raw line break", "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"a\nb\"}", false, "fails"},
	{"raw tab after an escape", "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\\n\tb\"}", false, "fails"},
	{"invalid UTF-8 after an escape", "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\\n\xff\"}", false, ""},
	{"UTF-8 cut by an escape", "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\xe4\xb8\\n\"}", false, ""},
	{"a member after an escaped delta", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\n","x":"y"}`, false, ""},
	{"escaped id", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m\"","delta":"x"}`, false, ""},
}

// The fast path decodes escapes as the general decoder does, and leaves
// to it every frame it cannot decode, so that the pipeline reports the
// same error as the decoder for an invalid escape.
func TestFastDeltaEscapes(t *testing.T) {
	var s deltaSlab
	for _, c := range escapeCases {
		t.Run(c.name, func(t *testing.T) {
			frame := []byte(c.frame)
			fast := s.fastDelta(frame)
			if (fast != nil) != c.fast {
				t.Fatalf("fast path %v, want %v", fast != nil, c.fast)
			}
			want, warns, werr := agui.DecodeOptions{Lenient: true}.DecodeEvent(frame)
			if fast != nil {
				if werr != nil || len(warns) > 0 {
					t.Fatalf("fast path took it; the decoder says %v %v", warns, werr)
				}
				if !reflect.DeepEqual(fast, want) {
					t.Fatalf("fast path %+v, decoder %+v", fast, want)
				}
				if fast.Delta != c.want {
					t.Fatalf("delta %q, want %q", fast.Delta, c.want)
				}
				return
			}
			if (werr != nil) != (c.want == "fails") {
				t.Fatalf("the decoder says %v", werr)
			}
			p, _ := NewPipeline()
			got, gerr := p.decode(frame)
			if werr != nil {
				if gerr == nil || gerr.Error() != werr.Error() {
					t.Fatalf("pipeline error %v, decoder %v", gerr, werr)
				}
				return
			}
			if gerr != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("pipeline %+v %v, decoder %+v", got, gerr, want)
			}
		})
	}
}

// The deltas the fast path hands out do not change as it decodes more,
// however their arena fills, and whatever a frame it gives up on halfway
// left behind.
func TestFastDeltasStayPut(t *testing.T) {
	var s deltaSlab
	var kept []string
	var want []string
	for i := range 2000 {
		text := strings.Repeat("é\\n\\\"", i%40) + strconv.Itoa(i)
		ev := s.fastDelta([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + text + `"}`))
		if ev == nil {
			t.Fatalf("delta %d not taken", i)
		}
		kept = append(kept, ev.Delta)
		want = append(want, strings.Repeat("é\n\"", i%40)+strconv.Itoa(i))
		// One the fast path writes most of before it finds the bad escape.
		if s.fastDelta([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"`+text+`\q"}`)) != nil {
			t.Fatal("an invalid escape taken")
		}
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("delta %d is now %q, was %q", i, kept[i], want[i])
		}
	}
}

// FuzzTextRun holds textRun, eight bytes at a time, to its definition,
// from every starting index: the run ends at the first quote, backslash or
// control byte, and is valid exactly when utf8.Valid says it is.
func FuzzTextRun(f *testing.F) {
	for _, s := range []string{"", "abc", "héllo — 世界 🙂", "a\\nb", "\xff\x1f", "0123456\"89", "!!!!!!!!\x00",
		"\x7f\x80\x9f\xa0 !#[]", "]]]]]]]]]]]]]]]]\\", "\xe4\xb8\\n", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "1234567\xf0\x9f\x99\x82"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range len(b) + 1 {
			end := i
			for end < len(b) && b[end] >= 0x20 && b[end] != '"' && b[end] != '\\' {
				end++
			}
			got, ok := textRun(b, i)
			if want := utf8.Valid(b[i:end]); ok != want {
				t.Fatalf("textRun(%q, %d) valid %v, utf8.Valid %v", b, i, ok, want)
			}
			if ok && got != end {
				t.Fatalf("textRun(%q, %d) = %d, want %d", b, i, got, end)
			}
		}
	})
}

// An escaped delta costs no allocation of its own: its event comes from
// the slab and its text is unescaped into the arena, as a plain one's is.
func TestEscapedDeltaAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	for _, delta := range []string{`Hello, world! `, `He said \"héllo\"\n\tC:\\tmp — 世界 🙂 `} {
		frame := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"` + delta + `"}`)
		var s deltaSlab
		// Per 640 deltas: ten slabs, and an arena for every 4 KiB of text.
		allocs := testing.AllocsPerRun(10, func() {
			for range 640 {
				if s.fastDelta(frame) == nil {
					t.Fatal("not taken")
				}
			}
		})
		if perDelta := allocs / 640; perDelta > 0.05 {
			t.Errorf("%s: %.3f allocations a delta", delta, perDelta)
		}
	}
}
