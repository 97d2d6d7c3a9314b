package demo_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/agui/verify"
)

// uuids matches the ids the demo mints; each run mints fresh ones, in the
// same order, so they are renamed by order of appearance before comparing.
var uuids = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func renameIDs(docs [][]byte) string {
	names := map[string]string{}
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(uuids.ReplaceAllStringFunc(string(d), func(id string) string {
			if _, ok := names[id]; !ok {
				names[id] = fmt.Sprintf("id-%d", len(names)+1)
			}
			return names[id]
		}))
		b.WriteByte('\n')
	}
	return b.String()
}

// stream posts body with the given Accept header and returns the events'
// JSON, read with the framing the response's content type names.
func stream(t *testing.T, url, accept, body string) [][]byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("Accept %q: %s %s", accept, resp.Status, msg)
	}
	var docs [][]byte
	switch ct := resp.Header.Get("Content-Type"); ct {
	case protoframe.MediaType:
		for msg, err := range protoframe.Frames(resp.Body) {
			if err != nil {
				t.Fatal(err)
			}
			ev, err := agui.DecodeEventProto(msg)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := ev.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, doc)
		}
	case "text/event-stream":
		for frame, err := range sse.Frames(resp.Body) {
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, bytes.Clone(frame))
		}
	default:
		t.Fatalf("Accept %q: content type %q", accept, ct)
	}
	return docs
}

// TestDemoProtobufMatchesSSE runs each demo scenario twice, once over SSE
// and once over protobuf, and checks that the two streams carry the same
// events, frame for frame, and that both verifier profiles accept the
// protobuf one.
func TestDemoProtobufMatchesSSE(t *testing.T) {
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close()
	for _, tc := range []struct{ name, text, extra string }{
		{"tour", "Show me everything", ""},
		{"interrupt", "Please interrupt for approval", ""},
		{"resume", "Please interrupt for approval", `,"resume":[{"interruptId":"i-1","status":"resolved","payload":{"approved":true}}]`},
		{"fail", "Please fail", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":%q}]%s}`, tc.text, tc.extra)
			viaSSE := stream(t, srv.URL, "text/event-stream", body)
			viaProto := stream(t, srv.URL, "application/vnd.ag-ui.event+proto", body)
			if len(viaSSE) < 3 {
				t.Fatalf("only %d events", len(viaSSE))
			}
			if a, b := renameIDs(viaSSE), renameIDs(viaProto); a != b {
				t.Fatalf("the protobuf stream differs from the SSE one\nSSE:\n%s\nprotobuf:\n%s", a, b)
			}
			for _, p := range []verify.Profile{verify.ServerProfile, verify.ClientProfile} {
				if rep := verify.Check(p, viaProto); !rep.OK() {
					t.Fatalf("the %s profile rejects the protobuf stream at %d: %v", p, rep.Index, rep.Err)
				}
			}
		})
	}
}
