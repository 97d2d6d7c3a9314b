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

// safeByte reports the bytes AppendJSONString copies verbatim: printable ASCII
// and DEL, except '"' and '\\'. Bytes >= 0x80 are false so they take the
// UTF-8 check; everything else false needs an escape.
var safeByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendJSONString appends s to dst as a JSON string literal, quotes
// included, byte for byte as JavaScript's JSON.stringify writes the same
// text: only '"', '\\' and the control characters U+0000–U+001F are escaped
// (\b \f \n \r \t, the others as \u00xx in lower-case hex). Unlike
// encoding/json it does not escape <, >, & or U+2028/U+2029, which
// JSON.stringify leaves alone and SSE does not treat as line breaks.
//
// A JavaScript string may hold a lone surrogate, which JSON.stringify writes
// as \udxxx; a Go string cannot: it holds bytes, and the bytes that would
// encode a surrogate (ED A0 80 for U+D800) are not UTF-8, and this
// package's decoder reads a lone surrogate escape as U+FFFD. Invalid UTF-8
// cannot be carried by JSON text, so each byte that is not part of a valid
// UTF-8 sequence becomes U+FFFD, as the decoder (and encoding/json) read
// such a byte, written as the character itself, as JSON.stringify writes
// it. The output is thus always what JSON.stringify makes of the string a
// peer reads from it, and encoding the decoded string again gives the same
// bytes. (encoding/json writes the escape \ufffd instead; the value read is
// the same.)
//
// It is the one JSON string escaper of the module: the generated AppendJSON
// methods call it, and so do package jsonpatch and anyone who writes JSON
// that must match the codec's (a CUSTOM event's value, a raw member). It
// lives here, exported, because this package imports nothing else of the
// module (its hand-written files are compiled beside generated code in
// other modules by the generator's tests), and the packages that need it
// already import this one.
//
// Runs of safe bytes are found eight at a time (see skipSafe) and copied
// with a single append; it allocates only if dst must grow.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // first byte not yet copied
	for i := 0; i < len(s); {
		c := s[i]
		if safeByte[c] {
			// A lone safe byte (a space between words of another script)
			// is not worth the word scan's call.
			if i++; i < len(s) && safeByte[s[i]] {
				i = skipSafe(s, i+1)
			}
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\uFFFD"...)
				i++
				start = i
				continue
			}
			i += size // valid multi-byte rune (U+2028 included): keep raw
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xF])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Masks for skipSafe: a byte of ones in every lane, and each lane's top bit.
const (
	lanes    = 0x0101010101010101
	laneTops = 0x8080808080808080
)

// skipSafe returns the index of the first byte of s at or after i that
// AppendJSONString cannot copy verbatim, or len(s); in the last word (below) it
// may stop early at a safe byte.
// It tests eight bytes at a time (see unsafeLanes); the last word of s is
// read whole even when it overlaps bytes already known safe, so a tail
// costs one test rather than one per byte.
func skipSafe(s string, i int) int {
	if len(s) < 8 {
		for i < len(s) && safeByte[s[i]] {
			i++
		}
		return i
	}
	for ; i+8 <= len(s); i += 8 {
		if m := unsafeLanes(word(s, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	if i == len(s) {
		return i
	}
	// The lanes below i are dropped: they may hold unsafe bytes before the
	// caller's safe run, whose borrows can also mark a safe lane at or
	// after i. Such a lane is returned as if unsafe; AppendJSONString's table
	// check then finds it safe and goes on from the next byte.
	last := len(s) - 8
	shift := uint(i-last) * 8
	if m := unsafeLanes(word(s, last)) >> shift << shift; m != 0 {
		return last + bits.TrailingZeros64(m)>>3
	}
	return len(s)
}

// word is the eight bytes of s from i, the first in the lowest lane; the
// compiler combines the loads into one.
func word(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// unsafeLanes sets the top bit of each lane (byte) of w that AppendJSONString
// cannot copy verbatim: below 0x20 (subtracting 0x20 borrows), '"' or '\\'
// (the lane's difference from it is zero, and subtracting one borrows), or
// 0x80 and above (the top bit itself). A borrow also marks lanes above the
// one it came from, but only above a lane that is really unsafe, so the
// lowest marked lane is always the first unsafe byte and a word with none
// marked is safe whole.
func unsafeLanes(w uint64) uint64 {
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
