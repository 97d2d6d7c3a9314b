package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/agui-go/sdk/internal/cors"
)

// Each way of running an agent takes its own option type, so that an option
// given to a function it means nothing to is a compile error rather than a
// silent no-op:
//
//   - [RunOption] configures [Run] and [NewRunner];
//   - [HandlerOption] configures [NewHandler];
//   - [Option] is both: the options that mean the same to a run however it is
//     driven ([WithLogger], [WithErrorDetail], [WithInputEcho], [WithTimeout]).
//
// The HTTP options ([WithMaxBodyBytes], [WithKeepAlive], [WithWriteTimeout],
// [WithStrictInput], [WithLenientInput], [WithCORS], [WithDurableRuns]) are
// HandlerOptions only.
// Durable runs take their settings in one [DurableConfig] rather than
// options of a family of their own: the settings mean nothing without the
// run log, so they come with it.
// [NewRunContext] takes no options: it has no driver to log a panic, no
// RUN_STARTED of its own to echo into, and its ctx already carries any
// deadline a test wants.

// RunOption configures [Run] and [NewRunner].
type RunOption interface {
	applyToRun(*runConfig)
}

// HandlerOption configures [NewHandler].
type HandlerOption interface {
	applyToHandler(*handlerConfig)
}

// Option configures both a run ([Run], [NewRunner]) and a handler
// ([NewHandler]); a handler passes it on to each run it drives.
type Option interface {
	RunOption
	HandlerOption
}

// runOption is an Option: it sets part of the run's configuration, which a
// handler holds for the runs it starts.
type runOption func(*runConfig)

func (o runOption) applyToRun(c *runConfig)         { o(c) }
func (o runOption) applyToHandler(c *handlerConfig) { o(&c.run) }

// handlerOption is a HandlerOption that sets part of the handler's own
// configuration.
type handlerOption func(*handlerConfig)

func (o handlerOption) applyToHandler(c *handlerConfig) { o(c) }

// runConfig is what every way of running an agent needs.
type runConfig struct {
	logger      *slog.Logger
	errorDetail bool // WithErrorDetail: messages to the client are not redacted
	echoInput   bool
	timeout     time.Duration
	// parentCause, when set, says which cause to report when the parent
	// context ends (the handler's is requestCause); otherwise it is the
	// parent's own cause.
	parentCause func(parent context.Context) error
	// observer is WithObserver's; nil: nothing is observed.
	observer *Observer
}

// handlerConfig is the HTTP handler's configuration, with the configuration
// of the runs it drives.
type handlerConfig struct {
	run          runConfig
	maxBody      int64
	keepAlive    time.Duration
	writeTimeout time.Duration
	maxBuffered  int
	input        inputMode
	cors         *cors.Policy // nil: no CORS handling, as without the option
	bodyTimeout  time.Duration
	maxRuns      int            // 0: no cap
	durable      *DurableConfig // nil: no run log, no run routes (WithDurableRuns)
	threads      *ThreadConfig  // nil: no thread store, no thread routes (WithThreads)
	bodyMemory   int64          // WithBodyMemory; <= 0: no bound
}

const (
	defaultMaxBody      = 10 << 20
	defaultWriteTimeout = 30 * time.Second
	defaultMaxBuffered  = 32 << 10
	defaultBodyTimeout  = 30 * time.Second
	defaultBodyMemory   = 64 << 20
	// smallBody is the largest announced body that does not take from the
	// WithBodyMemory budget: the common case stays free of its lock, and
	// small bodies are what WithMaxConcurrentRuns bounds anyway.
	smallBody = 64 << 10
)

func defaultRunConfig() runConfig { return runConfig{logger: slog.Default()} }

func newRunConfig(opts []RunOption) runConfig {
	c := defaultRunConfig()
	for _, o := range opts {
		if o != nil {
			o.applyToRun(&c)
		}
	}
	return c
}

