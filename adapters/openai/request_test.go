package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
)

var update = flag.Bool("update", false, "rewrite the golden files of the request mapping tests")

// history holds every role and every kind of part a request can carry.
const history = `{"threadId":"t","runId":"r","messages":[
 {"id":"d1","role":"developer","content":"Answer in French."},
 {"id":"s1","role":"system","content":"Be brief."},
 {"id":"u1","role":"user","name":"ana","content":[
  {"type":"text","text":"What is in these?"},
  {"type":"image","source":{"type":"data","value":"iVBORw0KGgo=","mimeType":"image/png"}},
  {"type":"image","source":{"type":"url","value":"https://example.com/cat.jpg"}},
  {"type":"document","source":{"type":"data","value":"JVBERi0xLjQ=","mimeType":"application/pdf"},"metadata":{"filename":"menu.pdf"}},
  {"type":"document","source":{"type":"file","value":"file-abc123"}}]},
 {"id":"rs_1","role":"reasoning","content":"They want a description.","encryptedValue":"enc-1"},
 {"id":"a1","role":"assistant","content":"Looking.","toolCalls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"cat\"}"}}]},
 {"id":"t1","role":"tool","toolCallId":"call_1","content":"a cat"},
 {"id":"t2","role":"tool","toolCallId":"call_2","content":"","error":"timed out"},
 {"id":"act1","role":"activity","activityType":"progress","content":{"percent":100}},
 {"id":"u2","role":"user","content":"Thanks"}]}`

// golden compares v, as indented JSON, with testdata/golden/name.json.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

func decode(t *testing.T, input string) *agui.RunAgentInput {
	t.Helper()
	in, err := agui.DecodeRunAgentInput([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	return in
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
			if s.failed == nil || !strings.Contains(s.failed.Message, tt.want) || !strings.Contains(s.failed.Message, `message "u"`) {
				t.Errorf("RUN_ERROR %+v, want one naming message \"u\" and saying %q", s.failed, tt.want)
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
