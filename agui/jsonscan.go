package agui

import (
	"strconv"
	"unicode/utf8"
)

// This file holds the validating JSON scanner, shared by the decoder and
// appendRaw. It is iterative, bounded by maxDepth, and never indexes past its
// input.

// maxDepth is the deepest nesting of objects and arrays accepted anywhere.
// It equals encoding/json's limit, so a document is accepted here exactly when
// json.Valid accepts it.
const maxDepth = 10000

// ---------------------------------------------------------------------------
// Scanner: validation of one JSON value, shared by the decoder and appendRaw.
// ---------------------------------------------------------------------------

// isSpace reports JSON insignificant whitespace (RFC 8259 ws).
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// String byte classes for scanning: most bytes need no attention at all, so a
// table lookup per byte keeps the hot loop branch-light.
const (
	strPlain   = 0 // printable ASCII other than '"' and '\\'
	strHigh    = 1 // 0x80..0xFF: part of a multi-byte (or invalid) sequence
	strSpecial = 2 // '"', '\\' or a control character
)

var strClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c < 0x20 || c == '"' || c == '\\':
			t[c] = strSpecial
		case c >= 0x80:
			t[c] = strHigh
		}
	}
	return t
}()

// Flags reported by scanString about the string it validated.
const (
	strEscaped  = 1 << iota // contains at least one backslash escape
	strNonASCII             // contains a byte >= 0x80 (maybe invalid UTF-8)
)

// describe names the byte at data[i] for a syntax error message: a quoted
// character when it is valid UTF-8, its hex value otherwise.
func describe(data []byte, i int) string {
	if i >= len(data) {
		return "end of input"
	}
	r, size := utf8.DecodeRune(data[i:])
	if r == utf8.RuneError && size <= 1 {
		return "byte 0x" + strconv.FormatUint(uint64(data[i])|0x100, 16)[1:]
	}
	return strconv.QuoteRune(r)
}

// unexpected builds the syntax error for the byte at data[i].
func unexpected(data []byte, i int, context string) *syntaxError {
	return &syntaxError{offset: i, msg: "unexpected " + describe(data, i) + context}
}

// scanString validates the string literal whose opening quote is data[i] and
// returns the index just past its closing quote. Like encoding/json it does
// not require valid UTF-8 (decoding replaces invalid bytes with U+FFFD).
func scanString(data []byte, i int) (end int, flags uint8, err *syntaxError) {
	j := i + 1
	for {
		for j < len(data) {
			switch strClass[data[j]] {
			case strPlain:
				j++
				continue
			case strHigh:
				flags |= strNonASCII
				j++
				continue
			}
			break
		}
		if j >= len(data) {
			return j, flags, &syntaxError{offset: j, msg: "unexpected end of input in string"}
		}
		switch c := data[j]; c {
		case '"':
			return j + 1, flags, nil
		case '\\':
			flags |= strEscaped
			if j+1 >= len(data) {
				return j + 1, flags, &syntaxError{offset: j + 1, msg: "unexpected end of input in string"}
			}
			switch data[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				for k := j + 2; k < j+6; k++ {
					if k >= len(data) {
						return k, flags, &syntaxError{offset: k, msg: "unexpected end of input in string"}
					}
					if unhex(data[k]) < 0 {
						return k, flags, unexpected(data, k, " in \\u escape")
					}
				}
				j += 6
			default:
				return j + 1, flags, unexpected(data, j+1, " after '\\' in string")
			}
		default: // control character
			const upperHex = "0123456789ABCDEF"
			return j, flags, &syntaxError{offset: j, msg: "unexpected control character U+00" +
				upperHex[c>>4:c>>4+1] + upperHex[c&0xF:c&0xF+1] + " in string"}
		}
	}
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber validates the number that starts at data[i] ('-' or a digit) and
// returns the index just past it.
func scanNumber(data []byte, i int) (int, *syntaxError) {
	j := i
	if data[j] == '-' {
		j++
	}
	switch {
	case j >= len(data):
		return j, &syntaxError{offset: j, msg: "unexpected end of input in number"}
	case data[j] == '0':
		j++
		if j < len(data) && isDigit(data[j]) {
			return j, unexpected(data, j, " in number (leading zeros are not allowed)")
		}
	case isDigit(data[j]):
		for j < len(data) && isDigit(data[j]) {
			j++
		}
	default:
		return j, unexpected(data, j, " in number")
	}
	if j < len(data) && data[j] == '.' {
		j++
		if j >= len(data) || !isDigit(data[j]) {
			return j, unexpected(data, j, " in number")
		}
		for j < len(data) && isDigit(data[j]) {
			j++
		}
	}
	if j < len(data) && (data[j] == 'e' || data[j] == 'E') {
		j++
		if j < len(data) && (data[j] == '+' || data[j] == '-') {
			j++
		}
		if j >= len(data) || !isDigit(data[j]) {
			return j, unexpected(data, j, " in number")
		}
		for j < len(data) && isDigit(data[j]) {
			j++
		}
	}
	return j, nil
}

// scanLiteral checks that data[i:] starts with lit ("true", "false", "null").
func scanLiteral(data []byte, i int, lit string) (int, *syntaxError) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(data) || data[i+k] != lit[k] {
			return i + k, unexpected(data, i+k, " in literal "+lit)
		}
	}
	return i + len(lit), nil
}