func newHandlerConfig(opts []HandlerOption) handlerConfig {
	c := handlerConfig{
		run:          defaultRunConfig(),
		maxBody:      defaultMaxBody,
		writeTimeout: defaultWriteTimeout,
		maxBuffered:  defaultMaxBuffered,
		bodyTimeout:  defaultBodyTimeout,
		bodyMemory:   defaultBodyMemory,
	}
	for _, o := range opts {
		if o != nil {
			o.applyToHandler(&c)
		}
	}
	return c
}

// WithLogger sets where runs and the handler log; the default is
// slog.Default(). What is logged, one record each:
//
//   - a run that failed (level Error, "agui/server: run failed"): its
//     threadId, runId, code and the failure's whole message, which the
//     RUN_ERROR may carry only a summary of (see [WithErrorDetail]);
//   - an agent that panicked (level Error, "agui/server: agent panicked"):
//     the same, with the panic's value and stack;
//   - a run that was cancelled or whose client left (level Debug);
//   - a request answered with an HTTP error instead of a stream (level Info
//     for 4xx, Warn for 5xx, "agui/server: request rejected"): its status,
//     code, method, path and message, with the threadId and runId once the
//     body has named them;
//   - an input whose legacy nulls were read as absent (level Info; see
//     [WithStrictInput]).
//
// A nil l, or a logger whose handler is slog.DiscardHandler, logs nothing.
func WithLogger(l *slog.Logger) Option {
	return runOption(func(c *runConfig) {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		c.logger = l
	})
}

// WithErrorDetail makes a failure's whole message reach the client, in the
// RUN_ERROR of a run, a subagent's SUBAGENT_ERROR and the JSON body of a
// rejected request. Without it
// the client gets a summary: the message with every URL, IP address and
// host:port in it replaced by "<url>" or "<address>", since a provider's or
// a transport's error names the endpoints behind the server (a Go HTTP
// client's reads `Post "http://10.0.0.7:9199/v1/chat": dial tcp
// 10.0.0.7:9199: connect: connection refused`), which are nobody's
// business outside it. The log
// (see [WithLogger]) always has the whole message. Turn it on for
// development, or for a server whose clients are its own operators.
func WithErrorDetail() Option { return runOption(func(c *runConfig) { c.errorDetail = true }) }

// WithInputEcho makes RUN_STARTED carry the run's input (RUN_STARTED.input).
// Off by default: the client already has it. An input whose echo would make
// RUN_STARTED larger than the handler's frame limit (agui.DefaultMaxFrame,
// which a body at the size limit reaches) is not echoed: RUN_STARTED goes
// out without it.
func WithInputEcho() Option { return runOption(func(c *runConfig) { c.echoInput = true }) }

// WithTimeout bounds a run: when d has passed since the run was created, its
// context is cancelled with cause [ErrDeadline] and the run ends with RUN_ERROR
// code CANCELLED. Zero (the default) means no bound beyond the parent context.
func WithTimeout(d time.Duration) Option { return runOption(func(c *runConfig) { c.timeout = d }) }

// WithMaxBodyBytes sets the largest request body the handler accepts; larger
// ones get 413. The default is 10 MiB, the frame limit of the reference
// client. A request in flight holds about twice its body while it is decoded
// (the body and the decoded input), so n times twice the limit, with n the
// cap of [WithMaxConcurrentRuns], bounds what bodies can take; set both on a
// server open to untrusted clients.
func WithMaxBodyBytes(n int64) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.maxBody = n })
}

// WithBodyMemory bounds the bytes of request bodies the handler reads and
// decodes at the same time, across all requests; the default is 64 MiB. A
// body is held about twice while it is decoded (its bytes and the decoded
// input), so this bounds that transient cost at about twice n however many
// large bodies arrive together. A body that announces more than 64 KiB
// takes its announced size (the body limit when it announces none) before
// it is read and gives it back once it is decoded; one that does not fit
// waits in arrival order. One that is still waiting when the body timeout
// ([WithBodyTimeout]) ends gets 503 (OVERLOADED) with Retry-After, and a
// body larger than n is read alone. Smaller bodies do not wait: bound their
// number with [WithMaxConcurrentRuns]. n <= 0 removes the bound.
func WithBodyMemory(n int64) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.bodyMemory = n })
}

