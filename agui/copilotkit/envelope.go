package copilotkit

import (
	"bytes"
	"encoding/json"
	"errors"
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
		case bytes.EqualFold(name, nameMethod):
			method = v
		case bytes.EqualFold(name, nameParams):
			params = v
		case bytes.EqualFold(name, nameBody):
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

var (
	nameMethod = []byte("method")
	nameParams = []byte("params")
	nameBody   = []byte("body")
	nameAgent  = []byte("agentId")
	nameThread = []byte("threadId")
)

// memberName is the name a quoted member name spells: its bytes when it
// has no escapes (a name CopilotKit's client sends), decoded otherwise.
func memberName(quoted []byte) ([]byte, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return quoted[1 : len(quoted)-1], nil
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// plainParams reads the params the client sends, an object of at most
// agentId and threadId whose values are strings of printable ASCII with
// no escapes (or null), without encoding/json's reflection; ok is false
// for anything else, which encoding/json then reads (and refuses, where
// it is not JSON). What it accepts it reads as encoding/json does: names
// matched without regard to case, the last of a name kept.
func plainParams(d []byte) (agentID, threadID *string, ok bool) {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return nil, nil, false
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return nil, nil, skipSpace(d, i+1) == len(d)
	}
	for {
		name, next, ok := plainString(d, i)
		if !ok {
			return nil, nil, false
		}
		var dst **string
		switch {
		case bytes.EqualFold(name, nameAgent):
			dst = &agentID
		case bytes.EqualFold(name, nameThread):
			dst = &threadID
		default:
			return nil, nil, false
		}
		i = skipSpace(d, next)
		if i >= len(d) || d[i] != ':' {
			return nil, nil, false
		}
		i = skipSpace(d, i+1)
		if bytes.HasPrefix(d[i:], []byte("null")) {
			*dst, i = nil, i+4 // null leaves a *string nil, as encoding/json does
		} else {
			v, next, ok := plainString(d, i)
			if !ok {
				return nil, nil, false
			}
			s := string(v)
			*dst, i = &s, next
		}
		i = skipSpace(d, i)
		switch {
		case i < len(d) && d[i] == ',':
			i = skipSpace(d, i+1)
		case i < len(d) && d[i] == '}':
			return agentID, threadID, skipSpace(d, i+1) == len(d)
		default:
			return nil, nil, false
		}
	}
}

// plainString reads the string at d[i] when it is printable ASCII with no
// escapes: its contents and where it ends.
func plainString(d []byte, i int) (s []byte, end int, ok bool) {
	if i >= len(d) || d[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(d); j++ {
		switch c := d[j]; {
		case c == '"':
			return d[i+1 : j], j + 1, true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, 0, false
		}
	}
	return nil, 0, false
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
