package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// push runs docs through a fresh pipeline and returns the delivered events
// as JSON, the warnings and the error (Finish included).
func push(t *testing.T, docs []string, opts ...client.PipelineOption) (out []string, warns []agui.Warning, err error) {
	t.Helper()
	opts = append(opts, client.PipelineWarnings(func(w agui.Warning) { warns = append(warns, w) }))
	p, err := client.NewPipeline(opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err = p.Push([]byte(d), func(ev agui.Event) bool {
			b, e := agui.AppendEvent(nil, ev)
			if e != nil {
				t.Fatal(e)
			}
			out = append(out, string(b))
			return true
		}); err != nil {
			return
		}
	}
	err = p.Finish()
	return
}

func TestThinkingTranslated(t *testing.T) {
	out, warns, err := push(t, []string{
		runStarted,
		`{"type":"THINKING_START","title":"Planning"}`,
		`{"type":"THINKING_TEXT_MESSAGE_START"}`,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"let me see"}`,
		`{"type":"THINKING_TEXT_MESSAGE_END"}`,
		`{"type":"THINKING_END"}`,
		runFinished,
	})
	if err != nil {
		t.Fatal(err)
	}
	var types, ids []string
	for _, o := range out {
		var v struct{ Type, MessageID, Role, Delta string }
		json.Unmarshal([]byte(o), &v)
		types = append(types, v.Type)
		ids = append(ids, v.MessageID)
	}
	want := "RUN_STARTED REASONING_START REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_MESSAGE_END REASONING_END RUN_FINISHED"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("types\n got %s\nwant %s", got, want)
	}
	span, msg := ids[1], ids[2]
	if span == "" || msg == "" || span == msg || ids[3] != msg || ids[4] != msg || ids[5] != span {
		t.Errorf("minted ids do not line up: %q", ids)
	}
	if !strings.Contains(out[2], `"role":"reasoning"`) || !strings.Contains(out[3], `"delta":"let me see"`) {
		t.Errorf("translated events: %s / %s", out[2], out[3])
	}
	var title bool
	for _, w := range warns {
		if w.Kind != client.WarnLegacy {
			t.Errorf("warning kind %s: %s", w.Kind, w.Message)
		}
		title = title || (w.Index == 1 && strings.Contains(w.Message, "title"))
	}
	if !title {
		t.Errorf("the dropped title is not reported: %v", warns)
	}
}

func TestBinaryPartUpgradedInSnapshot(t *testing.T) {
	out, warns, err := push(t, []string{
		runStarted,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[` +
			`{"type":"binary","mimeType":"image/png","data":"AAAA","filename":"cat.png"},` +
			`{"type":"binary","mimeType":"application/pdf","url":"https://x/y.pdf"},` +
			`{"type":"binary","mimeType":"audio/wav","id":"f-1"}]}]}`,
		runFinished,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[` +
		`{"type":"image","source":{"type":"data","value":"AAAA","mimeType":"image/png"},"metadata":{"filename":"cat.png"}},` +
		`{"type":"document","source":{"type":"url","value":"https://x/y.pdf","mimeType":"application/pdf"}}]}]}`
	if out[1] != want {
		t.Errorf("snapshot\n got %s\nwant %s", out[1], want)
	}
	var idOnly, dropped bool
	for _, w := range warns {
		idOnly = idOnly || (w.Kind == client.WarnLegacy && strings.Contains(w.Message, "only an id"))
		dropped = dropped || (w.Kind == agui.WarnStripped && strings.Contains(w.Message, "/messages/0/content/2"))
	}
	if !idOnly || !dropped {
		t.Errorf("the id-only part must be reported, then dropped: %v", warns)
	}
}

func TestSubagentShim(t *testing.T) {
	docs := []string{
		runStarted,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"s"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","subagentRunId":"s"}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s"}`,
		runFinished,
	}
	out, warns, err := push(t, docs, client.PipelineMaxProtocolVersion("0.0.57"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 4 || strings.Contains(strings.Join(out, ""), "subagent") {
		t.Errorf("delivered %v", out)
	}
	if len(warns) != 2 || warns[0].Kind != client.WarnEra || warns[0].Index != 1 {
		t.Errorf("warnings %v", warns)
	}
	// A current peer keeps them.
	out, warns, err = push(t, docs, client.PipelineMaxProtocolVersion("1.0"))
	if err != nil || len(out) != 6 || len(warns) != 0 {
		t.Errorf("1.0 peer: %v %v %v", out, warns, err)
	}
}

func TestProducerVersion(t *testing.T) {
	for _, tt := range []struct{ own, v, warn string }{
		{"", "1.1", ""}, {"", "1.0", ""}, {"", "0.9", ""},
		{"", "1.2", "speaks protocol 1.2; this client speaks 1.1"}, {"", "2.0", "speaks protocol 2.0"},
		{"", "v1", "cannot interpret"}, {"", "1.1.0", "cannot interpret"},
		{"1.0", "1.0", ""}, {"1.0", "0.9", ""}, {"1.0", "1.1", "speaks protocol 1.1; this client speaks 1.0"},
		{"1.0", "2.0", "speaks protocol 2.0"}, {"1.0", "1.0.0", "cannot interpret"},
	} {
		var opts []client.PipelineOption
		if tt.own != "" {
			opts = append(opts, client.PipelineProtocolVersion(tt.own))
		}
		_, warns, err := push(t, []string{`{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"` + tt.v + `"}`, runFinished}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tt.warn == "" && len(warns) != 0:
			t.Errorf("%s/%s: unexpected %v", tt.own, tt.v, warns)
		case tt.warn != "" && (len(warns) != 1 || warns[0].Kind != client.WarnVersion || !strings.Contains(warns[0].Message, tt.warn)):
			t.Errorf("%s/%s: warnings %v, want %q", tt.own, tt.v, warns, tt.warn)
		}
	}
}

// TestEncryptedValueType reads the member 1.1 added: a 1.1 client keeps it
// wherever it travels, a client pinned to 1.0 strips each occurrence with
// a WarnStripped warning naming it, and keeps the rest of the event.
func TestEncryptedValueType(t *testing.T) {
	docs := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.1","input":{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi","encryptedValue":"e0","encryptedValueType":"k0"}]}}`,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"e1","encryptedValueType":"redacted"}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","encryptedValue":"e2","encryptedValueType":"sig","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"encryptedValue":"e3","encryptedValueType":"tc"}]},{"id":"x","role":"tool","toolCallId":"c","content":"ok","encryptedValueType":"tm"},{"id":"r","role":"reasoning","content":"..","encryptedValueType":"rm"}]}`,
		runFinished,
	}
	out, warns, err := push(t, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("a 1.1 client warned: %v", warns)
	}
	for i, want := range []int{1, 1, 4} {
		if n := strings.Count(out[i], `"encryptedValueType"`); n != want {
			t.Errorf("event %d keeps %d encryptedValueType, want %d: %s", i, n, want, out[i])
		}
	}

	out, warns, err = push(t, docs, client.PipelineProtocolVersion("1.0"))
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if strings.Contains(o, "encryptedValueType") {
			t.Errorf("a 1.0 client delivered event %d with encryptedValueType: %s", i, o)
		}
	}
	if !strings.Contains(out[1], `"encryptedValue":"e1"`) || !strings.Contains(out[2], `"encryptedValue":"e3"`) {
		t.Errorf("the encrypted values themselves are lost: %v", out)
	}
	var stripped []string
	for _, w := range warns {
		switch w.Kind {
		case agui.WarnStripped:
			stripped = append(stripped, w.Message)
		case client.WarnVersion:
		default:
			t.Errorf("unexpected warning %v", w)
		}
	}
	want := []string{"/input/messages/0/encryptedValueType", "/encryptedValueType", "/messages/0/encryptedValueType",
		"/messages/0/toolCalls/0/encryptedValueType", "/messages/1/encryptedValueType", "/messages/2/encryptedValueType"}
	if len(stripped) != len(want) {
		t.Fatalf("stripped warnings %q, want one for each of %q", stripped, want)
	}
	for i, w := range want {
		if !strings.Contains(stripped[i], w+" ") {
			t.Errorf("warning %d %q does not name %s", i, stripped[i], w)
		}
	}
}