// WithKeepAlive makes the handler write an SSE comment line (": keep-alive")
// whenever the stream has been idle for d (nothing written to the client for
// d), so that proxies do not time the connection
// out while the agent thinks. A stream that is never idle that long carries
// none. Zero (the default) writes none.
func WithKeepAlive(d time.Duration) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.keepAlive = d })
}

// WithWriteTimeout sets how long the handler waits for a client that makes no
// progress reading: a client that has not taken the next 36 KiB of the stream
// within d is treated as gone, and its run is cancelled with
// [ErrClientDisconnected]. It bounds the time without progress, not the time
// a write takes: a client reading slowly but steadily (more than 36 KiB per d;
// 1.2 KiB a second at the default) keeps its stream however long a burst
// takes it to read. The cut comes up to a 64th of d late (the deadline is
// not set again for every piece of a burst). Zero leaves the server's
// deadlines alone. The default is 30s.
func WithWriteTimeout(d time.Duration) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.writeTimeout = d })
}

// inputMode is how forgiving the handler is of a request body.
type inputMode uint8

const (
	legacyNullsAbsent inputMode = iota // the default: legacy nulls read as absent
	strictInput                        // WithStrictInput
	lenientInput                       // WithLenientInput
)

// WithStrictInput makes the handler read request bodies strictly, as the
// protocol's schema says: a null where the protocol wants a member omitted
// ("tools": null) gets 400 naming its JSON path, as does anything else the
// schema refuses. Without it a handler reads what real clients send: legacy
// nulls read as absent, as the reference client does to its own input (a
// top-level optional member of RunAgentInput given as null, which the
// community Go client sends for "tools", "context" and "forwardedProps",
// and the protocol's other legacy nulls deeper in, with a null "messages",
// a Go client's nil slice, read as an empty list), and each body that
// needed it is logged once, at level Info, naming the repairs. Everything
// else is checked as strictly either way. A null state reads as absent in
// every mode, unlogged: the protocol keeps that tolerance for good.
//
// Turn it on for a server whose clients should learn that the protocol
// says "omit instead of null": a strict server is how they learn it.
func WithStrictInput() HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.input = strictInput })
}

// WithLenientInput makes the handler forgive more than legacy nulls: the
// body is decoded leniently ([agui.DecodeOptions.Lenient]), which also drops
// members and union variants it does not know (a message of an unknown
// role, a content part of an unknown type), for peers newer than this
// server. Each repair is logged in the record of the body's repairs. A body
// still invalid gets 400. Of WithStrictInput and WithLenientInput, the
// last given wins.
func WithLenientInput() HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.input = lenientInput })
}

// WithBodyTimeout bounds how long the handler waits for the request body: a
// client that has not sent all of it within d gets 408 (REQUEST_TIMEOUT) and
// no run starts. The deadline is lifted once the body is read, so it never
// cuts a stream. Zero leaves the server's read deadline alone. The default is
// 30s.
func WithBodyTimeout(d time.Duration) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.bodyTimeout = d })
}

// WithMaxConcurrentRuns caps how many runs the handler drives at once: past n,
// a request is answered at once, before its body is read, with 503
// (OVERLOADED), a Retry-After header of one second and the JSON error body, so
// a burst degrades instead of exhausting memory. Zero or less (the default)
// sets no cap.
//
// With [WithDurableRuns] the cap counts what holds the server's resources,
// not only requests: a run holds one slot from its POST to its terminal
// event, also once its POST is gone ([DurableConfig.Detach]), and each GET
// …/runs/{runId}/events stream holds one while it streams (a GET past the
// cap gets the same 503, after its run was found and authorized). A run
// with a reattached reader thus holds two, as it holds two goroutines and
// two buffers. A cancel holds none and is never refused, so a Stop reaches
// a server at its cap.
func WithMaxConcurrentRuns(n int) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.maxRuns = n })
}
