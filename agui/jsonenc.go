package agui

import (
	"bytes"
	"errors"
	"math/bits"
	"unicode/utf8"
)

// This file is the hand-written half of encoding that generated AppendJSON
// methods call: JSON string quoting and the validation/compaction of
// user-supplied json.RawMessage values.
//
// Output is meant for an SSE "data:" line, so it must never contain a raw
// CR or LF, and it should match what a JavaScript peer's JSON.stringify
// produces for the same data, so that byte-level comparisons with the
// reference implementation (and golden files) line up.

const lowerHex = "0123456789abcdef"

// escapeOf is the escape of each byte AppendJSONString escapes: the letter
// after the backslash ('"', '\\', b, f, n, r, t), or 'u' for \u00xx. The
// other bytes are 0: they are copied, after a UTF-8 check for those above
// 0x7F.
var escapeOf = func() (t [256]byte) {
	for c := range 0x20 {
		t[c] = 'u'
	}
	t['"'], t['\\'] = '"', '\\'
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = 'b', 'f', 'n', 'r', 't'
	return t
}()

// AppendJSONString appends s to dst as a JSON string literal, quotes
// included, byte for byte as JavaScript's JSON.stringify writes the same
// text: only '"', '\\' and the control characters U+0000–U+001F are escaped
// (\b \f \n \r \t, the others as \u00xx in lower-case hex). Unlike
// encoding/json it does not escape <, >, & or U+2028/U+2029, which
// JSON.stringify leaves alone and SSE does not treat as line breaks.
//
// JSON.stringify writes a lone surrogate of a JavaScript string as \udxxx.
// A Go string holds bytes, not UTF-16, and has no lone surrogates: the bytes
// that would encode one (ED A0 80 for U+D800) are not UTF-8, and this
// package's decoder reads a lone surrogate escape as U+FFFD. So \udxxx is
// never written. Instead each byte that is not part of a valid UTF-8
// sequence becomes U+FFFD, which is how the decoder and encoding/json read
// such a byte, and U+FFFD is written as the character itself, as
// JSON.stringify writes it. The output is thus what JSON.stringify makes of
// the string a peer reads from it, and encoding again what the decoder
// reads gives the same bytes. (encoding/json writes the escape \ufffd,
// which reads as the same string.)
//
// It is the one JSON string escaper of the module: the generated AppendJSON
// methods call it, and so do package jsonpatch and anyone who writes JSON
// that must match the codec's (a CUSTOM event's value, a raw member). It
// lives here, exported, because this package imports nothing else of the
// module (its hand-written files are compiled beside generated code in
// other modules by the generator's tests), and the packages that need it
// already import this one.
//
// The work is in finding the bytes to write otherwise, which are rare. They
// are looked for eight bytes at a time (see verbatim), and a string of 4 to
// 16 bytes, the usual delta or id, is tested in line with two words that
// overlap in its middle; a run with nothing to change is copied with one
// append, and multi-byte characters are checked where the scan meets them,
// without a second pass. It allocates only if dst must grow.
func AppendJSONString(dst []byte, s string) []byte {
	var i int
	switch n := len(s); {
	case n >= 8 && n <= 16 && stopLanes(word(s))|stopLanes(word(s[n-8:])) == 0:
		i = n
	case n >= 4 && n < 8 && stopLanes(uint64(word32(s))|uint64(word32(s[n-4:]))<<32) == 0:
		i = n
	default:
		i = verbatim(s, 0)
	}
	dst = append(dst, '"')
	dst = append(dst, s[:i]...)
	for i < len(s) {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			dst = append(dst, "\uFFFD"...)
		case escapeOf[c] != 'u':
			dst = append(dst, '\\', escapeOf[c])
		default:
			dst = append(dst, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xF])
		}
		// What follows an escape is often short (\r\n, "\"a\":") and is
		// cheaper to walk than to scan; verbatim takes over after four
		// bytes, or at a character above 0x7F.
		i++
		j := i
		for end := min(len(s), i+4); j < end && s[j] < utf8.RuneSelf && escapeOf[s[j]] == 0; j++ {
		}
		if j < len(s) && escapeOf[s[j]] == 0 {
			j = verbatim(s, j)
		}
		if j > i {
			dst = append(dst, s[i:j]...)
		}
		i = j
	}
	return append(dst, '"')
}

// Masks for the word-at-a-time scan: a one in each lane (byte), and each
// lane's top bit.
const (
	lanes    = 0x0101010101010101
	laneTops = 0x8080808080808080
)

