package agui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// This file holds the hand-written pieces the generated codec calls that are
// not plain JSON mechanics: the Content union, kept unknown members, and the
// error values the generated code reports.

// Content is the content of a user or tool message and of TOOL_CALL_RESULT:
// either a string or a list of content parts. The zero value is the empty
// string. Build one with [TextContent] or [PartsContent].
type Content struct {
	text    string
	parts   []ContentPart
	isParts bool
}

// TextContent returns string content.
func TextContent(s string) Content { return Content{text: s} }

// PartsContent returns content made of parts. With no parts it is the empty
// list, which the protocol allows.
func PartsContent(parts ...ContentPart) Content {
	if parts == nil {
		parts = []ContentPart{}
	}
	return Content{parts: parts, isParts: true}
}

// Text returns the string content and true, or "" and false for parts.
func (c Content) Text() (string, bool) { return c.text, !c.isParts }

// Parts returns the parts and true, or nil and false for string content.
func (c Content) Parts() ([]ContentPart, bool) { return c.parts, c.isParts }

// IsParts reports whether the content is a list of parts.
func (c Content) IsParts() bool { return c.isParts }

// String returns the text of string content, and the text parts of a part
// list joined together; media parts contribute nothing.
func (c Content) String() string {
	if !c.isParts {
		return c.text
	}
	var b []byte
	for _, p := range c.parts {
		if t, ok := p.(*TextPart); ok {
			b = append(b, t.Text...)
		}
	}
	return string(b)
}

// MarshalJSON encodes the content as a JSON string or array.
func (c Content) MarshalJSON() ([]byte, error) { return appendContent(nil, c) }

// UnmarshalJSON decodes a JSON string or array of content parts strictly.
func (c *Content) UnmarshalJSON(data []byte) error {
	d := newDecoder(data, false)
	v, err := decodeContent(d)
	if err != nil {
		return err
	}
	*c = v
	return d.end()
}

func appendContent(dst []byte, c Content) ([]byte, error) {
	if !c.isParts {
		return AppendJSONString(dst, c.text), nil
	}
	return appendContentPartList(dst, c.parts)
}

func decodeContent(d *decoder) (Content, error) {
	switch d.peekKind() {
	case '"':
		s, err := d.str()
		return Content{text: s}, err
	case '[':
		parts, err := decodeUnionList(d, decodeContentPartUnion)
		return Content{parts: parts, isParts: true}, err
	}
	return Content{}, d.mismatch("string or array of content parts")
}

// RawMember is a member of an open object that the schema does not define.
// JSON Patch operations keep such members, as RFC 6902 asks.
type RawMember struct {
	Name  string
	Value json.RawMessage
}

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

// Reasons the generated decoder reports inside a *DecodeError.
const (
	reasonPointer = "not a JSON Pointer (RFC 6901)"
	reasonNull    = "null is not allowed here"
)

func reasonMinItems(n int) string { return "expected at least " + strconv.Itoa(n) + " item(s)" }

func (d *decoder) badEnum(got, allowed string) error {
	return d.fail("unknown value " + strconv.Quote(got) + "; expected one of " + allowed)
}

func errUnknownDefinition(name string) error {
	return fmt.Errorf("agui: no schema definition named %q", name)
}

// Optional members share these readers, so the generated decoders stay one
// line per member: a null is handed to the decoder's null policy, anything
// else is decoded and stored behind a fresh pointer.

func (d *decoder) optString(dst **string, tolerated bool) error {
	if d.isNull() {
		return d.nullOptional(tolerated)
	}
	s, err := d.str()
	if err == nil {
		*dst = &s
	}
	return err
}

func (d *decoder) optInt(dst **int64, min, max int64, tolerated bool) error {
	if d.isNull() {
		return d.nullOptional(tolerated)
	}
	n, err := d.integer(min, max)
	if err == nil {
		*dst = &n
	}
	return err
}

func (d *decoder) optBool(dst **bool, tolerated bool) error {
	if d.isNull() {
		return d.nullOptional(tolerated)
	}
	b, err := d.boolean()
	if err == nil {
		*dst = &b
	}
	return err
}

// optRaw reads an optional member holding any JSON but null; object says
// whether it must be an object.
func (d *decoder) optRaw(dst *json.RawMessage, object, tolerated bool) error {
	if d.isNull() {
		return d.nullOptional(tolerated)
	}
	var raw []byte
	var err error
	if object {
		raw, err = d.rawObject()
	} else {
		raw, err = d.raw()
	}
	if err == nil {
		*dst = raw
	}
	return err
}

// marshalEnum is the body of the enums' MarshalJSON.
func marshalEnum(typ, v string, valid bool) ([]byte, error) {
	if !valid {
		return nil, &EncodeError{Type: typ, Err: errEnum(v)}
	}
	return AppendJSONString(nil, v), nil
}
