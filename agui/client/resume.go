package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agui-go/sdk/internal/ctxcause"
)

// defaultResumeAttempts is how many times one run is reattached by default.
const defaultResumeAttempts = 5

// WithResumeAttempts sets how many times [Client.Run] reattaches to a run
// whose connection dropped before its terminal event (5 by default; 0
// turns reattaching off). It only ever happens with a server that numbers
// its events (durable runs): the client asks for
// GET {url}/runs/{runId}/events with Last-Event-ID set to the last event it
// read, waiting 50ms, 100ms, 200ms, … (at most 2s) before each attempt, or
// the server's Retry-After (at most 10s) when it is longer. An answer that
// asking again cannot change (404, 410, 403, 400, …) ends the attempts; the
// error then wraps both the dropped connection and that *HTTPError.
func WithResumeAttempts(n int) Option {
	return func(c *Client) error {
		if n < 0 {
			return fmt.Errorf("agui client: %d resume attempts", n)
		}
		c.resumeAttempts = n
		return nil
	}
}

// runURL is the URL of one of a run's routes.
func (c *Client) runURL(runID, action string) string {
	return strings.TrimSuffix(c.url, "/") + "/runs/" + url.PathEscape(runID) + "/" + action
}

// ErrCursorPastEnd is the error of a [Client.Resume] whose run ended before
// the event it was asked to resume after: the cursor names an event the run
// never sent (the server answers such a cursor with 400 INVALID_CURSOR).
var ErrCursorPastEnd = errors.New("agui client: the run ended before the resume cursor")

// Resume delivers run runID of a server with durable runs after position
// after (the zero Position: the whole run) and follows it live to its end,
// as [Client.Run] does once the run started: the same pipeline, the same
// positions, the same reattaching when the connection drops. It serves a
// client that lost its process, not only its connection: given the
// [Delivery.Pos] of the last event it handled, it gets every later event
// once (agui run --reattach).
//
// The run is read from its start, so that the pipeline checks it whole, and
// the events up to after are not delivered. after equal to the run's last
// event delivers nothing; after beyond it ends with [ErrCursorPastEnd] once
// the run has ended (a live run is followed until then).
func (c *Client) Resume(ctx context.Context, runID string, after Position, opts ...RunOption) iter.Seq2[Delivery, error] {
	return func(yield func(Delivery, error) bool) {
		var rc runConfig
		for _, o := range opts {
			o(&rc)
		}
		stopped := false
		resp, err := c.resume(ctx, runID, "", 0, rc.header, 0)
		if err == nil {
			err = c.consume(ctx, resp, runID, c.runReattacher(ctx, runID, rc), after, rc, c.warnFunc(rc.warn), func(d Delivery, _ int) bool {
				stopped = !yield(d, nil)
				return !stopped
			})
		}
		if err != nil && !stopped {
			yield(Delivery{}, err)
		}
	}
}

// maxRetryAfter caps how long a server's Retry-After holds a reattach back:
// a reader waiting on a live run should not sleep through it.
const maxRetryAfter = 10 * time.Second

// resume waits out the backoff of the attempt-th try (none for attempt 0),
// or the server's last Retry-After (hint) when that is longer, and
// reattaches to the run after lastID ("": from its start).
func (c *Client) resume(ctx context.Context, runID, lastID string, attempt int, extra http.Header, hint time.Duration) (*http.Response, error) {
	if err := backoff(ctx, attempt, hint); err != nil {
		return nil, err
	}
	return c.getStream(ctx, c.runURL(runID, "events"), lastID, extra)
}

// backoff waits before the attempt-th reattachment (not at all for attempt
// 0): 50ms doubling up to 2s, or the server's last Retry-After (hint) when
// that is longer, up to maxRetryAfter.
func backoff(ctx context.Context, attempt int, hint time.Duration) error {
	if attempt == 0 {
		return nil
	}
	wait := max(min(50*time.Millisecond<<(attempt-1), 2*time.Second), min(hint, maxRetryAfter))
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctxcause.Err(ctx)
	}
}

// getStream GETs an event stream (a durable run's, a thread's connect)
// from u, after lastID when it is not empty: the response of a 200, else
// the answer's *HTTPError, or the failure of the request.
//
// The request declares the version the client's inputs declare, in the
// query parameter protocolVersion (a GET has no input to carry it): the
// server translates the stream for it as it translates a run's.
func (c *Client) getStream(ctx context.Context, u, lastID string, extra http.Header) (*http.Response, error) {
	if c.era.declare {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + "protocolVersion=" + url.QueryEscape(c.era.declared)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("agui client: %w", err)
	}
	c.setHeaders(req, extra)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := sent(ctx, req, c.http.Do)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("agui client: %w", ctxcause.Err(ctx))
		}
		return nil, fmt.Errorf("agui client: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, readHTTPError(resp, resp.Header.Get("Content-Type"))
	}
	return resp, nil
}

// Cancel asks the server to cancel run runID wherever it runs (a server
// with durable runs: POST {url}/runs/{runId}/cancel). The run then ends
// with its own terminal event, which its readers receive. A run that
// already ended, or one the server does not know, is an *HTTPError (409,
// 404 or 410).
func (c *Client) Cancel(ctx context.Context, runID string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.runURL(runID, "cancel"), nil)
	if err != nil {
		return fmt.Errorf("agui client: %w", err)
	}
	c.setHeaders(req, nil)
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("agui client: %w", ctxcause.Err(ctx))
		}
		return fmt.Errorf("agui client: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return readHTTPError(resp, resp.Header.Get("Content-Type"))
	}
	return nil
}

func (c *Client) setHeaders(req *http.Request, extra http.Header) {
	for k, v := range c.header {
		req.Header[k] = append([]string(nil), v...)
	}
	for k, v := range extra {
		req.Header[k] = append(req.Header[k], v...)
	}
}