// nesting records, per open container, whether it is an object. The first 64
// levels live in a word on the stack; deeper (rare, usually hostile) input
// spills into a heap bitset sized for maxDepth.
type nesting struct {
	low  uint64
	high []uint64
}

func (n *nesting) set(depth int, obj bool) {
	if depth < 64 {
		if obj {
			n.low |= 1 << uint(depth)
		} else {
			n.low &^= 1 << uint(depth)
		}
		return
	}
	if n.high == nil {
		n.high = make([]uint64, maxDepth/64+1)
	}
	w, b := depth/64, uint(depth%64)
	if obj {
		n.high[w] |= 1 << b
	} else {
		n.high[w] &^= 1 << b
	}
}

func (n *nesting) isObj(depth int) bool {
	if depth < 64 {
		return n.low&(1<<uint(depth)) != 0
	}
	return n.high[depth/64]&(1<<uint(depth%64)) != 0
}

// depthError is the error for opening a container beyond the nesting limit.
func depthError(i int) *syntaxError {
	return &syntaxError{offset: i, msg: "exceeded maximum nesting depth of " + strconv.Itoa(maxDepth)}
}

// scanMemberName validates `ws "name" ws :` starting at data[i] and returns
// the index just past the colon.
func scanMemberName(data []byte, i int, ws bool) (int, bool, *syntaxError) {
	j := skipSpace(data, i)
	ws = ws || j != i
	if j >= len(data) || data[j] != '"' {
		return j, ws, unexpected(data, j, ", expected string key")
	}
	j, _, err := scanString(data, j)
	if err != nil {
		return j, ws, err
	}
	k := skipSpace(data, j)
	ws = ws || k != j
	if k >= len(data) || data[k] != ':' {
		return k, ws, unexpected(data, k, ", expected ':'")
	}
	return k + 1, ws, nil
}

// scanValue validates the one JSON value that starts at data[i] (leading
// whitespace allowed) and returns the index just past it. ws reports whether
// any whitespace was seen before or inside the value outside strings, which
// lets appendRaw copy already-compact input in one go. At most depthLimit
// levels of nesting are accepted.
//
// The scanner is iterative (an explicit bitset instead of recursion), so
// hostile nesting costs neither goroutine stack nor time beyond one pass.
func scanValue(data []byte, i, depthLimit int) (end int, ws bool, err *syntaxError) {
	if depthLimit > maxDepth {
		depthLimit = maxDepth
	}
	var stack nesting
	depth := 0
	n := len(data)
value:
	for {
		// A value is expected at i.
		if j := skipSpace(data, i); j != i {
			ws, i = true, j
		}
		if i >= n {
			return i, ws, unexpected(data, i, "")
		}
		switch c := data[i]; c {
		case '{', '[':
			if depth >= depthLimit {
				return i, ws, depthError(i)
			}
			i++
			if j := skipSpace(data, i); j != i {
				ws, i = true, j
			}
			if i < n && (c == '{' && data[i] == '}' || c == '[' && data[i] == ']') {
				i++ // empty container: a complete value
				break
			}
			stack.set(depth, c == '{')
			depth++
			if c == '{' {
				if i, ws, err = scanMemberName(data, i, ws); err != nil {
					return i, ws, err
				}
			}
			continue value
		case '"':
			if i, _, err = scanString(data, i); err != nil {
				return i, ws, err
			}
		case 't':
			if i, err = scanLiteral(data, i, "true"); err != nil {
				return i, ws, err
			}
		case 'f':
			if i, err = scanLiteral(data, i, "false"); err != nil {
				return i, ws, err
			}
		case 'n':
			if i, err = scanLiteral(data, i, "null"); err != nil {
				return i, ws, err
			}
		default:
			if c != '-' && !isDigit(c) {
				return i, ws, unexpected(data, i, "")
			}
			if i, err = scanNumber(data, i); err != nil {
				return i, ws, err
			}
		}

		// A value just ended: close containers until one continues.
		for {
			if depth == 0 {
				return i, ws, nil
			}
			if j := skipSpace(data, i); j != i {
				ws, i = true, j
			}
			obj := stack.isObj(depth - 1)
			switch {
			case i < n && data[i] == ',':
				i++
				if obj {
					if i, ws, err = scanMemberName(data, i, ws); err != nil {
						return i, ws, err
					}
				}
				continue value
			case i < n && obj && data[i] == '}', i < n && !obj && data[i] == ']':
				i++
				depth--
			case obj:
				return i, ws, unexpected(data, i, ", expected ',' or '}'")
			default:
				return i, ws, unexpected(data, i, ", expected ',' or ']'")
			}
		}
	}
}
