package copilotkit

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// corsConfig is the runtime's answer to browsers on other origins, as
// server.WithCORS gives an agent's handler, for GET (info) and POST.
type corsConfig struct {
	any     bool
	origins []string
}

// corsMaxAge is how long a browser may cache a preflight answer (seconds),
// the agent handler's value.
const corsMaxAge = 600

// WithCORS lets pages served from the given origins ("https://app.example.com",
// "http://localhost:5173"; "*" for every one) call the runtime: preflights
// are answered (204, or 403 ORIGIN_NOT_ALLOWED for another origin) and every
// answer to an allowed origin carries Access-Control-Allow-Origin. Without
// it no CORS header is sent and OPTIONS is refused like any method a route
// does not serve. Credentials (cookies) are not enabled.
func WithCORS(origins ...string) Option {
	return func(c *config) {
		if c.cors == nil {
			c.cors = &corsConfig{}
		}
		for _, o := range origins {
			o = strings.TrimSuffix(strings.TrimSpace(o), "/")
			switch {
			case o == "*":
				c.cors.any = true
			case o != "" && !slices.Contains(c.cors.origins, o):
				c.cors.origins = append(c.cors.origins, o)
			}
		}
	}
}

func (c *corsConfig) allowOrigin(origin string) string {
	switch {
	case origin == "":
		return ""
	case c.any:
		return "*"
	case slices.ContainsFunc(c.origins, func(o string) bool { return strings.EqualFold(o, origin) }):
		return origin
	}
	return ""
}

func (c *corsConfig) setHeaders(h http.Header, r *http.Request) bool {
	if !c.any {
		h.Add("Vary", "Origin")
	}
	allow := c.allowOrigin(r.Header.Get("Origin"))
	if allow == "" {
		return false
	}
	h.Set("Access-Control-Allow-Origin", allow)
	return true
}

func (c *corsConfig) preflight(w http.ResponseWriter, r *http.Request, rt *Handler) {
	h := w.Header()
	h.Set("Allow", "GET, OPTIONS, POST")
	if r.Header.Get("Origin") == "" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !c.any {
		h.Add("Vary", "Access-Control-Request-Method")
		h.Add("Vary", "Access-Control-Request-Headers")
	}
	if !c.setHeaders(h, r) {
		rt.reject(w, r, agui.HTTPCodeOriginNotAllowed,
			"origin "+strconv.Quote(r.Header.Get("Origin"))+" is not allowed to call this runtime")
		return
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST")
	if req := r.Header.Values("Access-Control-Request-Headers"); len(req) > 0 {
		h.Set("Access-Control-Allow-Headers", strings.Join(req, ", "))
	}
	h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
	w.WriteHeader(http.StatusNoContent)
}
