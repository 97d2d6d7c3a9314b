package anthropic

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/adaptertest"
)

var update = flag.Bool("update", false, "rewrite the golden files of the request mapping tests")

// history holds every role and every kind of part a request can carry.
const history = adaptertest.History

// golden compares v, as indented JSON, with testdata/golden/name.json.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	adaptertest.Golden(t, *update, name, v)
}

func decode(t *testing.T, input string) *agui.RunAgentInput {
	t.Helper()
	return adaptertest.Decode(t, input)
}

// Every role and part maps onto the request as the golden file shows:
// developer and system messages in the system prompt, tool results as
// tool_result blocks of a user turn (merged with the user message that
// follows, as turns must alternate), encrypted reasoning as a thinking block
// at the head of the next assistant turn, activity messages nowhere.
func TestRequestMapping(t *testing.T) {
	in := decode(t, history)
	msgs, system, err := messages(in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "messages", map[string]any{"system": system, "messages": msgs})
}

// A part the API cannot take fails the run with a message that names it.
func TestUnsupportedParts(t *testing.T) {
	tests := []struct {
		name, part, want string
	}{
		{"video", `{"type":"video","source":{"type":"url","value":"https://example.com/v.mp4"}}`, "Anthropic does not accept a video part given by URL"},
		{"audio", `{"type":"audio","source":{"type":"data","value":"AAAA","mimeType":"audio/wav"}}`, "Anthropic does not accept an audio part with inline data (audio/wav)"},
		{"bmp", `{"type":"image","source":{"type":"data","value":"Qk0=","mimeType":"image/bmp"}}`, "Anthropic does not accept an image part with inline data (image/bmp)"},
		{"docx", `{"type":"document","source":{"type":"data","value":"UEs=","mimeType":"application/msword"}}`, "Anthropic does not accept a document part with inline data (application/msword)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReplay(t)
			input := `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":[` + tt.part + `]}]}`
			s := summarize(runHTTP(t, New(r.client()), input))
			if s.Failed == nil || !strings.Contains(s.Failed.Message, tt.want) || !strings.Contains(s.Failed.Message, `message "u"`) {
				t.Errorf("RUN_ERROR %+v, want one naming message \"u\" and saying %q", s.Failed, tt.want)
			}
			if n := len(r.requests()); n != 0 {
				t.Errorf("%d requests went out", n)
			}
		})
	}
}

// A plain-text document goes as a text source, decoded.
func TestTextDocument(t *testing.T) {
	in := decode(t, `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":[{"type":"document","source":{"type":"data","value":"aGVsbG8=","mimeType":"text/plain"}}]}]}`)
	msgs, _, err := messages(in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(msgs)
	if want := `"source":{"data":"hello","media_type":"text/plain","type":"text"}`; !strings.Contains(string(b), want) {
		t.Errorf("sent %s, want it to hold %s", b, want)
	}
}
