package agui

import (
	"encoding/json"
	"fmt"
)

// This file holds RawMember, the members of an open object that the schema
// does not define, both ways: kept by the decoder, written back by the
// encoder.

// RawMember is a member of an open object that the schema does not define.
// JSON Patch operations keep such members, as RFC 6902 asks.
type RawMember struct {
	Name  string
	Value json.RawMessage
}

func appendExtra(dst []byte, extra []RawMember) ([]byte, error) {
	var err error
	for _, m := range extra {
		dst = appendKey(dst, "")
		dst = AppendJSONString(dst, m.Name)
		dst = append(dst, ':')
		if dst, err = appendRaw(dst, m.Value); err != nil {
			return dst, fmt.Errorf("member %q: %w", m.Name, err)
		}
	}
	return dst, nil
}

// extra keeps a member that an open object does not declare (a JSON Patch
// operation's), in input order.
func (d *decoder) extra(dst *[]RawMember, key []byte) error {
	raw, err := d.raw()
	if err != nil {
		return err
	}
	*dst = append(*dst, RawMember{Name: string(key), Value: raw})
	return nil
}
