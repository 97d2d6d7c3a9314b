package demo_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui/server/demo"
)

// The demo endpoint lets any AG-UI client in: a browser front end on another
// origin (preflight, then the stream with the CORS header) and a client that
// sends legacy nulls.
func TestHandlerWelcomesAnyClient(t *testing.T) {
	h := demo.Handler()

	pre := httptest.NewRequest(http.MethodOptions, "/agent", nil)
	pre.Header.Set("Origin", "http://localhost:3000")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "content-type")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, pre)
	if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight: %d %v", w.Code, w.Header())
	}

	body := `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"fail"}],"tools":null,"context":null}`
	req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://localhost:3000")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(w.Body.String(), `"RUN_ERROR"`) {
		t.Fatalf("run: %d %v\n%s", w.Code, w.Header(), w.Body)
	}
}
