package client

import (
	"context"
	"net/http"

	"github.com/agui-go/sdk/agui"
)

// Observer is told of the runs a Client runs ([Client.Run], and a
// [Thread]'s runs, which go through it), from the consumer's side: the
// hook that client metrics and traces are built on (the module
// github.com/agui-go/sdk/otel turns it into OpenTelemetry). Set it with
// [WithObserver]; a client without one pays nothing for it.
type Observer struct {
	// StartRun is called once per run, before its request is built. The
	// context it returns (derived from ctx) is the run's from there on:
	// its requests are made with it. The RunTrace it returns (nil for
	// none) is told of the run.
	StartRun func(ctx context.Context, info RunInfo) (context.Context, *RunTrace)
}

// RunInfo describes a run to [Observer.StartRun].
type RunInfo struct {
	// Input is the run's input as the caller gave it: read it, do not
	// keep or change it.
	Input *agui.RunAgentInput
	// URL is the agent's.
	URL string
}

// RunTrace is told of one run by the funcs that are not nil, all on the
// goroutine that consumes the run, in order.
type RunTrace struct {
	// Request is called with each request of the run before it is sent:
	// the POST, and the GET of each reattachment. It may add headers (a
	// trace context).
	Request func(req *http.Request)
	// Response is called when a request was answered (its headers
	// arrived: the first byte) or failed, with the answer (a non-2xx one
	// included; its body is not to be read) or the error.
	Response func(resp *http.Response, err error)
	// Event is called with each event delivered to the application, with
	// its position, before it is delivered.
	Event func(ev agui.Event, pos Position)
	// Warning is called with each warning of the run.
	Warning func(w agui.Warning)
	// Reattach is called after each attempt to reattach to a durable run
	// whose connection dropped (see WithResumeAttempts): the SSE id of the
	// last event read, the attempt (from 1) and its error (nil: the
	// stream goes on).
	Reattach func(lastID string, attempt int, err error)
	// End is called once the run is over for the client, with the error
	// the run's iteration yields last (nil when the stream ended, or the
	// loop stopped it).
	End func(err error)
}

// WithObserver sets the observer of the client's runs; see [Observer].
func WithObserver(o Observer) Option {
	return func(c *Client) error {
		if o.StartRun == nil {
			c.observer = nil
			return nil
		}
		c.observer = &o
		return nil
	}
}

type traceKey struct{}

// traceOf returns the run trace ctx carries (see observe), or nil.
func traceOf(ctx context.Context) *RunTrace {
	t, _ := ctx.Value(traceKey{}).(*RunTrace)
	return t
}

// observe starts the observation of a run of in under ctx: the context
// the run goes on with, which carries the trace for the requests, and the
// trace (nil without one).
func (c *Client) observe(ctx context.Context, in *agui.RunAgentInput) (context.Context, *RunTrace) {
	octx, t := c.observer.StartRun(ctx, RunInfo{Input: in, URL: c.url})
	if octx == nil {
		octx = ctx
	}
	if t == nil {
		return octx, nil
	}
	return context.WithValue(octx, traceKey{}, t), t
}

// sent tells the run's trace, if ctx carries one, of req and then of its
// answer.
func sent(ctx context.Context, req *http.Request, do func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	t := traceOf(ctx)
	if t == nil {
		return do(req)
	}
	if t.Request != nil {
		t.Request(req)
	}
	resp, err := do(req)
	if t.Response != nil {
		t.Response(resp, err)
	}
	return resp, err
}
