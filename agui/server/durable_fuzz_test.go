package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// FuzzDurableRoutes sends the durable routes whatever a client may put in
// the path, the cursor and the Accept header: every answer is a stream of
// the one run there is, or a 4xx with the JSON error body; never a panic,
// a 5xx or a hang (the run has ended, so a stream ends too).
func FuzzDurableRoutes(f *testing.F) {
	log := runlog.NewMemory(runlog.MemoryOptions{})
	w, err := log.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r1"})
	if err != nil {
		f.Fatal(err)
	}
	for i, ev := range []string{`{"type":"RUN_STARTED","threadId":"t","runId":"r1"}`, `{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}`} {
		if _, err := w.Append([]byte(ev), i == 1); err != nil {
			f.Fatal(err)
		}
	}
	_ = w.Close()
	h := server.NewHandler(server.Func(func(context.Context, *server.Stateless) (server.Outcome, error) {
		return server.Success(), nil
	}), server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: server.AllowAll}))

	f.Add("GET", "/agent/runs/r1/events", "", "", "")
	f.Add("GET", "/agent/runs/r1/events", "1", "1", "application/vnd.ag-ui.event+proto")
	f.Add("GET", "/agent/runs/r1/events", "x", "", "")
	f.Add("GET", "/agent/runs/r1/events", "", "99", "text/html")
	f.Add("POST", "/agent/runs/r1/cancel", "", "", "")
	f.Add("GET", "/agent/runs/%zz/events", "-1", "18446744073709551616", "*/*")
	f.Add("DELETE", "/a/runs//events/runs/r1/events", " 2 ", "2", "")
	f.Fuzz(func(t *testing.T, method, path, lastID, after, accept string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " ?#\r\n") {
			return // not a request line net/http would hand a handler
		}
		u := &url.URL{Path: "/", RawPath: path}
		if unescaped, err := url.PathUnescape(path); err == nil {
			u.Path = unescaped
		}
		if after != "" {
			u.RawQuery = "after=" + url.QueryEscape(after)
		}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Method, req.URL = method, u
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch code := rec.Code; {
		case code == http.StatusOK || code == http.StatusAccepted:
		case code >= 400 && code < 500:
			var body struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code == "" || body.Error.Message == "" {
				t.Fatalf("%s %q: %d with body %q", method, path, code, rec.Body.String())
			}
		default:
			t.Fatalf("%s %q (Last-Event-ID %q, after %q, Accept %q): status %d: %s",
				method, path, lastID, after, accept, code, rec.Body.String())
		}
	})
}
