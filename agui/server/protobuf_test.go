package server_test

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/agui/server"
)

// TestNegotiatedContentType checks which binding each Accept header gets:
// protobuf when the client names it (or application/*) or when SSE is not
// admitted, SSE otherwise, and never by relative q between the two.
func TestNegotiatedContentType(t *testing.T) {
	h := server.NewHandler(hello())
	for _, tc := range []struct{ accept, want string }{
		{"", server.MediaTypeSSE},
		{"*/*", server.MediaTypeSSE},
		{"text/event-stream", server.MediaTypeSSE},
		{"application/vnd.ag-ui.event+proto", server.MediaTypeProtobuf},
		{"application/*", server.MediaTypeProtobuf},
		{"text/event-stream, application/vnd.ag-ui.event+proto;q=0.1", server.MediaTypeProtobuf},
		{"text/event-stream;q=1, application/vnd.ag-ui.event+proto;q=0.5", server.MediaTypeProtobuf},
		{"application/vnd.ag-ui.event+proto;q=0, */*", server.MediaTypeSSE},
		{"text/event-stream;q=0, */*", server.MediaTypeProtobuf},
		{"APPLICATION/VND.AG-UI.EVENT+PROTO", server.MediaTypeProtobuf},
	} {
		w := post(h, validBody, map[string]string{"Accept": tc.accept})
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != tc.want {
			t.Errorf("Accept %q: status %d, content type %q, want %q", tc.accept, w.Code, w.Header().Get("Content-Type"), tc.want)
		}
		if !slices.Contains(w.Header().Values("Vary"), "Accept") {
			t.Errorf("Accept %q: no Vary: Accept", tc.accept)
		}
	}
}

// readProto decodes every frame of a protobuf response.
func readProto(t *testing.T, body []byte) []agui.Event {
	t.Helper()
	var evs []agui.Event
	for msg, err := range protoframe.Frames(bytes.NewReader(body)) {
		if err != nil {
			t.Fatal(err)
		}
		ev, err := agui.DecodeEventProto(msg)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestProtobufStream(t *testing.T) {
	w := post(server.NewHandler(hello()), validBody, map[string]string{"Accept": server.MediaTypeProtobuf})
	var got []agui.EventType
	for _, ev := range readProto(t, w.Body.Bytes()) {
		got = append(got, ev.Type())
	}
	want := []agui.EventType{agui.EventTypeRunStarted, agui.EventTypeTextMessageStart, agui.EventTypeTextMessageContent, agui.EventTypeTextMessageEnd, agui.EventTypeRunFinished}
	if len(got) != len(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
}

// TestProtobufNoKeepAlive checks that an idle protobuf stream carries no
// keep-alive: the binary framing has no comment frame, so one would corrupt
// the stream.
func TestProtobufNoKeepAlive(t *testing.T) {
	idle := server.AgentFunc[struct{}](func(ctx context.Context, rc *server.RunContext[struct{}]) (server.Outcome, error) {
		time.Sleep(60 * time.Millisecond)
		return server.Success(), nil
	})
	h := server.NewHandler(idle, server.WithKeepAlive(10*time.Millisecond))
	w := post(h, validBody, map[string]string{"Accept": server.MediaTypeProtobuf})
	if evs := readProto(t, w.Body.Bytes()); len(evs) != 2 {
		t.Fatalf("%d events, want RUN_STARTED and RUN_FINISHED", len(evs))
	}
}
