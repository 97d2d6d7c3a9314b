package agui

// This file holds Content, the string-or-parts union of message content. It
// is hand-written: the generator refers to it for members of kind content
// but does not emit it.

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
