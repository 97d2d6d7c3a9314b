package copilotkit

import (
	"net/http"
	"strconv"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/cors"
)

// WithCORS lets pages served from the given origins ("https://app.example.com",
// "http://localhost:5173"; "*" for every one) call the runtime: preflights
// are answered (204, or 403 ORIGIN_NOT_ALLOWED for another origin) and every
// answer to an allowed origin carries Access-Control-Allow-Origin. Without
// it no CORS header is sent and OPTIONS is refused like any method a route
// does not serve. Credentials (cookies) are not enabled.
func WithCORS(origins ...string) Option {
	return func(c *config) {
		if c.cors == nil {
			c.cors = &cors.Policy{}
		}
		c.cors.Add(origins...)
	}
}

// preflight answers an OPTIONS request to the runtime.
func (h *Handler) preflight(w http.ResponseWriter, r *http.Request) {
	h.cfg.cors.Preflight(w, r, "GET, OPTIONS, POST", "GET, POST", func() {
		h.reject(w, r, agui.HTTPCodeOriginNotAllowed,
			"origin "+strconv.Quote(r.Header.Get("Origin"))+" is not allowed to call this runtime")
	})
}