// TestEraInput checks the outgoing shims: what each pinned peer receives.
func TestEraInput(t *testing.T) {
	in, _, err := client.DecodeInput([]byte(`{"threadId":"t","runId":"r","parentRunId":"p","messages":[
		{"id":"u","role":"user","subagentRunId":"s","content":[{"type":"text","text":"look"},{"type":"text","text":"here"},
		 {"type":"image","source":{"type":"url","value":"https://x/c.png"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := in.AppendJSON(nil)
	for _, tt := range []struct {
		max, want string
		warns     int
	}{
		{"1.0.0", `{"threadId":"t","runId":"r","protocolVersion":"1.0","parentRunId":"p","messages":[{"subagentRunId":"s","id":"u","role":"user","content":[{"type":"text","text":"look"},{"type":"text","text":"here"},{"type":"image","source":{"type":"url","value":"https://x/c.png"}}]}]}`, 0},
		{"0.0.57", `{"threadId":"t","runId":"r","parentRunId":"p","messages":[{"id":"u","role":"user","content":[{"type":"text","text":"look"},{"type":"text","text":"here"},{"type":"image","source":{"type":"url","value":"https://x/c.png"}}]}]}`, 0},
		{"0.0.39", `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"look\nhere"}]}`, 1},
	} {
		var body []byte
		srv := sseServer(t, frames(runStarted, runFinished), func(r *http.Request) { body, _ = io.ReadAll(r.Body) })
		c, _ := client.New(srv.URL, client.WithMaxProtocolVersion(tt.max))
		var warns []agui.Warning
		for _, err := range c.Run(context.Background(), in, client.RunWarnings(func(w agui.Warning) { warns = append(warns, w) })) {
			if err != nil {
				t.Fatal(err)
			}
		}
		if string(body) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.max, body, tt.want)
		}
		if len(warns) != tt.warns || (tt.warns > 0 && (warns[0].Index != -1 || !strings.Contains(warns[0].Message, "DROPS non-text parts (image)"))) {
			t.Errorf("%s: warnings %v", tt.max, warns)
		}
	}
	if after, _ := in.AppendJSON(nil); string(after) != string(orig) {
		t.Errorf("the caller's input was changed:\n%s\n%s", orig, after)
	}
}

func TestMaxProtocolVersionParsing(t *testing.T) {
	for v, ok := range map[string]bool{"1.0": true, "1.0.0": true, "0.0.39": true, "10.2.3": true,
		"1": false, "1.0.0.0": false, "+1.0": false, "1.-1": false, "a.b": false, "": false, "1..0": false} {
		if _, err := client.New("http://x", client.WithMaxProtocolVersion(v)); (err == nil) != ok {
			t.Errorf("%q: err = %v", v, err)
		}
	}
}
