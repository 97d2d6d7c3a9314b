package bench

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agui-go/sdk/agui/server"
)

// serve runs h once for the payload's input and returns the body.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(runInput))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	h.ServeHTTP(w, req)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	return w.Body.String()
}

// events parses an SSE body into its events, each as a generic JSON value,
// failing on any line that is not a data line or a frame separator.
func events(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for frame := range strings.SplitSeq(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(frame, "data: ")
		require.True(t, ok, "frame %q", frame)
		require.NotContains(t, data, "\n", "one data line per frame")
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(data), &ev), data)
		out = append(out, ev)
	}
	return out
}

// The runs both servers stream are the same events: the comparison is of
// equal work. (Member order may differ; the events may not.)
func TestRunsAreEquivalent(t *testing.T) {
	const n = 5
	ours := events(t, serve(t, oursHandler(n, nil)))
	theirs := events(t, serve(t, communityHandler(n, nil)))
	require.Len(t, ours, n+4)
	require.Len(t, theirs, n+4)
	// The one member the community SDK cannot send: RUN_STARTED's
	// protocolVersion (1.0), 24 bytes of the whole run.
	require.Equal(t, "1.0", ours[0]["protocolVersion"])
	delete(ours[0], "protocolVersion")
	for i := range ours {
		require.Equal(t, ours[i], theirs[i], "event %d", i)
	}
	require.Equal(t, map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": messageID, "delta": delta}, ours[2])
}

// The single delta frame both emit benchmarks write is the same bytes, for
// the plain delta and the escape-heavy one.
func TestDeltaFramesAreEqual(t *testing.T) {
	for _, text := range []string{delta, escapedDelta} {
		ours, theirs := oursDeltaFrame(t, text), communityDeltaFrame(t, text)
		require.Equal(t, string(ours), string(theirs))
		require.True(t, bytes.HasPrefix(ours, []byte("data: {")), "%q", ours)
		require.Equal(t, []map[string]any{{"type": "TEXT_MESSAGE_CONTENT", "messageId": messageID, "delta": text}}, events(t, string(ours)))
	}
}

// The escape-heavy runs are the same events on both sides as well.
func TestEscapedRunsAreEquivalent(t *testing.T) {
	const n = 3
	ours := serve(t, server.NewHandler(oursAgent(n, escapedDelta, nil)))
	theirs := serve(t, communityTextHandler(n, escapedDelta, nil))
	// Frame for frame the same but for RUN_STARTED (see TestRunsAreEquivalent).
	require.Equal(t, strings.SplitAfter(ours, "\n\n")[1:], strings.SplitAfter(theirs, "\n\n")[1:])
}

// Every yardstick server sends agui-go's body byte for byte: the loopback
// and client rows compare ways of writing the same bytes. (The pieces
// handler's cuts fall inside frames: the run is 60 KiB, two pieces.)
func TestYardsticksSendOursBytes(t *testing.T) {
	for _, text := range []string{delta, escapedDelta} {
		frames := oursTextFrames(runDeltas, text)
		want := serve(t, server.NewHandler(oursAgent(runDeltas, text, nil)))
		require.Greater(t, len(want), aguiWritePiece, "the run fits one piece: the pieces handler would not cut it")
		for name, h := range map[string]http.Handler{
			"noflush": noFlushHandler(frames),
			"flush":   flushHandler(frames),
			"pieces":  piecesHandler(frames),
			"body":    bodyHandler(frames),
		} {
			require.Equal(t, want, serve(t, h), name)
		}
	}
}
