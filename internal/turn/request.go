package turn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// Instructions joins what the model is told besides the conversation: the
// adapter's system prompt, the run's context entries and, when the adapter
// forwards it, the run's shared state. It is "" when there is nothing.
func Instructions(prompt string, entries []agui.Context, state json.RawMessage) string {
	var b strings.Builder
	if prompt != "" {
		b.WriteString(prompt)
	}
	if len(entries) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Context from the application:")
		for _, e := range entries {
			fmt.Fprintf(&b, "\n- %s: %s", e.Description, e.Value)
		}
	}
	if len(state) > 0 && string(state) != "null" {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		var compact bytes.Buffer
		if json.Compact(&compact, state) == nil {
			state = compact.Bytes()
		}
		b.WriteString("The application's current shared state (JSON): ")
		b.Write(state)
	}
	return b.String()
}

// Schema decodes a tool's JSON Schema into the map the provider SDKs take,
// keeping numbers exact. A tool without parameters gets the schema of an
// empty object, which every provider accepts.
func Schema(name string, raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("the parameters of tool %q are not a JSON Schema object: %w", name, err)
	}
	return m, nil
}

// DataURL returns the data: URL of inline base64 bytes.
func DataURL(mimeType, base64Data string) string {
	return "data:" + mimeType + ";base64," + base64Data
}

// ContentText returns the text of content: the text itself, or the text
// parts joined by newlines (a tool result or a system text has no use for
// media the provider cannot take there).
func ContentText(c agui.Content) string {
	if s, ok := c.Text(); ok {
		return s
	}
	parts, _ := c.Parts()
	var texts []string
	for _, p := range parts {
		if t, ok := p.(*agui.TextPart); ok {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// ToolOutput is what the model reads as the result of a tool the client
// ran: its text, or the error the client reported.
func ToolOutput(m *agui.ToolMessage) string {
	text := ContentText(m.Content)
	if m.Error != nil && *m.Error != "" {
		if text == "" {
			return "error: " + *m.Error
		}
		return text + "\nerror: " + *m.Error
	}
	return text
}

// MimeType returns the MIME type of a source, "" when it names none.
func MimeType(src agui.PartSource) string {
	switch s := src.(type) {
	case *agui.DataSource:
		return s.MimeType
	case *agui.URLSource:
		if s.MimeType != nil {
			return *s.MimeType
		}
	case *agui.FileSource:
		if s.MimeType != nil {
			return *s.MimeType
		}
	}
	return ""
}

// UnsupportedPart is the error for a content part the provider cannot take.
func UnsupportedPart(provider, kind string, src agui.PartSource) error {
	what := "a " + kind + " part"
	if kind == "image" || kind == "audio" {
		what = "an " + kind + " part"
	}
	switch src.(type) {
	case *agui.DataSource:
		what += " with inline data"
	case *agui.URLSource:
		what += " given by URL"
	case *agui.FileSource:
		what += " given by file id"
	}
	if mt := MimeType(src); mt != "" {
		what += " (" + mt + ")"
	}
	return fmt.Errorf("%s does not accept %s in this position", provider, what)
}
