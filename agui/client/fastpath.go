package client

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/agui-go/sdk/agui"
)

// The hot path. A streamed answer is almost entirely TEXT_MESSAGE_CONTENT
// frames of one exact shape, the one every encoder we know writes:
//
//	{"type":"TEXT_MESSAGE_CONTENT","messageId":"…","delta":"…"}
//
// or, as SDKs that stamp every event write it (the community Go SDK does
// by default), with a timestamp after the type:
//
//	{"type":"TEXT_MESSAGE_CONTENT","timestamp":1700000000000,"messageId":"…","delta":"…"}
//
// For a frame of exactly that shape whose message id needs no unescaping,
// whose delta is valid UTF-8 with only valid escapes, and whose timestamp
// is a plain run of at most 15 digits, the result of lenient decoding is
// known without running the general decoder: that event, with no warning.
// fastDelta builds it directly, and amortises its allocations: events and
// timestamps come from slabs of 64, delta text from a 4 KiB arena (an
// escaped delta is unescaped straight into it: text with line breaks,
// quotes or code in it is as common as text without), and a message id
// equal to the previous one reuses that string. Anything else (another
// member, another order, whitespace, an invalid escape, a control byte,
// invalid UTF-8, a sign, an exponent) goes the general way, which decodes
// it or reports the error. FuzzFastDelta checks that both ways agree on
// every frame the fast one accepts.
//
// The cost of amortising is retention: an event a program keeps holds its
// slab and arena (about 10 KiB) alive. Bytes of the arena are written once,
// before the string over them is handed out, and never again: a delta is
// as safe to keep as any string. A delta abandoned halfway (an invalid
// escape near its end) leaves its bytes past the arena's length, where the
// next delta overwrites them; no string covers them.

const (
	slabEvents = 64
	arenaBytes = 4 << 10
)

type deltaSlab struct {
	events []agui.TextMessageContent
	stamps []int64
	arena  []byte
	lastID string
}

var (
	deltaType = []byte(`{"type":"TEXT_MESSAGE_CONTENT",`)
	deltaTS   = []byte(`"timestamp":`)
	deltaID   = []byte(`"messageId":"`)
	deltaMid  = []byte(`","delta":"`)
)

// maxStampDigits bounds the timestamps the fast path reads: 15 digits stay
// below 2^53, the range the decoder accepts, so no range check is needed.
const maxStampDigits = 15

// stamp reads the digits of a timestamp and the comma after it, returning
// the value and what follows. A leading zero, a sign, a fraction or an
// exponent is not the fast shape.
func stamp(b []byte) (int64, []byte, bool) {
	var n int64
	i := 0
	for ; i < len(b) && i <= maxStampDigits && '0' <= b[i] && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if i == 0 || i > maxStampDigits || i == len(b) || b[i] != ',' || b[0] == '0' && i > 1 {
		return 0, nil, false
	}
	return n, b[i+1:], true
}

// plain reports whether the bytes of a JSON string body decode to
// themselves.
func plain(s []byte) bool {
	ascii := true
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return false
		}
		ascii = ascii && c < utf8.RuneSelf
	}
	return ascii || utf8.Valid(s)
}

