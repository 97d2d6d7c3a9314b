// Package jsontree decodes JSON into the generic form that
// jsonpatch.DiffValues compares, for the two places that build it: the diff
// itself (jsonpatch.Diff) and the server, which keeps the state its client
// last saw in this form to diff the next state against. It is internal
// because it is a detail they share, not an API: a caller of DiffValues can
// use encoding/json directly.
package jsontree

import (
	"bytes"
	"encoding/json"
)

// Decode reads the first JSON value of raw as encoding/json decodes into an
// any (map[string]any, []any, string, bool, nil), but with numbers as
// json.Number, so that a number keeps its spelling: two documents that
// spell it alike compare equal, and a patch writes it as it was. Like
// json.Decoder.Decode, it leaves what follows the value unread.
func Decode(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return nil, err
	}
	return tree, nil
}
