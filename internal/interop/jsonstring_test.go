package interop

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/jsonpatch"
)

// stringCase is one string of TestStringEscapeParity. A case that starts in
// Go has the Go string and, as units, the JavaScript string a peer reads
// from it: invalid bytes are U+FFFD each, as []rune and our decoders read
// them. A case that starts in JavaScript (lone) has only units, which may
// hold lone surrogates, a thing no Go string can.
type stringCase struct {
	name  string
	in    string
	units []uint16
	lone  bool
}

func goString(name, s string) stringCase {
	return stringCase{name: name, in: s, units: utf16.Encode([]rune(s))}
}

// stringCases covers every class of character the escaper treats apart,
// alone, at every position of a short string (so every lane of the
// word-at-a-time scan, and its tail), and mixed in long strings.
func stringCases() []stringCase {
	var cs []stringCase
	add := func(name, s string) { cs = append(cs, goString(name, s)) }

	// Every byte alone: ASCII controls, printable ASCII, DEL, and the bytes
	// 0x80-0xFF, none of which is UTF-8 alone.
	for c := range 256 {
		add(fmt.Sprintf("byte %#02x", c), string([]byte{byte(c)}))
	}
	var printable strings.Builder
	for c := 0x20; c < 0x7f; c++ {
		printable.WriteByte(byte(c))
	}
	add("printable ASCII", printable.String())
	add("quote, backslash, slash", `"\/`)
	add("controls between text", "a\x00b\x01c\x1fd\x7fe\tf\ng\rh\bi\fj")

	// Two-byte, three-byte and four-byte UTF-8: single code points at the
	// edges, then whole ranges in one string.
	for _, r := range []rune{0x80, 0x9f, 0xa0, 0xad, 0xe9, 0xff, 0x100, 0x7ff,
		0x800, 0x2028, 0x2029, 0x200b, 0x3042, 0xd7ff, 0xe000, 0xfeff, 0xfffd, 0xfffe, 0xffff,
		0x10000, 0x1f600, 0xe0001, 0xfffff, 0x100000, 0x10ffff} {
		add(fmt.Sprintf("U+%04X", r), string(r))
		add(fmt.Sprintf("U+%04X between text", r), "<"+string(r)+">")
	}
	var two, three, four strings.Builder
	for r := rune(0x80); r < 0x800; r++ {
		two.WriteRune(r)
	}
	for r := rune(0x800); r < 0x10000; r++ {
		if !utf16.IsSurrogate(r) {
			three.WriteRune(r)
		}
	}
	for r := rune(0x10000); r <= 0x10ffff; r += 0x3f {
		four.WriteRune(r)
	}
	add("every code point U+0080-U+07FF", two.String())
	add("every code point U+0800-U+FFFF but surrogates", three.String())
	add("every 63rd code point U+10000-U+10FFFF", four.String())

	// Invalid UTF-8: what would encode a surrogate (WTF-8, CESU-8),
	// overlong forms, beyond U+10FFFF, truncated sequences, stray
	// continuation bytes; next to the valid neighbours.
	for _, s := range []string{
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xed\xa0\xbd\xed\xb8\x80", "\xed\x9f\xbf", "\xee\x80\x80",
		"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80", "\xfe\xff",
		"\xc3", "\xe6\x97", "\xf0\x9f\x98", "\xc3x", "\xe6\x97x", "\xf0\x9f\x98x", "\xf0\x9f\x98\"",
		"\x80", "\xbf", "\x80\x80\x80\x80\x80\x80\x80\x80\x80", "a\xffb\xfec", "é\xff日\xfe😀",
	} {
		add(fmt.Sprintf("bytes %x", s), s)
	}

	// Each kind of character at every position of strings of 1 to 24
	// bytes, alone among ASCII letters.
	specials := []string{`"`, `\`, "\x00", "\n", "\x1f", " ", "~", "\x7f", "é", "日", "😀", "\u2028", "\xff", "\xe6\x97"}
	for n := 1; n <= 24; n++ {
		for pos := range n {
			for _, sp := range specials {
				s := strings.Repeat("a", pos) + sp + strings.Repeat("z", n-pos-1)
				add(fmt.Sprintf("%q at %d of %d", sp, pos, n), s)
			}
		}
	}

	// Long strings mixed from all of the above, of lengths around the
	// word size and up to past 4 KiB.
	pieces := []string{"Hello", ", ", "world", "! ", " ", "\n", "\r\n", "\t", `"`, `\`, "/", "\x00", "\x1b[0m", "\x7f",
		"<&>", "é", "ß", "ça va", "日本語", "、", "😀", "👍🏽", "\u2028", "\u2029", "\ufeff", "\U0010ffff",
		"\xff", "\xed\xa0\x80", "\xe6\x97", "\xc0\xaf"}
	rng := rand.New(rand.NewPCG(21, 22))
	lengths := []int{100, 255, 256, 257, 1000, 4096, 5000}
	for n := 1; n <= 64; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		for k := range 3 {
			var b strings.Builder
			for b.Len() < n {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			add(fmt.Sprintf("mixed %d bytes #%d", n, k), b.String())
		}
	}
	add("4 KiB of ASCII", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 92))

	// Lone surrogates exist only in JavaScript strings.
	for _, u := range [][]uint16{
		{0xd800}, {0xdbff}, {0xdc00}, {0xdfff}, {'a', 0xd83d, 'b'}, {0xde00, 0xd83d},
		{0xd83d, 0xde00, 0xd83d}, {0xd800, 0xd800}, {'"', 0xdc00, '\n'},
	} {
		cs = append(cs, stringCase{name: fmt.Sprintf("JavaScript units %04x", u), units: u, lone: true})
	}
	return cs
}

