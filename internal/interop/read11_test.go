package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// encrypted11 is an agent whose stream carries 1.1's encryptedValueType in
// each place it travels: REASONING_ENCRYPTED_VALUE, a message and a tool
// call of a snapshot.
func encrypted11() server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		r, err := rc.StartReasoning()
		if err != nil {
			return server.Outcome{}, err
		}
		ev := agui.NewReasoningEncryptedValue(agui.ReasoningEncryptedValueSubtypeMessage, "m-r", "opaque-1")
		ev.EncryptedValueType = new("redacted_thinking")
		if err := rc.Emit(ev); err != nil {
			return server.Outcome{}, err
		}
		if err := r.End(); err != nil {
			return server.Outcome{}, err
		}
		snap := &agui.MessagesSnapshot{Messages: []agui.Message{
			&agui.UserMessage{ID: "u", Content: agui.TextContent("hi")},
			&agui.AssistantMessage{ID: "a", Content: new("done"), EncryptedValue: new("opaque-2"), EncryptedValueType: new("signature"),
				ToolCalls: []agui.ToolCall{{ID: "c", Function: agui.FunctionCall{Name: "f", Arguments: "{}"},
					EncryptedValue: new("opaque-3"), EncryptedValueType: new("call_signature")}}},
		}}
		return server.Success(), rc.Emit(snap)
	})
}

// TestReferenceReads11 serves our 1.1 stream (what a consumer declaring 1.1
// gets) to the reference TypeScript client, which speaks 1.0, and holds it
// to what the processing model allows a 1.0 consumer of a newer producer:
// the run completes, the one newer-version warning, and one stripping
// warning for each encryptedValueType it removes; nothing else is lost
// (each encryptedValue arrives). Then the same agent, asked by the client
// itself (it declares 1.0), is served a 1.0 stream, which it reads in
// silence with the same messages.
func TestReferenceReads11(t *testing.T) {
	dir, node := nodeDir(t)
	h := server.NewHandler(encrypted11())
	var captured11 []byte
	{
		req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(`{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[]}`))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		captured11 = w.Body.Bytes()
		if n := bytes.Count(captured11, []byte(`"encryptedValueType"`)); n != 3 {
			t.Fatalf("the 1.1 stream carries %d encryptedValueType, want 3:\n%s", n, captured11)
		}
	}
	replay := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(captured11)
	}))
	defer replay.Close()
	live := httptest.NewServer(h)
	defer live.Close()

	run := func(url string) (rep struct {
		Types     []string
		Rejection *string
		Messages  []map[string]any
		Events    []map[string]any
		Warnings  []string
	}) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, "read.mjs", url)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("node read.mjs: %v\n%s", err, stderr.String())
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("report: %v\n%s", err, stdout.String())
		}
		if rep.Rejection != nil {
			t.Fatalf("the reference rejected the run: %s", *rep.Rejection)
		}
		return rep
	}

	rep := run(replay.URL)
	t.Logf("the reference warned:\n%s", strings.Join(rep.Warnings, "\n"))
	var version, stripped int
	for _, w := range rep.Warnings {
		switch {
		case strings.Contains(w, "The producer speaks protocol 1.1; this client speaks 1.0"):
			version++
		case strings.Contains(w, "encryptedValueType"):
			stripped++
		default:
			t.Errorf("a warning the processing model does not call for: %s", w)
		}
	}
	if version != 1 || stripped != 3 {
		t.Errorf("%d version warnings and %d stripping warnings, want 1 and 3:\n%s", version, stripped, strings.Join(rep.Warnings, "\n"))
	}
	check := func(name string, msgs []map[string]any, events []map[string]any) {
		t.Helper()
		all, _ := json.Marshal(map[string]any{"m": msgs, "e": events})
		for _, v := range []string{"opaque-1", "opaque-2", "opaque-3"} {
			if !bytes.Contains(all, []byte(v)) {
				t.Errorf("%s: the encrypted value %s is lost: %s", name, v, all)
			}
		}
		if bytes.Contains(all, []byte("encryptedValueType")) {
			t.Errorf("%s: the 1.0 client kept encryptedValueType: %s", name, all)
		}
	}
	check("1.1 stream", rep.Messages, rep.Events)

	rep = run(live.URL)
	if len(rep.Warnings) > 0 {
		t.Errorf("served as 1.0, the reference still warned:\n%s", strings.Join(rep.Warnings, "\n"))
	}
	check("1.0 stream", rep.Messages, rep.Events)
}
