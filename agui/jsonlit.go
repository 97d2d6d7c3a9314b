package agui

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file converts validated JSON literals into Go values: string
// literals into their decoded bytes, number literals into exact integers.

// ---------------------------------------------------------------------------
// String decoding.
// ---------------------------------------------------------------------------

// appendUnquoted appends the decoded contents of the validated string literal
// lit (quotes included) to dst. Like encoding/json, invalid UTF-8 bytes and
// unpaired surrogate escapes become U+FFFD, so the result is always valid
// UTF-8.
func appendUnquoted(dst, lit []byte) []byte {
	s := lit[1 : len(lit)-1]
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			switch s[i+1] {
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
				r := rune(hex4(s[i+2:]))
				i += 6
				if utf16.IsSurrogate(r) {
					if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, rune(hex4(s[i+2:]))); dec != unicode.ReplacementChar {
							dst = utf8.AppendRune(dst, dec)
							i += 6
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, s[i+1])
			}
			i += 2
		case c < utf8.RuneSelf:
			// Copy the run of plain ASCII in one append.
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, unicode.ReplacementChar)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// quoted returns the decoded contents of the validated string literal lit,
// whose scan flags are given: a subslice of lit when nothing needs decoding,
// otherwise d.scratch (valid until the next use of scratch).
func (d *decoder) quoted(lit []byte, flags uint8) []byte {
	if flags&strEscaped == 0 && (flags&strNonASCII == 0 || utf8.Valid(lit)) {
		return lit[1 : len(lit)-1]
	}
	d.scratch = appendUnquoted(d.scratch[:0], lit)
	return d.scratch
}

// hex4 decodes four validated hex digits.
func hex4(b []byte) int {
	return unhex(b[0])<<12 | unhex(b[1])<<8 | unhex(b[2])<<4 | unhex(b[3])
}

// ---------------------------------------------------------------------------
// Integers.
// ---------------------------------------------------------------------------

// Results of numberToInt.
const (
	intOK       = iota // the value fits in int64
	intFraction        // not mathematically an integer
	intOverflow        // an integer, but outside int64
)

// numberToInt interprets a validated JSON number exactly, with no float
// rounding: 1, -3, 1.0, 1e3 and 1.5e1 are integers, 1.5 and 150e-2 are not.
// Huge exponents saturate instead of overflowing, so 1e999999999999 is
// reported as out of range, not wrapped.
func numberToInt(num []byte) (int64, int) {
	i := 0
	neg := num[0] == '-'
	if neg {
		i++
	}
	// Digits of the mantissa without the dot: [i, intEnd) and [fracStart, fracEnd).
	intStart := i
	for i < len(num) && isDigit(num[i]) {
		i++
	}
	intEnd := i
	fracStart, fracEnd := i, i
	if i < len(num) && num[i] == '.' {
		i++
		fracStart = i
		for i < len(num) && isDigit(num[i]) {
			i++
		}
		fracEnd = i
	}
	// Exponent, saturated well beyond anything that could matter: the input
	// length bounds the digit count, so ±1<<40 is "infinitely" large.
	const expCap = 1 << 40
	exp := int64(0)
	if i < len(num) {
		i++ // 'e' or 'E'
		expNeg := false
		if num[i] == '+' || num[i] == '-' {
			expNeg = num[i] == '-'
			i++
		}
		for ; i < len(num); i++ {
			if exp < expCap {
				exp = exp*10 + int64(num[i]-'0')
			}
		}
		if expNeg {
			exp = -exp
		}
	}

	// digit(k) indexes the concatenated mantissa digits.
	nInt, nFrac := intEnd-intStart, fracEnd-fracStart
	total := nInt + nFrac
	digit := func(k int) byte {
		if k < nInt {
			return num[intStart+k]
		}
		return num[fracStart+k-nInt]
	}
	// Trim leading and trailing zeros; the value is sig × 10^scale.
	first := 0
	for first < total && digit(first) == '0' {
		first++
	}
	if first == total {
		return 0, intOK // zero, whatever the exponent or sign
	}
	last := total
	for digit(last-1) == '0' {
		last--
	}
	scale := exp - int64(nFrac) + int64(total-last)
	if scale < 0 {
		return 0, intFraction // the last significant digit is non-zero
	}
	sigDigits := int64(last - first)
	if sigDigits+scale > 19 { // >= 10^19 > MaxInt64
		return 0, intOverflow
	}
	var u uint64 // < 10^19 fits in uint64
	for k := first; k < last; k++ {
		u = u*10 + uint64(digit(k)-'0')
	}
	for ; scale > 0; scale-- {
		u *= 10
	}
	if neg {
		if u > 1<<63 {
			return 0, intOverflow
		}
		return -int64(u), intOK // -1<<63 wraps to itself, which is correct
	}
	if u > 1<<63-1 {
		return 0, intOverflow
	}
	return int64(u), intOK
}
