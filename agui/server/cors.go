package server

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// corsConfig is the handler's answer to browsers on other origins.
type corsConfig struct {
	any     bool     // "*" was allowed: every origin, answered with "*"
	origins []string // exact origins, as browsers send them (scheme://host[:port])
	maxAge  int      // seconds a preflight answer may be cached
}

// corsMaxAge is how long a browser may cache a preflight answer: long enough
// that a chat front end does not preflight every message, short enough that
// a changed configuration is picked up within minutes.
const corsMaxAge = 600

// WithCORS lets browser front ends served from the given origins call the
// handler. An origin is written as browsers send it in the Origin header,
// scheme, host and port ("https://app.example.com", "http://localhost:5173");
// "*" allows every origin.
//
// With it, the handler answers a CORS preflight (OPTIONS) from an allowed
// origin with 204, Access-Control-Allow-Origin, -Methods (POST),
// -Headers (those the browser asked for) and -Max-Age; a preflight from any
// other origin gets 403 with the JSON error body (code ORIGIN_NOT_ALLOWED).
// Every response to a request from an allowed origin, the stream and the
// 4xx answers alike, carries Access-Control-Allow-Origin, so the browser lets
// the page read it. A request from another origin is served as without the
// option (browsers then keep the response from the page). Credentials
// (cookies) are not enabled.
//
// Without the option the handler sends no CORS headers and answers OPTIONS
// with 405, like any method other than POST. Calling it more than once adds
// origins.
func WithCORS(origins ...string) HandlerOption {
	return handlerOption(func(c *handlerConfig) {
		if c.cors == nil {
			c.cors = &corsConfig{maxAge: corsMaxAge}
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
	})
}

// allowOrigin returns the Access-Control-Allow-Origin value for a request
// with the given Origin header, or "" when the origin is not allowed.
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

// setHeaders adds the headers every response to r carries, and returns
// whether r's origin is allowed.
func (c *corsConfig) setHeaders(h http.Header, r *http.Request) bool {
	if !c.any {
		// The answer depends on Origin: caches must not serve one origin's
		// answer to another.
		h.Add("Vary", "Origin")
	}
	allow := c.allowOrigin(r.Header.Get("Origin"))
	if allow == "" {
		return false
	}
	h.Set("Access-Control-Allow-Origin", allow)
	return true
}

// preflight answers an OPTIONS request.
func (c *corsConfig) preflight(w http.ResponseWriter, r *http.Request, cfg *handlerConfig) {
	h := w.Header()
	h.Set("Allow", "OPTIONS, POST")
	if r.Header.Get("Origin") == "" {
		// Not from a browser: just say what the endpoint allows.
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !c.any {
		h.Add("Vary", "Access-Control-Request-Method")
		h.Add("Vary", "Access-Control-Request-Headers")
	}
	if !c.setHeaders(h, r) {
		cfg.reject(w, r, agui.HTTPCodeOriginNotAllowed,
			"origin "+strconv.Quote(r.Header.Get("Origin"))+" is not allowed to call this endpoint")
		return
	}
	h.Set("Access-Control-Allow-Methods", http.MethodPost)
	if req := r.Header.Values("Access-Control-Request-Headers"); len(req) > 0 {
		// The origin is trusted; let it send the headers it asked for
		// (Content-Type, Authorization, its own tracing headers).
		h.Set("Access-Control-Allow-Headers", strings.Join(req, ", "))
	}
	h.Set("Access-Control-Max-Age", strconv.Itoa(c.maxAge))
	w.WriteHeader(http.StatusNoContent)
}
