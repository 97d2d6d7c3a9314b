package interop_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// A legacy {"type":"binary"} content part toward a current peer (issue 24),
// run through the reference client in Node and through ours. Both upgrade it
// to an image part in both directions; the reference warns about the
// incoming one only. Ours warns about both: an outgoing history holding the
// retired shape can only come from a document read with client.DecodeInput
// (Go types cannot hold it), which reads a document as the pipeline reads
// incoming events and says what it rewrote. The difference is documented in
// DecodeInput's doc comment.
func TestLegacyBinaryTowardACurrentPeer(t *testing.T) {
	dir, node := nodeDir(t)
	cmd := exec.Command(node, "binary.mjs")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node binary.mjs: %v", err)
	}
	var ref struct {
		Incoming, Outgoing struct {
			Messages []json.RawMessage
			Warnings []string
		}
	}
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	upgraded := compactJSON(t, json.RawMessage(`{"type":"image","source":{"type":"url","value":"https://example.com/a.png","mimeType":"image/png"}}`))
	const legacy = `{"id":"u1","role":"user","content":[{"type":"text","text":"hi"},{"type":"binary","mimeType":"image/png","url":"https://example.com/a.png"}]}`
	// The reference, as pinned.
	for name, r := range map[string]struct {
		Messages []json.RawMessage
		Warnings []string
	}{"incoming": ref.Incoming, "outgoing": ref.Outgoing} {
		if len(r.Messages) != 1 || !strings.Contains(compactJSON(t, r.Messages[0]), upgraded) {
			t.Errorf("reference %s: messages %s, want the part upgraded", name, r.Messages)
		}
	}
	if len(ref.Incoming.Warnings) != 1 || !strings.Contains(ref.Incoming.Warnings[0], "deprecated binary input content") {
		t.Errorf("reference incoming: warnings %q, want one about the binary part", ref.Incoming.Warnings)
	}
	if len(ref.Outgoing.Warnings) != 0 {
		t.Errorf("reference outgoing: warnings %q, want none", ref.Outgoing.Warnings)
	}

	// Ours, incoming: a 1.0 producer's RUN_STARTED echoing the history.
	var body string
	echo := true // the first run's RUN_STARTED echoes the legacy history
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.Header().Set("Content-Type", "text/event-stream")
		input := ""
		if echo {
			input = `,"input":{"threadId":"t","runId":"r","messages":[` + legacy + `]}`
		}
		io.WriteString(w, `data: {"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"`+input+`}`+"\n\n")
		io.WriteString(w, `data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}`+"\n\n")
	}))
	defer srv.Close()
	var warns []agui.Warning
	c, err := client.New(srv.URL, client.WithWarnings(func(w agui.Warning) { warns = append(warns, w) }))
	if err != nil {
		t.Fatal(err)
	}
	th := c.NewThread(client.WithThreadID("t"))
	if _, err := th.Run(t.Context(), client.RunParams{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if msgs := th.Messages(); len(msgs) != 1 || !strings.Contains(encodeMessage(t, msgs[0]), upgraded) {
		t.Errorf("ours incoming: messages %v, want the part upgraded", msgs)
	}
	if len(warns) != 1 || warns[0].Kind != client.WarnLegacy {
		t.Errorf("ours incoming: warnings %v, want one legacy warning", warns)
	}

	// Ours, outgoing: the history read from a document.
	in, ws, err := client.DecodeInput([]byte(`{"threadId":"t","messages":[` + legacy + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].Kind != client.WarnLegacy {
		t.Errorf("ours outgoing: DecodeInput warned %v, want one legacy warning", ws)
	}
	warns, echo = nil, false
	th = c.NewThread(client.WithThreadID("t"), client.WithMessages(in.Messages...))
	if _, err := th.Run(t.Context(), client.RunParams{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(compactJSON(t, json.RawMessage(body)), upgraded) || strings.Contains(body, `"binary"`) {
		t.Errorf("ours outgoing: sent %s, want the part upgraded", body)
	}
	if len(warns) != 0 {
		t.Errorf("ours outgoing: the run warned %v, want nothing (the document's reading did)", warns)
	}
}

func compactJSON(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func encodeMessage(t *testing.T, m agui.Message) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return compactJSON(t, b)
}
