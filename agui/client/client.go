package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/internal/ctxcause"
	"github.com/agui-go/sdk/internal/protover"
)

// The Accept headers a client sends. With WithProtobuf it names the
// protobuf binding and keeps SSE as a lower-q fallback: a server that only
// speaks SSE still admits the request instead of answering 406. (The
// bindings ignore relative q between the two types; naming protobuf is what
// opts in, and the q only documents the preference.)
const (
	acceptSSE   = sseMediaType
	acceptProto = protoframe.MediaType + ", " + sseMediaType + ";q=0.5"
)

const sseMediaType = "text/event-stream"

// Client runs an AG-UI agent at one URL. It is safe for concurrent use; each
// run has its own request and pipeline.
type Client struct {
	url       string
	http      *http.Client
	header    http.Header
	maxFrame  int
	own       protover.Version  // WithProtocolVersion
	peer      *protover.Version // WithMaxProtocolVersion; nil: the same as own
	era       era
	onWarning func(agui.Warning)
	proto     bool
	// resumeAttempts bounds the reattachments of one run after dropped
	// connections (WithResumeAttempts).
	resumeAttempts int
	// observer is WithObserver's; nil: runs are not observed.
	observer *Observer
}

// Option configures a Client.
type Option func(*Client) error

// WithHTTPClient makes the client send its requests with hc (timeouts,
// transport, cookies are the caller's). The default is http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("agui client: nil *http.Client")
		}
		c.http = hc
		return nil
	}
}

// WithHeader adds a header sent with every request. Content-Type and Accept
// are the client's own and cannot be overridden.
func WithHeader(key, value string) Option {
	return func(c *Client) error { c.header.Add(key, value); return nil }
}

// WithMaxFrame sets the largest frame accepted, in bytes of data (SSE) or
// of message (protobuf); a larger one fails the run. The default is
// [agui.DefaultMaxFrame].
func WithMaxFrame(n int) Option {
	return func(c *Client) error {
		if n <= 0 {
			return fmt.Errorf("agui client: frame limit %d is not positive", n)
		}
		c.maxFrame = n
		return nil
	}
}

// WithMaxProtocolVersion declares the newest protocol version the agent
// speaks (default: the client's own, see WithProtocolVersion). Below 1.0 the
// input does not declare protocolVersion; at 0.0.57 or older subagents are
// removed in both directions; at 0.0.39 or older content parts are flattened
// to text; below 1.1 the input's messages lose encryptedValueType, and the
// input declares the peer's version, the one it was translated to. Each
// loss is reported as a WarnEra warning.
func WithMaxProtocolVersion(v string) Option {
	return func(c *Client) error {
		ver, err := protover.Parse(v)
		if err != nil {
			return fmt.Errorf("agui client: %w", err)
		}
		c.peer = &ver
		return nil
	}
}

// WithProtocolVersion sets the protocol version the client itself speaks:
// "1.0" or "1.1" (the default, agui.ProtocolVersion). A client pinned to 1.0
// behaves as a 1.0 client: its input declares 1.0 and carries nothing 1.1
// added, it strips the members 1.1 added from incoming events with an
// agui.WarnStripped warning (the processing model's treatment of
// unrecognised material), and a 1.1 producer draws the newer-version
// warning. WithMaxProtocolVersion is the other side: the version of the peer.
func WithProtocolVersion(v string) Option {
	return func(c *Client) error {
		ver, err := parseOwn(v)
		if err != nil {
			return err
		}
		c.own = ver
		return nil
	}
}

// WithWarnings sets a function called with every warning of every run, in
// order, on the goroutine that consumes the run. LogWarnings adapts a
// *slog.Logger.
func WithWarnings(f func(agui.Warning)) Option {
	return func(c *Client) error { c.onWarning = f; return nil }
}

// WithProtobuf makes the client ask for the protobuf binding
// (application/vnd.ag-ui.event+proto), with SSE as the fallback for a
// server that does not speak it. Whatever it asked for, a client reads the
// answer in the binding its Content-Type names, so the option only changes
// the request; events from either binding go through the same Pipeline.
func WithProtobuf() Option {
	return func(c *Client) error { c.proto = true; return nil }
}

