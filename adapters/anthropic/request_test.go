package anthropic

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
			if s.failed == nil || !strings.Contains(s.failed.Message, tt.want) || !strings.Contains(s.failed.Message, `message "u"`) {
				t.Errorf("RUN_ERROR %+v, want one naming message \"u\" and saying %q", s.failed, tt.want)
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
