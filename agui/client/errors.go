package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxErrorBody bounds how much of a non-2xx body is read: enough for any
// error document, not enough for a hostile server to exhaust memory.
const maxErrorBody = 64 << 10

func readHTTPError(resp *http.Response, ct string) *HTTPError {
	e := &HTTPError{Status: resp.StatusCode, ContentType: ct, RetryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	e.Body, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if strings.Contains(ct, "application/json") {
		var doc struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(e.Body, &doc) == nil {
			e.Code, e.Message = doc.Error.Code, doc.Error.Message
		}
	}
	return e
}

// retryAfter reads a Retry-After header: delay seconds or an HTTP date. It
// returns 0 when there is none or it does not parse.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32); err == nil {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// transient reports whether an answer with this status may be different if
// asked again a little later: a timeout, a rate limit, a server error or an
// overloaded server. A reattach that gets anything else (the run is gone,
// forbidden, the cursor is wrong) stops trying.
func transient(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// ctxError is the error of a run whose context ended: ctx.Err(), or, when
// the context was cancelled with a cause of its own
// (context.WithCancelCause), an error that matches both. errors.Is(err,
// context.Canceled) then holds for every cancelled run, whatever the cause,
// and errors.Is(err, cause) holds too.
func ctxError(ctx context.Context) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause == nil || cause == err {
		return err
	}
	return &abortError{err: err, cause: cause}
}

// abortError is a context's end with a cause other than its error.
type abortError struct{ err, cause error }

func (e *abortError) Error() string   { return e.err.Error() + ": " + e.cause.Error() }
func (e *abortError) Unwrap() []error { return []error{e.err, e.cause} }
