package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/server/threads"
)

// FuzzThreadRoutes sends the thread routes whatever a client may put in the
// thread id, the page cursor and limit, and Last-Event-ID: every answer is
// the one thread there is (JSON, or a stream the client verifier accepts),
// or a 4xx with the JSON error body; never a panic, a 5xx or a hang (the
// thread has no live run, so a stream ends).
func FuzzThreadRoutes(f *testing.F) {
	h := server.NewHandler(deltaAgent(3, -1, nil),
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll}))
	for _, run := range []string{"r1", "r2"} {
		req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(`{"threadId":"t","runId":"`+run+`","messages":[]}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			f.Fatalf("run %s: %d %s", run, rec.Code, rec.Body)
		}
	}

	f.Add("t", false, "", "", "")
	f.Add("t", true, "", "", "")
	f.Add("t", false, "1", "1", "")
	f.Add("t", false, "x", "0", "")
	f.Add("t", true, "", "", "s2")
	f.Add("t", true, "", "", "r3:r2")
	f.Add("t", true, "", "", "r1:%zz")
	f.Add("nope", true, "", "", "s")
	f.Add("a/b", false, "99999999999", "-1", "r:")
	f.Fuzz(func(t *testing.T, id string, connect bool, cursor, limit, lastID string) {
		if strings.ContainsAny(lastID, "\r\n") {
			return // not a header net/http would hand a handler
		}
		path := "/agent/threads/" + url.PathEscape(id)
		if connect {
			path += "/events"
		}
		q := url.Values{}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if limit != "" {
			q.Set("limit", limit)
		}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL = &url.URL{Path: "/", RawPath: path, RawQuery: q.Encode()}
		if p, err := url.PathUnescape(path); err == nil {
			req.URL.Path = p
		}
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch code := rec.Code; {
		case code == http.StatusOK && connect:
			if frames := readSSE(t, rec.Body, -1); len(frames) > 0 && lastID == "" {
				checkClient(t, frames)
			}
		case code == http.StatusOK:
			var body struct {
				ThreadID string `json:"threadId"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.ThreadID != "t" {
				t.Fatalf("%q: %s", path, rec.Body)
			}
		case code >= 400 && code < 500:
			var body struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code == "" || body.Error.Message == "" {
				t.Fatalf("%q: %d with body %q", path, code, rec.Body.String())
			}
		default:
			t.Fatalf("%q (cursor %q, limit %q, Last-Event-ID %q): status %d: %s", path, cursor, limit, lastID, code, rec.Body.String())
		}
	})
}

// TestThreadTruncatedMarker: a thread over its store's bound keeps its
// newest messages, and its connect stream says how many it dropped.
func TestThreadTruncatedMarker(t *testing.T) {
	store := threads.NewMemory(threads.MemoryOptions{MaxMessages: 2})
	say := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say("ok")
	})
	srv := threadServer(t, say, server.ThreadConfig{Store: store, Authorize: server.AllowAll})
	for _, run := range []string{"r1", "r2", "r3"} {
		resp := postRunWith(t, srv.URL, "t", run, `[{"id":"u-`+run+`","role":"user","content":"hi"}]`)
		resp.Body.Close()
	}
	resp := connect(t, srv.URL, "t", "")
	frames := readSSE(t, resp.Body, -1)
	resp.Body.Close()
	checkClient(t, frames)
	var marker string
	for _, f := range frames {
		if strings.Contains(f.data, server.ThreadTruncatedEvent) {
			marker = f.data
		}
	}
	jsonEq(t, `{"type":"CUSTOM","name":"`+server.ThreadTruncatedEvent+`","value":{"droppedMessages":4,"droppedRuns":0}}`, marker)
	msgs := reduce(t, nil, frames).Messages()
	equal(t, true, 2, len(msgs))
	equal(t, false, "u-r3", msgs[0].MessageID())
}

func postRunWith(t *testing.T, base, thread, run, messages string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, base+"/agent",
		strings.NewReader(`{"threadId":"`+thread+`","runId":"`+run+`","messages":`+messages+`}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	noErr(t, err)
	_, err = io.Copy(io.Discard, resp.Body)
	noErr(t, err)
	return resp
}