// verbatim returns the index of the first byte of s at or after i that
// AppendJSONString does not copy as it is, one to escape or one that is not
// part of valid UTF-8, or len(s).
//
// ASCII is tested eight bytes at a time (see stopLanes). A byte above 0x7F
// stops the word scan, and the characters from there are decoded one by
// one for as long as they are not ASCII, so that text in other scripts does
// not pay a word test per character. Past the last whole word the scan
// reads the last eight bytes of s, overlapping bytes already passed, with
// the lanes before i made harmless, so that a tail costs one test rather
// than one per byte; only a string shorter than a word is walked byte by
// byte.
func verbatim(s string, i int) int {
	for i < len(s) {
		var m uint64
		t := s[i:]
		for ; len(t) >= 8; t = t[8:] {
			if m = stopLanes(word(t)); m != 0 {
				break
			}
		}
		i = len(s) - len(t)
		if m != 0 {
			i += bits.TrailingZeros64(m) >> 3
		} else if i == len(s) {
			return i
		} else if len(s) >= 8 {
			// The lanes before i may hold bytes that stop the scan, which
			// are behind us; they become 'a'.
			last := len(s) - 8
			keep := ^uint64(0) << (uint(i-last) * 8)
			m := stopLanes(word(s[last:])&keep | 'a'*lanes&^keep)
			if m == 0 {
				return len(s)
			}
			i = last + bits.TrailingZeros64(m)>>3
		} else if c := s[i]; c < utf8.RuneSelf && escapeOf[c] == 0 {
			i++
			continue
		}
		// s[i] is to be escaped, or above 0x7F.
		for i < len(s) && s[i] >= utf8.RuneSelf {
			// The usual forms are checked in line, since the call costs
			// more than the check: two bytes (Latin, Greek, Cyrillic…),
			// three after a lead byte that allows any continuation (most
			// of the BMP, CJK among it), four after F0 9F (emoji). The
			// others go to the decoder.
			switch c := s[i]; {
			case c >= 0xc2 && c < 0xe0 && i+1 < len(s) && s[i+1]&0xc0 == 0x80:
				i += 2
				continue
			case c >= 0xe1 && c < 0xf0 && c != 0xed && i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80:
				i += 3
				continue
			case c == 0xf0 && i+3 < len(s) && s[i+1] == 0x9f && s[i+2]&0xc0 == 0x80 && s[i+3]&0xc0 == 0x80:
				i += 4
				continue
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			if n == 1 {
				return i
			}
			i += n
		}
		if i < len(s) && escapeOf[s[i]] != 0 {
			return i
		}
	}
	return i
}

// word is the first eight bytes of s, the first in the lowest lane. The
// slice of constant length lets the compiler drop the bounds checks of the
// eight loads and combine them into one.
func word(s string) uint64 {
	b := s[:8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// word32 is word for the first four bytes of s.
func word32(s string) uint32 {
	b := s[:4]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// stopLanes sets the top bit of the lane (byte) of w that holds the first
// byte verbatim stops at: one below 0x20 (subtracting 0x20 borrows), '"' or
// '\\' (the lane's difference from it is zero, and subtracting one
// borrows), or one above 0x7F (the top bit itself). A borrow may also mark
// lanes above the one it came from, but only above a lane that is really
// marked, so the lowest marked lane is always right, and a word with none
// marked holds no byte to stop at.
func stopLanes(w uint64) uint64 {
	quote := w ^ ('"' * lanes)
	slash := w ^ ('\\' * lanes)
	return (w | (w - 0x20*lanes) | (quote-lanes)&^quote | (slash-lanes)&^slash) & laneTops
}

// appendRaw appends a caller-supplied JSON value (a json.RawMessage field)
// after checking that it is exactly one valid JSON value, with insignificant
// whitespace removed. Whitespace must go because the result is embedded in
// a single SSE "data:" line, where a raw newline would end the event.
// Everything else (number spelling, member order, duplicate members, string
// escapes, even invalid UTF-8 inside strings, which encoding/json.Valid also
// accepts) is kept byte for byte: the SDK transports these values, it does
// not reinterpret them.
//
// Already-compact input, the common case, is validated and copied with one
// append. On error dst is returned unchanged along with a plain error
// ("invalid JSON at offset 3: unexpected '}'") for the caller to wrap with
// encodeError.
func appendRaw(dst, raw []byte) ([]byte, error) {
	start := skipSpace(raw, 0)
	end, ws, serr := scanValue(raw, start, maxDepth)
	if serr != nil {
		return dst, serr
	}
	if rest := skipSpace(raw, end); rest < len(raw) {
		return dst, unexpected(raw, rest, " after the value")
	}
	v := raw[start:end]
	if !ws {
		return append(dst, v...), nil
	}
	return appendCompact(dst, v), nil
}

// appendRawObject is appendRaw for values that must be JSON objects
// (metadata, open objects).
func appendRawObject(dst, raw []byte) ([]byte, error) {
	out, err := appendRaw(dst, raw)
	if err != nil {
		return dst, err
	}
	if c := out[len(dst)]; c != '{' {
		return dst, errors.New("must be a JSON object, got " + jsonKind(c))
	}
	return out, nil
}

// appendRawNotNull is appendRaw for values that may be any JSON except null.
func appendRawNotNull(dst, raw []byte) ([]byte, error) {
	out, err := appendRaw(dst, raw)
	if err != nil {
		return dst, err
	}
	if out[len(dst)] == 'n' {
		return dst, errors.New("must not be null")
	}
	return out, nil
}

// appendCompact appends the validated JSON value v without insignificant
// whitespace, copying the runs between whitespace in single appends.
func appendCompact(dst, v []byte) []byte {
	run := 0 // first byte not yet copied
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"':
			i = stringEnd(v, i)
		case isSpace(c):
			dst = append(dst, v[run:i]...)
			i = skipSpace(v, i)
			run = i
		default:
			i++
		}
	}
	return append(dst, v[run:]...)
}

// stringEnd returns the index just past the validated string literal whose
// opening quote is v[i]. In valid JSON a backslash only starts an escape, so
// a quote is the closing one exactly when an even number of backslashes
// precedes it.
func stringEnd(v []byte, i int) int {
	for i++; ; {
		q := bytes.IndexByte(v[i:], '"') + i
		n := 0
		for k := q - 1; k >= i && v[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}
