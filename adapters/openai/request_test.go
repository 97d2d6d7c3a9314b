package openai

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

// Every role and part maps onto the request as the golden files show:
// developer, system and user messages as themselves, assistant tool calls
// and tool results by id, reasoning only where the API takes it back,
// activity messages nowhere.
func TestRequestMapping(t *testing.T) {
	in := decode(t, history)
	chat, err := chatMessages(in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "chat_messages", chat)
	items, err := responseItems(in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "responses_input", items)
}

// A part the API cannot take fails the run with a message that names it.
func TestUnsupportedParts(t *testing.T) {
	tests := []struct {
		api  API
		part string
		want string
	}{
		{ChatCompletions, `{"type":"video","source":{"type":"url","value":"https://example.com/v.mp4"}}`, "OpenAI Chat Completions does not accept a video part given by URL"},
		{ChatCompletions, `{"type":"document","source":{"type":"url","value":"https://example.com/a.pdf"}}`, "OpenAI Chat Completions does not accept a document part given by URL"},
		{ChatCompletions, `{"type":"audio","source":{"type":"data","value":"AAAA","mimeType":"audio/ogg"}}`, "OpenAI Chat Completions does not accept an audio part with inline data (audio/ogg)"},
		{Responses, `{"type":"audio","source":{"type":"data","value":"AAAA","mimeType":"audio/wav"}}`, "OpenAI Responses does not accept an audio part with inline data (audio/wav)"},
		{Responses, `{"type":"video","source":{"type":"file","value":"file-1"}}`, "OpenAI Responses does not accept a video part given by file id"},
	}
	for _, tt := range tests {
		t.Run(tt.api.String(), func(t *testing.T) {
			r := newReplay(t)
			input := `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":[` + tt.part + `]}]}`
			s := summarize(runHTTP(t, New(r.client(), WithAPI(tt.api)), input))
			if s.Failed == nil || !strings.Contains(s.Failed.Message, tt.want) || !strings.Contains(s.Failed.Message, `message "u"`) {
				t.Errorf("RUN_ERROR %+v, want one naming message \"u\" and saying %q", s.Failed, tt.want)
			}
			if n := len(r.requests()); n != 0 {
				t.Errorf("%d requests went out", n)
			}
		})
	}
}

// Chat Completions takes inline WAV and MP3 audio.
func TestChatAudio(t *testing.T) {
	in := decode(t, `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":[{"type":"audio","source":{"type":"data","value":"UklGRg==","mimeType":"audio/wav"}}]}]}`)
	msgs, err := chatMessages(in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(msgs)
	if want := `{"input_audio":{"data":"UklGRg==","format":"wav"},"type":"input_audio"}`; !strings.Contains(string(b), want) {
		t.Errorf("sent %s, want it to hold %s", b, want)
	}
}
