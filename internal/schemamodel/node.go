package schemamodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// node is one value of the schema document, parsed with member order and
// source position kept. encoding/json's maps would lose both, and the
// generator needs order (properties are emitted in schema order) and positions
// (every schema error points at a line and column).
type node struct {
	kind   byte // '{', '[', '"', 'n' (number), 'b' (bool), '0' (null)
	offset int64
	keys   []string
	vals   []*node // object members in order, or array elements
	str    string  // string value, or number text
	b      bool
	ptr    string // JSON Pointer of this node in the document
}

func (n *node) get(key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// parseNode reads a whole JSON document.
func parseNode(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec, "")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the schema document")
	}
	return n, nil
}

func readNode(dec *json.Decoder, ptr string) (*node, error) {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &node{offset: off, ptr: ptr}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = '{'
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				for _, seen := range n.keys {
					if seen == k {
						return nil, fmt.Errorf("%s: duplicate member %q", ptr, k)
					}
				}
				v, err := readNode(dec, ptr+"/"+escapePointer(k))
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, v)
			}
		case '[':
			n.kind = '['
			for i := 0; dec.More(); i++ {
				v, err := readNode(dec, ptr+"/"+strconv.Itoa(i))
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
		}
		if _, err := dec.Token(); err != nil { // closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = '"', t
	case json.Number:
		n.kind, n.str = 'n', t.String()
	case bool:
		n.kind, n.b = 'b', t
	case nil:
		n.kind = '0'
	}
	return n, nil
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	// InputOffset points just before the token; skip the separator and
	// whitespace so the position names the value itself.
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = int(off) - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
