package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// legacyBody is what clients that write every optional member send: nulls
// for the absent ones ("tools": null is the default of at least one Go
// client).
const legacyBody = `{"threadId":"t","runId":"r","parentRunId":null,"state":null,` +
	`"messages":[{"id":"u","role":"user","content":"hi"}],"tools":null,"context":null,"resume":null,"forwardedProps":null}`

func TestLenientInput(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var got *agui.RunAgentInput
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		got = rc.Input()
		return server.Success(), nil
	})
	strict := server.NewHandler(agent, server.WithStrictInput(), server.WithLogger(slog.New(slog.DiscardHandler)))
	lenient := server.NewHandler(agent, server.WithLenientInput(), server.WithLogger(logger))

	// With WithStrictInput: 400 naming the member.
	if w := post(strict, `{"threadId":"t","runId":"r","messages":[],"tools":null}`, nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "/tools") {
		t.Fatalf("strict: %d %s", w.Code, w.Body)
	}

	for _, tc := range []struct {
		name, body string
		check      func(in *agui.RunAgentInput) bool
	}{
		{"legacy nulls", legacyBody, func(in *agui.RunAgentInput) bool {
			return in.Tools == nil && in.Context == nil && in.Resume == nil && in.ParentRunID == nil &&
				in.ForwardedProps == nil && len(in.Messages) == 1
		}},
		{"unknown member dropped", `{"threadId":"t","runId":"r","messages":[],"tools":[],"extra":1}`, func(in *agui.RunAgentInput) bool {
			return in.Tools != nil && len(in.Tools) == 0
		}},
		{"last occurrence wins", `{"threadId":"t","runId":"r","messages":[],"tools":[{"name":"x","description":"d"}],"tools":null}`, func(in *agui.RunAgentInput) bool {
			return in.Tools == nil
		}},
		{"null then value", `{"threadId":"t","runId":"r","messages":[],"tools":null,"tools":[{"name":"x","description":"d"}]}`, func(in *agui.RunAgentInput) bool {
			return len(in.Tools) == 1 && in.Tools[0].Name == "x"
		}},
		{"null messages read as none", `{"threadId":"t","runId":"r","messages":null,"tools":null}`, func(in *agui.RunAgentInput) bool {
			return in.Messages != nil && len(in.Messages) == 0 && in.Tools == nil
		}},
		{"values kept byte for byte", `{"threadId":"t\u00e9","runId":"r","messages":[],"tools":null,"forwardedProps":{"k":[1, 2]}}`, func(in *agui.RunAgentInput) bool {
			return in.ThreadID == "té" && string(in.ForwardedProps) == `{"k":[1, 2]}`
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			w := post(lenient, tc.body, nil)
			if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "RUN_FINISHED") {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if got == nil || !tc.check(got) {
				t.Fatalf("input %+v", got)
			}
		})
	}
	if !strings.Contains(logs.String(), "at /tools: converted legacy null to absent") {
		t.Fatalf("the repairs are not logged:\n%s", logs.String())
	}

	// Still rejected: a null where the protocol requires a value, and a body
	// that is not JSON.
	for _, body := range []string{
		`{"threadId":null,"runId":"r","messages":[]}`,
		`{"threadId":"t","runId":"r","messages":[],"tools":null`,
		`{"threadId":"t","runId":"r","messages":[],"tools":null} {}`,
		`[null]`,
	} {
		if w := post(lenient, body, nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "INVALID_INPUT") {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
	}
}

func preflight(h http.Handler, origin string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodOptions, "/agent", nil)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestCORS(t *testing.T) {
	const app = "https://app.example.com"
	h := server.NewHandler(hello(), server.WithCORS(app, "http://localhost:5173/"))

	t.Run("preflight from an allowed origin", func(t *testing.T) {
		w := preflight(h, app, map[string]string{
			"Access-Control-Request-Method":  "POST",
			"Access-Control-Request-Headers": "content-type, authorization",
		})
		hd := w.Header()
		if w.Code != http.StatusNoContent || hd.Get("Access-Control-Allow-Origin") != app ||
			hd.Get("Access-Control-Allow-Methods") != "POST" ||
			hd.Get("Access-Control-Allow-Headers") != "content-type, authorization" ||
			hd.Get("Access-Control-Max-Age") == "" || !strings.Contains(strings.Join(hd.Values("Vary"), ","), "Origin") {
			t.Fatalf("%d %v", w.Code, hd)
		}
		if w.Body.Len() != 0 {
			t.Fatalf("body %q", w.Body)
		}
	})
	t.Run("origin written with a trailing slash in the option", func(t *testing.T) {
		if w := preflight(h, "http://localhost:5173", nil); w.Code != http.StatusNoContent {
			t.Fatal(w.Code)
		}
	})
	t.Run("preflight from another origin", func(t *testing.T) {
		w := preflight(h, "https://evil.example", map[string]string{"Access-Control-Request-Method": "POST"})
		if w.Code != http.StatusForbidden || w.Header().Get("Access-Control-Allow-Origin") != "" ||
			!strings.Contains(w.Body.String(), string(agui.HTTPCodeOriginNotAllowed)) {
			t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
		}
	})
	t.Run("OPTIONS without an origin", func(t *testing.T) {
		w := preflight(h, "", nil)
		if w.Code != http.StatusNoContent || w.Header().Get("Allow") != "OPTIONS, POST" {
			t.Fatalf("%d %v", w.Code, w.Header())
		}
	})
	t.Run("the stream carries the header", func(t *testing.T) {
		w := post(h, validBody, map[string]string{"Origin": app})
		if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != app || !strings.Contains(w.Body.String(), "RUN_FINISHED") {
			t.Fatalf("%d %v", w.Code, w.Header())
		}
	})
	t.Run("so does a rejection", func(t *testing.T) {
		w := post(h, `{"threadId":`, map[string]string{"Origin": app})
		if w.Code != http.StatusBadRequest || w.Header().Get("Access-Control-Allow-Origin") != app {
			t.Fatalf("%d %v", w.Code, w.Header())
		}
		req := httptest.NewRequest(http.MethodGet, "/agent", nil)
		req.Header.Set("Origin", app)
		rw := httptest.NewRecorder()
		h.ServeHTTP(rw, req)
		if rw.Code != http.StatusMethodNotAllowed || rw.Header().Get("Allow") != "OPTIONS, POST" || rw.Header().Get("Access-Control-Allow-Origin") != app {
			t.Fatalf("%d %v", rw.Code, rw.Header())
		}
	})
	t.Run("a request from another origin is served without the header", func(t *testing.T) {
		w := post(h, validBody, map[string]string{"Origin": "https://evil.example"})
		if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("%d %v", w.Code, w.Header())
		}
	})
	t.Run("any origin", func(t *testing.T) {
		h := server.NewHandler(hello(), server.WithCORS("*"))
		w := preflight(h, "https://whoever.example", map[string]string{"Access-Control-Request-Method": "POST"})
		if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != "*" || w.Header().Get("Vary") != "" {
			t.Fatalf("%d %v", w.Code, w.Header())
		}
	})
	t.Run("without the option nothing changes", func(t *testing.T) {
		h := server.NewHandler(hello())
		w := preflight(h, app, map[string]string{"Access-Control-Request-Method": "POST"})
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != http.StatusMethodNotAllowed || body.Error.Code != "METHOD_NOT_ALLOWED" || w.Header().Get("Allow") != "POST" {
			t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
		}
		w = post(h, validBody, map[string]string{"Origin": app})
		for k := range w.Header() {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Fatalf("CORS header %s without the option", k)
			}
		}
	})
}
