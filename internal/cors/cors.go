// Package cors is the answer to browsers on other origins shared by the
// agent handler (server.WithCORS) and the CopilotKit runtime
// (copilotkit.WithCORS): which origins are allowed, the headers every
// response to one carries, and the preflight. The two differ only in the
// methods they serve and in how they word a refusal.
package cors

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// MaxAge is how long a browser may cache a preflight answer (seconds): long
// enough that a chat front end does not preflight every message, short
// enough that a changed configuration is picked up within minutes.
const MaxAge = 600

// Policy is a set of allowed origins. The zero value allows none.
type Policy struct {
	any     bool     // "*" was allowed: every origin, answered with "*"
	origins []string // exact origins, as browsers send them (scheme://host[:port])
}

// Add allows origins, written as browsers send them in the Origin header
// ("https://app.example.com"; a trailing slash is dropped); "*" allows every
// origin.
func (p *Policy) Add(origins ...string) {
	for _, o := range origins {
		o = strings.TrimSuffix(strings.TrimSpace(o), "/")
		switch {
		case o == "*":
			p.any = true
		case o != "" && !slices.Contains(p.origins, o):
			p.origins = append(p.origins, o)
		}
	}
}

// allowOrigin returns the Access-Control-Allow-Origin value for a request
// with the given Origin header, or "" when the origin is not allowed.
func (p *Policy) allowOrigin(origin string) string {
	switch {
	case origin == "":
		return ""
	case p.any:
		return "*"
	case slices.ContainsFunc(p.origins, func(o string) bool { return strings.EqualFold(o, origin) }):
		return origin
	}
	return ""
}

// SetHeaders adds the headers every response to r carries, and returns
// whether r's origin is allowed.
func (p *Policy) SetHeaders(h http.Header, r *http.Request) bool {
	if !p.any {
		// The answer depends on Origin: caches must not serve one origin's
		// answer to another.
		h.Add("Vary", "Origin")
	}
	allow := p.allowOrigin(r.Header.Get("Origin"))
	if allow == "" {
		return false
	}
	h.Set("Access-Control-Allow-Origin", allow)
	return true
}

// Preflight answers an OPTIONS request to an endpoint whose Allow header is
// allow and which browsers may call with methods (Access-Control-Allow-
// Methods). A preflight from an origin the policy does not allow is left to
// refuse, which answers it (403 ORIGIN_NOT_ALLOWED with the caller's JSON
// error body).
func (p *Policy) Preflight(w http.ResponseWriter, r *http.Request, allow, methods string, refuse func()) {
	h := w.Header()
	h.Set("Allow", allow)
	if r.Header.Get("Origin") == "" {
		// Not from a browser: just say what the endpoint allows.
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !p.any {
		h.Add("Vary", "Access-Control-Request-Method")
		h.Add("Vary", "Access-Control-Request-Headers")
	}
	if !p.SetHeaders(h, r) {
		refuse()
		return
	}
	h.Set("Access-Control-Allow-Methods", methods)
	if req := r.Header.Values("Access-Control-Request-Headers"); len(req) > 0 {
		// The origin is trusted; let it send the headers it asked for
		// (Content-Type, Authorization, its own tracing headers).
		h.Set("Access-Control-Allow-Headers", strings.Join(req, ", "))
	}
	h.Set("Access-Control-Max-Age", strconv.Itoa(MaxAge))
	w.WriteHeader(http.StatusNoContent)
}
