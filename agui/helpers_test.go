package agui

import (
	"bytes"
	"encoding/json"
)

// jsonschemaUnmarshal decodes a document the way the validator expects:
// numbers as json.Number, so integers are not mistaken for floats.
func jsonschemaUnmarshal(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
