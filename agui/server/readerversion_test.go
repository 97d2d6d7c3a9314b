package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/testlog"
)

// TestReaderVersion checks the version a GET reader declares in the query
// parameter protocolVersion: a run posted by a 1.1 consumer, read back by
// reattaching and by connecting to its thread. Without the parameter the
// log is served as it is (the replayed run declares the current version);
// 1.0 gets the 1.0 stream, each loss logged; a newer major is refused.
func TestReaderVersion(t *testing.T) {
	logger, rec := testlog.NewRecorder()
	srv := threadServer(t, encryptedAgent(), server.ThreadConfig{Authorize: server.AllowAll}, server.WithLogger(logger))
	resp, err := http.Post(srv.URL+"/agent", "application/json",
		strings.NewReader(`{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[]}`))
	noErr(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	for _, tt := range []struct {
		name, path, query string
		declares          []string // what each RUN_STARTED of the stream declares
		members           int      // encryptedValueType members in the stream
		warns             bool     // a Warn record names what was dropped
	}{
		{"reattach, no declaration", "/runs/r/events", "", []string{"1.1"}, 3, false},
		{"reattach, 1.1", "/runs/r/events", "?protocolVersion=1.1", []string{"1.1"}, 3, false},
		{"reattach, 1.0", "/runs/r/events", "?protocolVersion=1.0", []string{"1.0"}, 0, true},
		{"reattach, pre-1.0", "/runs/r/events", "?protocolVersion=0.0.57", []string{"1.0"}, 0, true},
		// The replayed run holds the snapshot's message and its tool call.
		{"connect, no declaration", "/threads/t/events", "", []string{"1.1"}, 2, false},
		{"connect, 1.0", "/threads/t/events", "?protocolVersion=1.0", []string{"1.0"}, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(rec.Records())
			resp, err := http.Get(srv.URL + "/agent" + tt.path + tt.query)
			noErr(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			equal(t, true, http.StatusOK, resp.StatusCode, string(body))
			var declares []string
			for line := range strings.SplitSeq(string(body), "\n") {
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok || !strings.Contains(data, `"RUN_STARTED"`) {
					continue
				}
				var started struct{ ProtocolVersion string }
				noErr(t, json.Unmarshal([]byte(data), &started))
				declares = append(declares, started.ProtocolVersion)
			}
			equal(t, false, tt.declares, declares, "RUN_STARTED declares")
			equal(t, false, tt.members, strings.Count(string(body), `"encryptedValueType"`), string(body))
			for _, v := range []string{`"e2"`, `"e3"`} {
				truth(t, false, strings.Contains(string(body), v), "the encrypted value", v, "is lost:", string(body))
			}
			warned := false
			for _, r := range rec.Records()[before:] {
				if r.Level == slog.LevelWarn && strings.Contains(r.Message, "dropped what 1.1 added") {
					warned = true
				}
			}
			equal(t, false, tt.warns, warned, "a Warn record of the loss")
		})
	}

	t.Run("protobuf, 1.0", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/agent/runs/r/events?protocolVersion=1.0", nil)
		req.Header.Set("Accept", server.MediaTypeProtobuf)
		resp, err := http.DefaultClient.Do(req)
		noErr(t, err)
		defer resp.Body.Close()
		equal(t, true, http.StatusOK, resp.StatusCode)
		body, _ := io.ReadAll(resp.Body)
		r := protoframe.NewReader(bytes.NewReader(body))
		n := 0
		for {
			frame, err := r.Next()
			if err == io.EOF {
				break
			}
			noErr(t, err)
			ev, err := agui.DecodeEventProto(frame)
			noErr(t, err)
			b, _ := agui.AppendEvent(nil, ev)
			truth(t, false, !bytes.Contains(b, []byte("encryptedValueType")), "a 1.1 member reached a 1.0 reader:", string(b))
			if rs, ok := ev.(*agui.RunStarted); ok {
				truth(t, false, rs.ProtocolVersion != nil && *rs.ProtocolVersion == "1.0", "RUN_STARTED declares", rs.ProtocolVersion)
			}
			n++
		}
		truth(t, false, n >= 4, n, "events")
	})

	for _, path := range []string{"/runs/r/events", "/threads/t/events"} {
		t.Run("newer major on "+path, func(t *testing.T) {
			resp, err := http.Get(srv.URL + "/agent" + path + "?protocolVersion=2.0")
			noErr(t, err)
			defer resp.Body.Close()
			var answer struct {
				Error struct{ Code, Message string }
			}
			noErr(t, json.NewDecoder(resp.Body).Decode(&answer))
			equal(t, false, http.StatusBadRequest, resp.StatusCode)
			equal(t, false, string(agui.HTTPCodeUnsupportedProtocolVersion), answer.Error.Code, answer.Error.Message)
			truth(t, false, strings.Contains(answer.Error.Message, "2.0"), answer.Error.Message)
		})
	}
}
