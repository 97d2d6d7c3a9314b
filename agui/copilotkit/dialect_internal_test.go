package copilotkit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// stream is an agent handler's SSE stream with every kind of frame the
// dialect meets: ids, a keep-alive, a run's body, and endings it rewrites
// and does not.
const stream = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
	": keep-alive\n\n" +
	"id: 2\ndata: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\\\"cancelled\\\" is a word\"}\n\n" +
	"id: 3\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"outcome\":{\"type\":\"cancelled\"},\"usage\":[{\"inputTokens\":3}]}\n\n" +
	"data: {\"type\":\"RUN_ERROR\",\"message\":\"run cancelled by request\",\"code\":\"CANCELLED\"}\n\n" +
	"data: {\"type\":\"RUN_ERROR\",\"message\":\"boom\",\"code\":\"AGENT_ERROR\"}\n\n" +
	"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"outcome\":{\"type\":\"success\"}}\n\n" +
	"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"outcome\":{\"type\":\"success\",\"pendingToolCallIds\":[\"c1\"]}}\n\n" +
	"data: {\"type\":\"TOOL_CALL_RESULT\",\"messageId\":\"m2\",\"toolCallId\":\"c1\",\"content\":[{\"type\":\"text\",\"text\":\"see \"},{\"type\":\"image\",\"source\":{\"type\":\"url\",\"value\":\"https://x.test/a.png\"}},{\"type\":\"text\",\"text\":\"this\"}]}\n\n" +
	"data: {\"type\":\"MESSAGES_SNAPSHOT\",\"messages\":[{\"id\":\"u\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},{\"id\":\"m2\",\"role\":\"tool\",\"toolCallId\":\"c1\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}]}\n\n" +
	"data: {\"type\":\"MESSAGES_SNAPSHOT\",\"messages\":[{\"id\":\"u\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]}\n\n"

const rewritten = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
	": keep-alive\n\n" +
	"id: 2\ndata: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\\\"cancelled\\\" is a word\"}\n\n" +
	"id: 3\ndata: {\"type\":\"RUN_ERROR\",\"message\":\"Run stopped by user\",\"code\":\"abort\",\"usage\":[{\"inputTokens\":3}]}\n\n" +
	"data: {\"type\":\"RUN_ERROR\",\"message\":\"run cancelled by request\",\"code\":\"abort\"}\n\n" +
	"data: {\"type\":\"RUN_ERROR\",\"message\":\"boom\",\"code\":\"AGENT_ERROR\"}\n\n" +
	"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"outcome\":{\"type\":\"success\"}}\n\n" +
	"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"outcome\":{\"type\":\"success\"}}\n\n" +
	"data: {\"type\":\"TOOL_CALL_RESULT\",\"messageId\":\"m2\",\"toolCallId\":\"c1\",\"content\":\"see this\"}\n\n" +
	"data: {\"type\":\"MESSAGES_SNAPSHOT\",\"messages\":[{\"id\":\"u\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},{\"id\":\"m2\",\"role\":\"tool\",\"content\":\"ok\",\"toolCallId\":\"c1\"}]}\n\n" +
	"data: {\"type\":\"MESSAGES_SNAPSHOT\",\"messages\":[{\"id\":\"u\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]}\n\n"

// through writes s to a dialect in pieces cut at cuts.
func through(s string, cuts []byte, connect bool, status int) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	d := newDialect(rec, connect, nil)
	d.Header().Set("Content-Type", "text/event-stream")
	d.WriteHeader(status)
	for _, c := range cuts {
		n := min(int(c)%17+1, len(s))
		_, _ = d.Write([]byte(s[:n]))
		d.Flush()
		s = s[n:]
	}
	if s != "" {
		_, _ = d.Write([]byte(s))
	}
	d.finish()
	return rec
}

func TestDialectRewrites(t *testing.T) {
	for _, tc := range []struct {
		name string
		cuts []byte
	}{{"whole", nil}, {"bytes", []byte(strings.Repeat("\x00", len(stream)))}, {"pieces", []byte{5, 40, 3, 16, 0, 9}}} {
		if got := through(stream, tc.cuts, false, 200).Body.String(); got != rewritten {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, rewritten)
		}
	}
}

func TestDialectPassesRefusals(t *testing.T) {
	rec := httptest.NewRecorder()
	d := newDialect(rec, false, nil)
	d.Header().Set("Content-Type", "application/json")
	d.WriteHeader(http.StatusBadRequest)
	_, _ = d.Write([]byte(`{"error":{"code":"INVALID_INPUT","message":"\"cancelled\""}}`))
	d.finish()
	if rec.Code != 400 || rec.Body.String() != `{"error":{"code":"INVALID_INPUT","message":"\"cancelled\""}}` {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
	// Connect to a thread the store does not know: an empty stream.
	for _, status := range []int{http.StatusNotFound, http.StatusGone} {
		rec := through(`{"error":{"code":"x","message":"y"}}`, nil, true, status)
		if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "text/event-stream" {
			t.Errorf("connect, %d: %d %q %s", status, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
	}
}

// FuzzDialect: however the stream is cut into writes, the client gets the
// same bytes.
func FuzzDialect(f *testing.F) {
	f.Add([]byte{1, 2, 3})
	f.Add([]byte{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16})
	f.Fuzz(func(t *testing.T, cuts []byte) {
		if got := through(stream, cuts, false, 200).Body.String(); got != rewritten {
			t.Fatalf("cut at %v:\n%s", cuts, got)
		}
	})
}

// An event whose JSON does not start with its type is found by its marks.
func TestDialectTypeNotFirst(t *testing.T) {
	in := "data: {\"threadId\":\"t\",\"type\":\"RUN_FINISHED\",\"runId\":\"r\",\"outcome\":{\"type\":\"cancelled\"}}\n\n"
	want := "data: {\"type\":\"RUN_ERROR\",\"message\":\"Run stopped by user\",\"code\":\"abort\"}\n\n"
	if got := through(in, nil, false, 200).Body.String(); got != want {
		t.Errorf("%s\nwant\n%s", got, want)
	}
}
