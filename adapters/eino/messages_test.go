package eino

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agui-go/sdk/internal/adaptertest"
	"github.com/cloudwego/eino/schema"
)

// render is one line per Eino message, its parts by type and source.
func render(msgs []*schema.Message) []string {
	var out []string
	for _, m := range msgs {
		line := fmt.Sprintf("%s %q", m.Role, m.Content)
		if m.Name != "" {
			line += " name=" + m.Name
		}
		for _, p := range m.UserInputMultiContent {
			var c *schema.MessagePartCommon
			switch {
			case p.Image != nil:
				c = &p.Image.MessagePartCommon
			case p.File != nil:
				c = &p.File.MessagePartCommon
			}
			switch {
			case c == nil:
				line += fmt.Sprintf(" [%s %q]", p.Type, p.Text)
			case c.URL != nil:
				line += fmt.Sprintf(" [%s url=%s]", p.Type, *c.URL)
			default:
				line += fmt.Sprintf(" [%s %s base64=%s]", p.Type, c.MIMEType, *c.Base64Data)
			}
		}
		for _, tc := range m.ToolCalls {
			line += fmt.Sprintf(" call(%s %s %s)", tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if m.ToolCallID != "" {
			line += fmt.Sprintf(" for=%s tool=%s", m.ToolCallID, m.ToolName)
		}
		out = append(out, line)
	}
	return out
}

func TestMessages(t *testing.T) {
	// The shared history, less its document given by a provider's file id,
	// which has no place in Eino's parts.
	history := strings.Replace(adaptertest.History,
		`,
  {"type":"document","source":{"type":"file","value":"file-abc123"}}`, "", 1)
	msgs, err := Messages(adaptertest.Decode(t, history).Messages)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`system "Answer in French."`,
		`system "Be brief."`,
		`user "" name=ana [text "What is in these?"] [image_url image/png base64=iVBORw0KGgo=] [image_url url=https://example.com/cat.jpg] [file_url application/pdf base64=JVBERi0xLjQ=]`,
		`assistant "Looking." call(call_1 lookup {"q":"cat"})`,
		`tool "a cat" for=call_1 tool=lookup`,
		`tool "error: timed out" for=call_2 tool=`,
		`user "Thanks"`,
	}
	if got := render(msgs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	_, err = Messages(adaptertest.Decode(t, adaptertest.History).Messages)
	if err == nil || err.Error() != `message "u1": Eino does not accept a document part given by file id in this position` {
		t.Errorf("error %v, want the file part refused", err)
	}
}
