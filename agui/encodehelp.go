package agui

import (
	"errors"
	"fmt"
)

// This file holds the small pieces the generated encoders call: member keys,
// the check of a JSON Pointer (which the generated decoders call too) and the
// errors the generated encoders report inside an *EncodeError.

// appender is what every generated type can do; decodeDefinition returns it.
type appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// appendKey appends a member name, preceded by a comma unless it is the
// first member of the object being written.
func appendKey(dst []byte, key string) []byte {
	if len(dst) > 0 && dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	return append(dst, key...)
}

// validJSONPointer reports whether s is an RFC 6901 pointer: empty, or
// segments that each start with '/' and use '~' only as "~0" or "~1".
func validJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' {
			if i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1') {
				return false
			}
			i++
		}
	}
	return true
}

// Errors the generated encoder reports inside an *EncodeError.
var (
	errMissing = errors.New("required value is missing")
	errPointer = errors.New("not a JSON Pointer (RFC 6901)")
)

func errConst(want string) error { return fmt.Errorf("must be %q", want) }
func errEnum(got string) error   { return fmt.Errorf("unknown value %q", got) }
func errMinItems(n int) error    { return fmt.Errorf("needs at least %d item(s)", n) }
func errNilElement(list string, i int) error {
	return &EncodeError{Type: list + " list", Err: fmt.Errorf("element %d is nil", i)}
}
func errRange(v, lo, hi int64) error {
	return fmt.Errorf("%d is outside [%d, %d]", v, lo, hi)
}