// TestStringEscapeParity holds the one JSON string escaper
// (agui.AppendJSONString, which package jsonpatch writes with too) to
// JavaScript's JSON.stringify: for every case, one Node process for all of
// them, the bytes must be identical. For a Go string that is not UTF-8 the
// JavaScript string is the one a peer reads from our output. A string with
// lone surrogates, which only JavaScript has, must read (through our
// decoder, and jsonpatch's) as the string with U+FFFD for them, which we
// then write as JSON.stringify writes that.
func TestStringEscapeParity(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		msg := "node is not installed; TestStringEscapeParity compares with JSON.stringify in Node (Debian: apt-get install nodejs)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cases := stringCases()
	units := make([][]uint16, len(cases))
	for i, c := range cases {
		units[i] = c.units
	}
	in, err := json.Marshal(units)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "stringify.mjs")
	cmd.Dir = "node"
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var answers [][2]string
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatalf("node's answer: %v", err)
	}
	if len(answers) != len(cases) {
		t.Fatalf("%d answers for %d cases", len(answers), len(cases))
	}

	loneEscape := regexp.MustCompile(`\\ud[89a-f][0-9a-f]{2}`)
	failures := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if failures++; failures <= 20 {
			t.Errorf(format, args...)
		}
	}
	for i, c := range cases {
		theirs, err1 := hex.DecodeString(answers[i][0])
		wellFormed, err2 := hex.DecodeString(answers[i][1])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: node's answer is not hex: %v %v", c.name, err1, err2)
		}
		if c.lone {
			if !loneEscape.Match(theirs) {
				fail("%s: JSON.stringify wrote %q, no lone surrogate escape", c.name, theirs)
			}
		} else {
			if ours := agui.AppendJSONString(nil, c.in); !bytes.Equal(ours, theirs) {
				fail("%s: %q\n ours %q\ntheirs %q", c.name, c.in, ours, theirs)
			}
			if !bytes.Equal(theirs, wellFormed) {
				t.Fatalf("%s: a Go case has a lone surrogate", c.name)
			}
		}

		// What JSON.stringify wrote reads back, in our decoder and in
		// jsonpatch's, as the string that we write as it writes the same
		// string made well-formed.
		ev, err := agui.DecodeEvent([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":` + string(theirs) + `}`))
		if err != nil {
			fail("%s: decode %q: %v", c.name, theirs, err)
			continue
		}
		if again := agui.AppendJSONString(nil, ev.(*agui.TextMessageContent).Delta); !bytes.Equal(again, wellFormed) {
			fail("%s: decoded and encoded again %q, want %q", c.name, again, wellFormed)
		}
		doc, err := jsonpatch.Apply([]byte(`{"s":`+string(theirs)+`}`), agui.JSONPatch{})
		if want := `{"s":` + string(wellFormed) + `}`; err != nil || string(doc) != want {
			fail("%s: jsonpatch.Apply wrote %q, %v; want %q", c.name, doc, err, want)
		}
	}
	if failures > 20 {
		t.Errorf("... and %d more", failures-20)
	}
	t.Logf("%d strings, %d bytes of JSON from Node", len(cases), len(out))
}
