package server

import (
	"context"
	"log/slog"
	"time"
)

// Each way of running an agent takes its own option type, so that an option
// given to a function it means nothing to is a compile error rather than a
// silent no-op:
//
//   - [RunOption] configures [Run] and [NewRunner];
//   - [HandlerOption] configures [NewHandler];
//   - [Option] is both: the options that mean the same to a run however it is
//     driven ([WithLogger], [WithInputEcho], [WithTimeout]).
//
// The HTTP options ([WithMaxBodyBytes], [WithKeepAlive], [WithWriteTimeout],
// [WithLenientInput], [WithCORS], [WithDurableRuns]) are HandlerOptions only.
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
	logger    *slog.Logger
	echoInput bool
	timeout   time.Duration
	// parentCause, when set, says which cause to report when the parent
	// context ends (the handler's is requestCause); otherwise it is the
	// parent's own cause.
	parentCause func(parent context.Context) error
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
	cors         *corsConfig // nil: no CORS handling, as without the option
	bodyTimeout  time.Duration
	maxRuns      int            // 0: no cap
	durable      *DurableConfig // nil: no run log, no run routes (WithDurableRuns)
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

// WithLogger sets where agent panics (with their stacks) and handler failures
// are logged. The default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return runOption(func(c *runConfig) {
		if l != nil {
			c.logger = l
		}
	})
}

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
	// nullsAsAbsent, the default: a top-level optional member given as
	// null reads as absent (logged once per request); the rest is strict.
	nullsAsAbsent inputMode = iota
	strictInput             // WithStrictInput
	lenientInput            // WithLenientInput
)

// By default the handler reads a top-level optional member of RunAgentInput
// given as null ("tools": null, which the community Go client sends,
// "context", "resume", "parentRunId", …) as absent, which is what the
// reference client does to its own input before validating it; each such
// request is logged at info level, naming the members. Everything else is
// decoded strictly. The two options below move that line either way.

// WithStrictInput makes the handler refuse every null the protocol does not
// allow with 400, naming the member ("omit the property instead"): what a
// server that wants its clients to learn the protocol's "omit instead of
// null" does. `state: null` stays accepted, a tolerance the protocol keeps.
func WithStrictInput() HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.input = strictInput })
}

// WithLenientInput makes the handler forgive more of what older or careless
// clients send: after the default's top-level nulls, the body is decoded
// leniently ([agui.DecodeOptions.Lenient]), which drops members it does not know
// and reads the protocol's other legacy nulls as absent. Each repair is
// logged at debug level. A body that is still invalid gets 400.
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
