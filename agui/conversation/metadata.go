package conversation

import (
	"bytes"
	"encoding/json"
	"errors"
)

// mergeMetadata is the protocol's metadata merge (the reference's
// mergeMetadata): per key the last write wins, without recursion, so an
// object or array value is replaced whole. Keys keep the position of their
// first write, new keys come last. A nil incoming leaves existing as it is.
// The result is a new buffer; neither input is changed.
func mergeMetadata(existing, incoming json.RawMessage) (json.RawMessage, error) {
	if incoming == nil {
		return existing, nil
	}
	in, err := members(incoming)
	if err != nil {
		return existing, err
	}
	var out []member
	if existing != nil {
		if out, err = members(existing); err != nil {
			out = nil // a malformed existing value cannot be kept; the incoming one wins
		}
	}
	for _, m := range in {
		replaced := false
		for i := range out {
			if out[i].key == m.key {
				out[i].value = m.value
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, m)
		}
	}
	buf := make([]byte, 0, len(existing)+len(incoming))
	buf = append(buf, '{')
	for i, m := range out {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, m.rawKey...)
		buf = append(buf, ':')
		buf = append(buf, m.value...)
	}
	return append(buf, '}'), nil
}

type member struct {
	key    string
	rawKey []byte // the key as written, quoted
	value  json.RawMessage
}

var errNotObject = errors.New("metadata is not a JSON object")

// members splits a JSON object into its members, in order, values compacted.
func members(obj json.RawMessage) ([]member, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, errNotObject
	}
	var out []member
	for d.More() {
		kt, err := d.Token()
		if err != nil {
			return nil, err
		}
		key := kt.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return nil, err
		}
		rawKey, _ := json.Marshal(key)
		m := member{key: key, rawKey: rawKey, value: c.Bytes()}
		replaced := false
		for i := range out { // a repeated key: the last one wins, as in JSON.parse
			if out[i].key == key {
				out[i] = m
				replaced = true
			}
		}
		if !replaced {
			out = append(out, m)
		}
	}
	return out, nil
}

// member returns the value of key in obj, if obj is an object holding it.
func memberOf(obj json.RawMessage, key string) (json.RawMessage, bool) {
	ms, err := members(obj)
	if err != nil {
		return nil, false
	}
	for _, m := range ms {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}
