package server

import (
	"net/http"
	"strconv"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/cors"
)

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
			c.cors = &cors.Policy{}
		}
		c.cors.Add(origins...)
	})
}

// preflight answers an OPTIONS request to the handler.
func (cfg *handlerConfig) preflight(w http.ResponseWriter, r *http.Request) {
	cfg.cors.Preflight(w, r, "OPTIONS, POST", http.MethodPost, func() {
		cfg.reject(w, r, agui.HTTPCodeOriginNotAllowed,
			"origin "+strconv.Quote(r.Header.Get("Origin"))+" is not allowed to call this endpoint")
	})
}