// fastDelta returns the event frame decodes to, or nil when frame is not of
// the fast shape.
func (s *deltaSlab) fastDelta(frame []byte) *agui.TextMessageContent {
	rest, ok := bytes.CutPrefix(frame, deltaType)
	if !ok {
		return nil
	}
	var ts int64
	hasTS := false
	if after, ok := bytes.CutPrefix(rest, deltaTS); ok {
		if ts, rest, hasTS = stamp(after); !hasTS {
			return nil
		}
	}
	if rest, ok = bytes.CutPrefix(rest, deltaID); !ok {
		return nil
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 {
		return nil
	}
	id := rest[:i]
	rest, ok = bytes.CutPrefix(rest[i:], deltaMid)
	if !ok {
		return nil
	}
	// The delta runs to the closing `"}` that ends the frame; text refuses
	// an unescaped quote before it, so the member is the frame's last.
	n := len(rest)
	if n < 2 || rest[n-2] != '"' || rest[n-1] != '}' {
		return nil
	}
	// An id equal to the last one passed the check when it was stored.
	sameID := string(id) == s.lastID && s.lastID != ""
	if !sameID && !plain(id) {
		return nil
	}
	delta, ok := s.text(rest[:n-2])
	if !ok {
		return nil
	}
	if len(s.events) == 0 {
		s.events = make([]agui.TextMessageContent, slabEvents)
	}
	ev := &s.events[0]
	s.events = s.events[1:]
	if !sameID {
		s.lastID = string(id)
	}
	ev.MessageID = s.lastID
	ev.Delta = delta
	if hasTS {
		if len(s.stamps) == 0 {
			s.stamps = make([]int64, slabEvents)
		}
		s.stamps[0] = ts
		ev.Timestamp = &s.stamps[0]
		s.stamps = s.stamps[1:]
	}
	return ev
}

// text returns the string the JSON string body b (the bytes between the
// quotes) decodes to, as the general decoder decodes it, with false where
// b is not one whole valid string (an unescaped quote or control byte, an
// invalid or cut escape) or where it is not valid UTF-8, which the decoder
// repairs and the general way handles.
func (s *deltaSlab) text(b []byte) (string, bool) {
	i, ok := textRun(b, 0)
	if !ok {
		return "", false
	}
	if i == len(b) {
		return s.intern(b), true
	}
	// Unescaping never lengthens: an escape is at least as long as the
	// UTF-8 it stands for, U+FFFD for a lone surrogate included, and the
	// text between escapes is copied as it is. len(b) bytes hold the
	// result.
	var out []byte
	inArena := len(b) <= arenaBytes/8
	if inArena {
		if cap(s.arena)-len(s.arena) < len(b) {
			s.arena = make([]byte, 0, arenaBytes)
		}
		out = s.arena[len(s.arena) : len(s.arena)+len(b)]
	} else {
		out = make([]byte, len(b))
	}
	n, ok := unescape(out, b, i)
	if !ok {
		return "", false
	}
	if inArena {
		s.arena = s.arena[:len(s.arena)+n]
	}
	return unsafe.String(&out[0], n), true
}

// textRun returns the index of the first byte of b at or after i that does
// not stand for itself in a JSON string ('"', '\\' or a control byte), or
// len(b), and whether the text before it, from i, is valid UTF-8 (when it
// is not, the index is where the first invalid sequence starts). Escapes
// are ASCII, so a body is valid UTF-8 exactly when the text between its
// escapes is: a sequence cut by an escape is invalid in its run.
//
// It reads eight bytes at a time and goes straight to the first that is
// not printable ASCII (see marks); the last word of b is read whole, over
// bytes already passed, so a run's tail costs one word too.
func textRun(b []byte, i int) (int, bool) {
	for i < len(b) {
		j := i
		switch {
		case i+8 <= len(b):
			m := marks(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			j = i + bits.TrailingZeros64(m)>>3
		case len(b) >= 8:
			// The last word, over bytes already passed: drop their lanes.
			base := len(b) - 8
			shift := uint(i-base) * 8
			m := marks(binary.LittleEndian.Uint64(b[base:])) >> shift << shift
			if m == 0 {
				return len(b), true
			}
			j = base + bits.TrailingZeros64(m)>>3
		}
		c := b[j]
		if c >= utf8.RuneSelf {
			// Multi-byte characters come in runs (words of a script
			// other than Latin): read the run here.
			for {
				n := seqLen(b[j:])
				if n == 0 {
					return j, false
				}
				if j += n; j == len(b) || b[j] < utf8.RuneSelf {
					break
				}
			}
			i = j
			continue
		}
		if c < 0x20 || c == '"' || c == '\\' {
			return j, true
		}
		// Plain ASCII: a body shorter than a word is read a byte at a time,
		// and a borrow from a lane below i can mark one in the last word.
		i = j + 1
	}
	return len(b), true
}

// Masks for marks: a byte of ones in every lane, and each lane's top bit.
const (
	lanes    = 0x0101010101010101
	laneTops = 0x8080808080808080
)

// marks sets the top bit of each lane (byte, the first in the lowest) of w
// that is not printable ASCII other than '"' and '\\': a lane below 0x20
// borrows when 0x20 is subtracted; a lane equal to '"' or '\\' is zero
// when XORed with it, and borrows when one is subtracted; a lane of 0x80 or
// above has the top bit itself. A borrow can also mark lanes above the one
// it came from, never below, so the lowest marked lane is always the first
// such byte of w.
func marks(w uint64) uint64 {
	quote := w ^ ('"' * lanes)
	slash := w ^ ('\\' * lanes)
	return (w | (w-0x20*lanes)&^w | (quote-lanes)&^quote | (slash-lanes)&^slash) & laneTops
}

// utf8Lead describes each byte of 0x80 and above as the first byte of a
// UTF-8 sequence: its length (0: no sequence starts so) and the range of
// the second byte, which excludes overlong forms, surrogates and runes
// beyond U+10FFFF (the table of package utf8, in another form).
var utf8Lead = func() (t [256]struct{ n, lo, hi uint8 }) {
	for c := 0xC2; c < 0xF5; c++ {
		e := &t[c]
		e.lo, e.hi = 0x80, 0xBF
		switch {
		case c < 0xE0:
			e.n = 2
		case c < 0xF0:
			e.n = 3
		default:
			e.n = 4
		}
	}
	t[0xE0].lo, t[0xED].hi, t[0xF0].lo, t[0xF4].hi = 0xA0, 0x9F, 0x90, 0x8F
	return t
}()

// seqLen returns the length of the valid UTF-8 sequence that starts b, whose
// first byte is 0x80 or above, or 0 when it is invalid or cut short.
func seqLen(b []byte) int {
	e := utf8Lead[b[0]]
	n := int(e.n)
	if n == 0 || len(b) < n || b[1] < e.lo || b[1] > e.hi {
		return 0
	}
	if n > 2 && (b[2] < 0x80 || b[2] > 0xBF) || n > 3 && (b[3] < 0x80 || b[3] > 0xBF) {
		return 0
	}
	return n
}

// plainByte marks the bytes that stand for themselves in a JSON string
// and are a character alone: printable ASCII other than '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// shortEscape maps the byte after a backslash to what the escape stands
// for, for every escape but \u; 0 marks the others, \u among them.
var shortEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescape writes the decoding of the JSON string body b to the start of
// out, which is at least len(b) long, and returns its length, where b[i]
// is the first byte of b that does not stand for itself and b[:i] is
// valid UTF-8: false when b holds an unescaped quote or control byte, an
// escape that is invalid or cut short, or invalid UTF-8. As the general
// decoder, it decodes a \u escape of a surrogate pair to its one rune and
// a lone surrogate to U+FFFD. It goes a byte (or a character) at a time,
// copying as it checks: text with escapes has them every few bytes, too
// close together for textRun's words to pay.
func unescape(out, b []byte, i int) (int, bool) {
	n := copy(out, b[:i])
	for i < len(b) {
		c := b[i]
		if plainByte[c] {
			out[n] = c
			n++
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			k := seqLen(b[i:])
			if k == 0 {
				return 0, false
			}
			if i+4 <= len(b) {
				// Four bytes at once, the sequence and what follows it,
				// which the next bytes overwrite (n <= i).
				binary.LittleEndian.PutUint32(out[n:], binary.LittleEndian.Uint32(b[i:]))
			} else {
				copy(out[n:], b[i:i+k])
			}
			n += k
			i += k
			continue
		}
		if c != '\\' || i+1 == len(b) {
			return 0, false // a quote or control byte, or a cut escape
		}
		if c := shortEscape[b[i+1]]; c != 0 {
			out[n] = c
			n++
			i += 2
		} else if b[i+1] == 'u' {
			r := hex4(b[i+2:])
			if r < 0 {
				return 0, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, hex4(b[i+2:])); dec != utf8.RuneError {
						r = dec
						i += 6
					}
				}
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
				}
			}
			n += utf8.EncodeRune(out[n:], r)
		} else {
			return 0, false
		}
	}
	return n, true
}

// hex4 decodes the four hex digits that start b, or returns -1 when b is
// shorter or they are not all hex digits.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// intern copies b into the arena and returns it as a string.
func (s *deltaSlab) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaBytes/8 {
		return string(b)
	}
	if cap(s.arena)-len(s.arena) < len(b) {
		s.arena = make([]byte, 0, arenaBytes)
	}
	start := len(s.arena)
	s.arena = append(s.arena, b...)
	return unsafe.String(&s.arena[start], len(b))
}