// New returns a Client for the agent at url.
func New(url string, opts ...Option) (*Client, error) {
	c := &Client{
		url:      url,
		http:     http.DefaultClient,
		header:   make(http.Header),
		maxFrame: agui.DefaultMaxFrame,
		own:      protover.Current,

		resumeAttempts: defaultResumeAttempts,
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	peer := c.own
	if c.peer != nil {
		peer = *c.peer
	}
	c.era = eraOf(c.own, peer)
	return c, nil
}

// RunOption configures one run.
type RunOption func(*runConfig)

type runConfig struct {
	header http.Header
	warn   []func(agui.Warning)
	conv   *conversation.Conversation
}

// RunConversation folds every delivered event into conv before it is
// yielded, and passes on the warnings of what conv cannot apply (of the
// conversation package's kinds) with the event's frame index. It is what a
// Thread does, for callers of the low-level Run that keep their own
// conversation.
func RunConversation(conv *conversation.Conversation) RunOption {
	return func(r *runConfig) { r.conv = conv }
}

// RunHeader adds a header to this run's request only.
func RunHeader(key, value string) RunOption {
	return func(r *runConfig) {
		if r.header == nil {
			r.header = make(http.Header)
		}
		r.header.Add(key, value)
	}
}

// RunWarnings adds a function called with each warning of this run.
func RunWarnings(f func(agui.Warning)) RunOption {
	return func(r *runConfig) { r.warn = append(r.warn, f) }
}

// HTTPError is a non-2xx answer. Code and Message are filled in when the
// body is the JSON error body {"error":{"code","message"}}; Body holds the
// first bytes of any body.
type HTTPError struct {
	Status      int
	ContentType string
	Code        string
	Message     string
	Body        []byte
	// RetryAfter is the server's Retry-After (delay seconds or a date),
	// 0 when it sent none. Reattaching to a durable run waits at least this
	// long, up to maxRetryAfter, before asking again.
	RetryAfter time.Duration
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("agui client: HTTP %d %s", e.Status, http.StatusText(e.Status))
	switch {
	case e.Code != "" || e.Message != "":
		s += ": " + e.Code + ": " + e.Message
	case len(e.Body) > 0:
		s += ": " + string(bytes.TrimSpace(e.Body))
	}
	return s
}

// Run POSTs in to the agent and iterates over the events delivered to
// application code: every event that survives the pipeline (see Pipeline),
// in order, each with its [Position] (the durable sequence number, when the
// server sends one, that [Client.Resume] takes). A failure (transport, HTTP
// status, a rejected or truncated stream) is yielded once as the last pair,
// with a zero Delivery; a RUN_ERROR sent by the agent is an event, not a
// failure. Cancelling ctx, or breaking out of the loop, aborts the request:
// the agent sees the connection close, and the error of a cancelled ctx
// matches both ctx.Err() and its cause (context.WithCancelCause).
//
// The input is sent as given, after the era shims of the client's two
// versions (WithProtocolVersion, WithMaxProtocolVersion); protocolVersion
// is declared when absent and the peer is 1.0 or newer, as the older of the
// two, and lowered to it when the input declares a newer one. in is not
// modified.
func (c *Client) Run(ctx context.Context, in *agui.RunAgentInput, opts ...RunOption) iter.Seq2[Delivery, error] {
	return func(yield func(Delivery, error) bool) {
		stopped := false
		err := c.run(ctx, in, opts, func(d Delivery, _ int) bool {
			stopped = !yield(d, nil)
			return !stopped
		})
		if err != nil && !stopped {
			yield(Delivery{}, err)
		}
	}
}

// run is Run with the frame index of each event, for the Thread's warnings.
// It returns nil when deliver stopped it.
func (c *Client) run(ctx context.Context, in *agui.RunAgentInput, opts []RunOption, deliver func(Delivery, int) bool) (err error) {
	var rc runConfig
	for _, o := range opts {
		o(&rc)
	}
	if c.observer != nil {
		var t *RunTrace
		if ctx, t = c.observe(ctx, in); t != nil {
			if t.End != nil {
				defer func() { t.End(err) }()
			}
			if t.Warning != nil {
				rc.warn = append(slices.Clip(rc.warn), t.Warning)
			}
			if t.Event != nil {
				inner := deliver
				deliver = func(d Delivery, i int) bool {
					t.Event(d.Event, d.Pos)
					return inner(d, i)
				}
			}
		}
	}
	warn := c.warnFunc(rc.warn)
	body, err := c.encodeInput(in, warn)
	if err != nil {
		return err
	}
	resp, err := c.post(ctx, body, rc.header)
	if err != nil {
		return err
	}
	return c.consume(ctx, resp, in.RunID, c.runReattacher(ctx, in.RunID, rc), Position{}, rc, warn, deliver)
}

// reattacher opens a stream again after the SSE id lastID of the last event
// read, the attempt-th time: it waits out the attempt's backoff, or the
// server's last Retry-After (hint) when that is longer, first.
type reattacher func(lastID string, attempt int, hint time.Duration) (*http.Response, error)

// runReattacher reattaches to durable run runID; nil for a run without id.
func (c *Client) runReattacher(ctx context.Context, runID string, rc runConfig) reattacher {
	if runID == "" {
		return nil
	}
	return func(lastID string, attempt int, hint time.Duration) (*http.Response, error) {
		return c.resume(ctx, runID, lastID, attempt, rc.header, hint)
	}
}

// consume reads a run's stream (of run runID; "" for a thread's) from resp
// through the pipeline. An SSE stream whose events carry ids (durable runs,
// a thread's connect stream) is opened again with again when the connection
// drops before a terminal event (see WithResumeAttempts); nil: never.
// Events at skip or before go through the pipeline, which checks the run
// from its start, but are not delivered. It closes resp's body.
func (c *Client) consume(ctx context.Context, resp *http.Response, runID string, again reattacher, skip Position, rc runConfig, warn func(agui.Warning), deliver func(Delivery, int) bool) error {
	defer func() { resp.Body.Close() }()
	trace := traceOf(ctx) // nil unless the run is observed
	p, _ := NewPipeline(PipelineWarnings(warn))
	p.era = c.era
	stopped, ended := false, false
	var sr *sse.Reader // the SSE reader of the connection being read, nil for protobuf
	// The position of the event being delivered. The SSE id is parsed once
	// per id: a stream without ids compares "" with "" and nothing more.
	var pos Position
	var posID string
	each := func(ev agui.Event) bool {
		if rc.conv != nil {
			for _, w := range rc.conv.Apply(ev) {
				w.Index = p.index
				warn(w)
			}
		}
		t := ev.Type()
		ended = t == agui.EventTypeRunFinished || t == agui.EventTypeRunError
		if sr != nil {
			if id := sr.LastEventID(); id != posID {
				posID = id
				pos.Seq, _ = strconv.ParseUint(id, 10, 64) // 0 for an id that is not a number
			}
		}
		at := pos
		pos.Part++
		if skip != (Position{}) && !at.After(skip) {
			return true
		}
		stopped = !deliver(Delivery{Event: ev, Pos: at}, p.index)
		return !stopped
	}
	var next func() ([]byte, error)
	push := p.Push
	if isProto(resp.Header.Get("Content-Type")) {
		r := protoframe.NewReader(resp.Body)
		r.SetMaxFrame(c.maxFrame)
		next, push = r.Next, p.PushProto
	} else {
		r := sse.NewReader(resp.Body)
		r.SetMaxFrame(c.maxFrame)
		defer func() { r.Release() }() // the reader of the last connection: its buffer serves the next run
		sr = r
		crWarned := false
		attempts := 0
		var hint time.Duration // the last refusal's Retry-After
		next = func() ([]byte, error) {
			for {
				frame, err := r.Next()
				if !crWarned && r.SawCR() {
					crWarned = true
					warn(agui.Warning{Kind: agui.WarnFraming, Index: p.frames, Offset: -1, Message: "the stream ends lines with CR or CRLF: read here, but the reference client splits frames on LF alone and cannot read it"})
				}
				if err == nil || ended || again == nil || r.LastEventID() == "" || ctx.Err() != nil || attempts >= c.resumeAttempts {
					return frame, err
				}
				// The server numbers its events (durable runs) and the
				// run has not ended: the connection dropped. Reattach
				// after the last event read; the server replays strictly
				// after it, so every event is delivered once, in order.
				attempts++
				next, rerr := again(r.LastEventID(), attempts, hint)
				if trace != nil && trace.Reattach != nil {
					trace.Reattach(r.LastEventID(), attempts, rerr)
				}
				if rerr != nil {
					var he *HTTPError
					refused := errors.As(rerr, &he)
					if (!refused || transient(he.Status)) && attempts < c.resumeAttempts && ctx.Err() == nil {
						hint = 0 // a dropped connection asks for no wait of its own
						if refused {
							hint = he.RetryAfter
						}
						continue // r returns its error again: the next try
					}
					// Both: the dropped connection, and why it could not be
					// picked up again (a 410 says the missed events are gone).
					return nil, fmt.Errorf("%w; reattaching failed: %w", err, rerr)
				}
				resp.Body.Close()
				resp = next
				last := r.LastEventID()
				r.Release()
				r = sse.NewReader(resp.Body)
				r.SetMaxFrame(c.maxFrame)
				r.SetLastEventID(last)
				sr = r
			}
		}
	}
	for {
		frame, err := next()
		if err == io.EOF {
			if err := p.Finish(); err != nil {
				return err
			}
			if skip.Seq > pos.Seq && ended {
				return fmt.Errorf("%w: run %s ended with event %d, before event %d", ErrCursorPastEnd, runID, pos.Seq, skip.Seq)
			}
			return nil
		}
		if err != nil {
			return c.readFailure(ctx, p, err)
		}
		pos.Part = 0
		if err := push(frame, each); err != nil {
			return err
		}
		if stopped {
			return nil
		}
	}
}

// readFailure is the error of a body that could not be read to its end. A
// protobuf body that stops inside a frame also left its run open: the error
// then matches verify.ErrTruncated as well as protoframe.ErrTruncated.
func (c *Client) readFailure(ctx context.Context, p *Pipeline, err error) error {
	if ctx.Err() != nil {
		return &StreamError{Index: p.frames, Err: ctxcause.Err(ctx)}
	}
	if errors.Is(err, protoframe.ErrTruncated) {
		var open *StreamError
		if errors.As(p.Finish(), &open) {
			err = errors.Join(err, open.Err)
		}
	}
	return &StreamError{Index: p.frames, Err: err}
}

// isProto reports whether a response's Content-Type names the protobuf
// binding. The reference client compares the header as a string, so a
// parameter sends it to SSE; parsing the media type reads that answer too,
// which it cannot otherwise be read as. Anything else, a missing header
// included, is read as SSE, as the reference does.
func isProto(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == protoframe.MediaType
}

func (c *Client) warnFunc(extra []func(agui.Warning)) func(agui.Warning) {
	hooks := slices.Clone(extra)
	if c.onWarning != nil {
		hooks = append(hooks, c.onWarning)
	}
	return func(w agui.Warning) {
		for _, h := range hooks {
			h(w)
		}
	}
}

// encodeInput applies the outgoing shims to a copy of in and encodes it.
func (c *Client) encodeInput(in *agui.RunAgentInput, warn func(agui.Warning)) ([]byte, error) {
	if in == nil {
		return nil, errors.New("agui client: nil input")
	}
	cp := *in
	cp.Messages = slices.Clone(in.Messages)
	if cp.ProtocolVersion == nil {
		cp.ProtocolVersion = &c.era.declared
	}
	downgradeInput(&cp, c.era, func(msg string) {
		warn(agui.Warning{Kind: WarnEra, Index: -1, Offset: -1, Message: msg})
	})
	if cp.Messages == nil {
		cp.Messages = []agui.Message{} // required on the wire
	}
	body, err := cp.AppendJSON(nil)
	if err != nil {
		return nil, fmt.Errorf("agui client: the input cannot be encoded: %w", err)
	}
	return body, nil
}

func (c *Client) post(ctx context.Context, body []byte, extra http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("agui client: %w", err)
	}
	for k, v := range c.header {
		req.Header[k] = slices.Clone(v)
	}
	for k, v := range extra {
		req.Header[k] = append(req.Header[k], v...)
	}
	req.Header.Set("Content-Type", "application/json")
	accept := acceptSSE
	if c.proto {
		accept = acceptProto
	}
	req.Header.Set("Accept", accept)
	resp, err := sent(ctx, req, c.http.Do)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("agui client: %w", ctxcause.Err(ctx))
		}
		return nil, fmt.Errorf("agui client: %w", err)
	}
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, readHTTPError(resp, ct)
	}
	return resp, nil
}
