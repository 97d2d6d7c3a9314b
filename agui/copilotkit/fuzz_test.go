package copilotkit_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/copilotkit"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/verify"
)

// fuzzRuntime is a runtime whose one agent answers at once, so that no
// fuzzed request waits on a run.
func fuzzRuntime(f *testing.F) http.Handler {
	rt, err := copilotkit.New([]copilotkit.Agent{{ID: "chat", Handler: server.NewHandler(chatAgent(), durable()...)}})
	if err != nil {
		f.Fatal(err)
	}
	// The runtime itself, not behind a ServeMux, which would answer a
	// path with an empty segment with a redirect of its own.
	mux := rt
	// A thread for connect and stop to find.
	req := httptest.NewRequest(http.MethodPost, "/ck/agent/chat/run", strings.NewReader(runInput("t", "r1", "hi")))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		f.Fatal(rec.Code, rec.Body)
	}
	return mux
}

// checkAnswer holds every answer to the rules: a stream of events the
// client verifier accepts (or an empty one, for connect to an unknown
// thread), a JSON object, or a refusal with the JSON error body; a 5xx
// only for a method this runtime does not serve.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	ct := rec.Header().Get("Content-Type")
	switch {
	case rec.Code == http.StatusOK && strings.HasPrefix(ct, "text/event-stream"):
		// A connect stream is a replayed run and the live one: each run on
		// its own is a whole run.
		var runs [][][]byte
		for line := range strings.SplitSeq(rec.Body.String(), "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			ev, err := agui.DecodeEvent([]byte(data))
			if err != nil {
				t.Fatalf("an event that does not decode: %v\n%s", err, data)
			}
			if ev.Type() == agui.EventTypeRunStarted || len(runs) == 0 {
				runs = append(runs, nil)
			}
			runs[len(runs)-1] = append(runs[len(runs)-1], []byte(data))
		}
		for _, docs := range runs {
			if rep := verify.Check(verify.ClientProfile, docs); !rep.OK() {
				t.Fatalf("a stream the client verifier refuses: %v\n%s", rep.Err, rec.Body)
			}
		}
	case rec.Code == http.StatusOK || rec.Code == http.StatusAccepted:
		var v map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("%d with a body that is not a JSON object: %s", rec.Code, rec.Body)
		}
	default:
		var body struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code == "" || body.Error.Message == "" {
			t.Fatalf("%d without the JSON error body: %s", rec.Code, rec.Body)
		}
		if rec.Code >= 500 && body.Error.Code != "NOT_IMPLEMENTED" {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}

// FuzzEnvelope posts whatever a client may send to the single-route
// endpoint.
func FuzzEnvelope(f *testing.F) {
	h := fuzzRuntime(f)
	for _, s := range []string{
		`{"method":"info"}`,
		`{"method":"agent/run","params":{"agentId":"chat"},"body":` + runInput("t", "r2", "hi") + `}`,
		`{"method":"agent/run","params":{"agentId":"chat"},"body":{"threadId":"t","runId":"r1","messages":[]}}`,
		`{"method":"agent/connect","params":{"agentId":"chat"},"body":{"threadId":"t"}}`,
		`{"method":"agent/connect","params":{"agentId":"chat"},"body":{"threadId":"none"}}`,
		`{"method":"agent/stop","params":{"agentId":"chat","threadId":"t"}}`,
		`{"method":"agent/stop","params":{"agentId":"chat","threadId":"t"},"body":{"runId":"r1"}}`,
		`{"method":"agent/stop","params":{"agentId":"chat","threadId":"t"},"body":[]}`,
		`{"method":"agent/suggest","params":{"agentId":"chat"}}`,
		`{"method":"agent/run","params":{"agentId":null},"body":null}`,
		`{"method":"","params":[]}`,
		`null`, `[]`, `"info"`, `{`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/ck", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkAnswer(t, rec)
	})
}

// FuzzRoutes sends the multi-route form whatever method, agent id, route,
// thread id and body a client may put there.
func FuzzRoutes(f *testing.F) {
	h := fuzzRuntime(f)
	f.Add("POST", "chat", "run", "", runInput("t", "r3", "hi"))
	f.Add("POST", "chat", "run", "", runInput("t", "r1", "again"))
	f.Add("POST", "chat", "connect", "", `{"threadId":"t"}`)
	f.Add("POST", "chat", "connect", "", `{"threadId":""}`)
	f.Add("POST", "chat", "stop", "t", ``)
	f.Add("POST", "chat", "stop", "t", `{"runId":"r1"}`)
	f.Add("POST", "chat", "stop", "a/b", `{"runId":7}`)
	f.Add("GET", "", "info", "", ``)
	f.Add("OPTIONS", "chat", "run", "", ``)
	f.Add("POST", "nope", "run", "", `{}`)
	f.Add("PUT", "chat", "connect", "", `{}`)
	f.Fuzz(func(t *testing.T, method, agentID, route, threadID, body string) {
		if !utf8.ValidString(method) || method == "" || strings.ContainsAny(method, " \t\r\n/") {
			return // not a method net/http would hand a handler
		}
		path := "/ck/agent/" + url.PathEscape(agentID) + "/" + url.PathEscape(route)
		switch route {
		case "info":
			path = "/ck/info"
		case "stop":
			path += "/" + url.PathEscape(threadID)
		}
		req := httptest.NewRequest(http.MethodGet, path, strings.NewReader(body))
		req.Method = method
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if method == http.MethodOptions && rec.Code == http.StatusNotFound {
			return // no CORS: OPTIONS is a route like any other
		}
		checkAnswer(t, rec)
	})
}
