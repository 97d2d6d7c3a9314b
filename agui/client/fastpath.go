package client

import (
	"bytes"
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

// special marks the ASCII bytes that do not stand for themselves in a JSON
// string: '"', '\\' and the control bytes.
var special = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == '"' || c == '\\'
	}
	return t
}()

// text returns the string the JSON string body b (the bytes between the
// quotes) decodes to, as the general decoder decodes it, with false where
// b is not one whole valid string (an unescaped quote or control byte, an
// invalid or cut escape) or where it is not valid UTF-8, which the decoder
// repairs and the general way handles.
func (s *deltaSlab) text(b []byte) (string, bool) {
	i, ok := textRun(b)
	if !ok {
		return "", false
	}
	if i == len(b) {
		return s.intern(b), true
	}
	if b[i] != '\\' {
		return "", false
	}
	// Unescaping never lengthens: an escape is at least as long as the
	// UTF-8 it stands for, U+FFFD for a lone surrogate included, and
	// valid UTF-8 is copied as it is. len(b) bytes hold the result.
	var dst []byte
	inArena := len(b) <= arenaBytes/8
	if inArena {
		if cap(s.arena)-len(s.arena) < len(b) {
			s.arena = make([]byte, 0, arenaBytes)
		}
		dst = s.arena[len(s.arena):len(s.arena)]
	} else {
		dst = make([]byte, 0, len(b))
	}
	dst = append(dst, b[:i]...)
	if dst, ok = unescape(dst, b[i:]); !ok {
		return "", false
	}
	if inArena {
		s.arena = s.arena[:len(s.arena)+len(dst)]
	}
	return unsafe.String(unsafe.SliceData(dst), len(dst)), true
}

// textRun returns the length of the run of bytes that start b and stand
// for themselves in a JSON string (anything but '"', '\\' and control
// bytes), and whether that run is valid UTF-8; when it is not, the length
// is where the first invalid sequence starts. Escapes are ASCII, so a body
// is valid UTF-8 exactly when each run between its escapes is: a sequence
// cut by an escape is invalid in its run. The UTF-8 is checked in the same
// pass as the run is found, as utf8.Valid would check it.
func textRun(b []byte) (int, bool) {
	i := 0
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if special[c] {
				break
			}
			i++
			continue
		}
		n := seqLen(b[i:])
		if n == 0 {
			return i, false
		}
		i += n
	}
	return i, true
}

// seqLen returns the length of the valid UTF-8 sequence that starts b with
// a byte of 0x80 or above, or 0 when it is invalid (a stray continuation
// byte, an overlong form, a surrogate, beyond U+10FFFF, or cut short).
func seqLen(b []byte) int {
	c := b[0]
	// lo and hi bound the second byte, as the table of package utf8 does.
	lo, hi := byte(0x80), byte(0xBF)
	var n int
	switch {
	case c < 0xC2:
		return 0
	case c < 0xE0:
		n = 2
	case c < 0xF0:
		n = 3
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
	case c < 0xF5:
		n = 4
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
	default:
		return 0
	}
	if len(b) < n || b[1] < lo || b[1] > hi {
		return 0
	}
	for _, c := range b[2:n] {
		if c < 0x80 || c > 0xBF {
			return 0
		}
	}
	return n
}

// unescape appends the decoding of the JSON string body b to dst, within
// dst's capacity: false when b holds an unescaped quote or control byte,
// an escape that is invalid or cut short, or invalid UTF-8. As the general
// decoder, it decodes a \u escape of a surrogate pair to its one rune and
// a lone surrogate to U+FFFD.
func unescape(dst, b []byte) ([]byte, bool) {
	for i := 0; i < len(b); {
		if c := b[i]; c != '\\' {
			n, ok := textRun(b[i:])
			if n == 0 || !ok {
				return dst, false // a quote or control byte, or invalid UTF-8
			}
			dst = append(dst, b[i:i+n]...)
			i += n
			continue
		}
		if i+1 == len(b) {
			return dst, false
		}
		switch e := b[i+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(b[i+2:])
			if r < 0 {
				return dst, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
					if r2 := hex4(b[i+2:]); r2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return dst, false
		}
		i += 2
	}
	return dst, true
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
