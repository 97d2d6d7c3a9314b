package copilotkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// errEnvelope is a body that is not a JSON object.
var errEnvelope = errors.New("it is not a JSON object")

// splitEnvelope reads the members of a single-route envelope, a JSON
// object, without decoding their values: it returns the raw JSON of
// "method", "params" and "body" (nil when absent; the last one when a
// member comes twice, and names matched without regard to case, as
// encoding/json reads them). Every other member is skipped.
//
// encoding/json would scan the body, the run's whole input, byte by byte
// only to hand it on; this steps over its strings and brackets. The values
// it returns are read strictly afterwards: method and params by
// encoding/json, the body by the agent's handler, so a malformed value
// inside the body is refused there.
func splitEnvelope(d []byte) (method, params, body []byte, err error) {
	i := skipSpace(d, 0)
	if bytes.HasPrefix(d[i:], []byte("null")) && trailing(d, i+4) == nil {
		return nil, nil, nil, nil // as encoding/json reads it: no members
	}
	if i >= len(d) || d[i] != '{' {
		return nil, nil, nil, errEnvelope
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return nil, nil, nil, trailing(d, i+1)
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return nil, nil, nil, errors.New("a member's name is not a string")
		}
		end, err := skipString(d, i)
		if err != nil {
			return nil, nil, nil, err
		}
		name, err := memberName(d[i:end])
		if err != nil {
			return nil, nil, nil, err
		}
		i = skipSpace(d, end)
		if i >= len(d) || d[i] != ':' {
			return nil, nil, nil, errors.New("a member's name is not followed by a colon")
		}
		i = skipSpace(d, i+1)
		end, err = skipValue(d, i)
		if err != nil {
			return nil, nil, nil, err
		}
		switch v := d[i:end]; {
		case strings.EqualFold(name, "method"):
			method = v
		case strings.EqualFold(name, "params"):
			params = v
		case strings.EqualFold(name, "body"):
			body = v
		}
		i = skipSpace(d, end)
		switch {
		case i < len(d) && d[i] == ',':
			i = skipSpace(d, i+1)
		case i < len(d) && d[i] == '}':
			return method, params, body, trailing(d, i+1)
		default:
			return nil, nil, nil, errors.New("a member is not followed by a comma or the object's end")
		}
	}
}

// trailing fails when anything but space follows the object.
func trailing(d []byte, i int) error {
	if skipSpace(d, i) != len(d) {
		return errors.New("something follows the object")
	}
	return nil
}

func memberName(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", err
	}
	return s, nil
}

func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// skipString returns where the string starting at d[i] (a quote) ends.
func skipString(d []byte, i int) (int, error) {
	for i++; ; {
		k := bytes.IndexByte(d[i:], '"')
		if k < 0 {
			return 0, errors.New("a string does not end")
		}
		end := i + k
		n := 0 // backslashes before the quote: an odd number escapes it
		for j := end - 1; j >= i && d[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return end + 1, nil
		}
		i = end + 1
	}
}

// skipValue returns where the value starting at d[i] ends: a string, an
// object or array (its brackets matched, its strings stepped over), or a
// literal or number (up to the next delimiter).
func skipValue(d []byte, i int) (int, error) {
	if i >= len(d) {
		return 0, errors.New("a member has no value")
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
	case '}', ']', ',', ':':
		return 0, errors.New("a member has no value")
	default:
		j := i
		for ; j < len(d); j++ {
			if c := d[j]; c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
		}
		return j, nil
	}
	var open []byte // the brackets open, innermost last
	for i < len(d) {
		switch c := d[i]; c {
		case '"':
			end, err := skipString(d, i)
			if err != nil {
				return 0, err
			}
			i = end
			continue
		case '{', '[':
			open = append(open, c)
		case '}', ']':
			if len(open) == 0 || open[len(open)-1] != c-2 { // '{'+2 == '}', '['+2 == ']'
				return 0, errors.New("brackets do not match")
			}
			open = open[:len(open)-1]
			if len(open) == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return 0, errors.New("an object or array does not end")
}
