// Package server is the AG-UI server runtime: agents, the run driver, the run
// context an agent emits through, the error type with stable codes,
// cancellation, and the net/http handler that streams a run as server-sent
// events.
//
// An agent implements [Agent] (or is an [AgentFunc], or for an agent
// without state a [Func]); [Run] drives it and returns the run as an
// iter.Seq2[agui.Event, error]; [NewHandler] mounts it at an HTTP endpoint:
//
//	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
//		return server.Success(), rc.Say("Hello!")
//	})
//	http.Handle("/agent", server.NewHandler(agent))
//
// # Guarantees
//
// A stream always ends with exactly one terminal event: RUN_FINISHED with the
// agent's [Outcome], or RUN_ERROR with the failure's [agui.ErrorCode] and
// message — when the agent fails, panics, is cancelled, or breaks an ordering
// rule. Every emitted event is checked by the server-profile verifier
// ([verify.Server]) before it leaves, so a protocol bug surfaces as an error
// where it was made (PROTOCOL_VIOLATION) rather than three hops downstream.
// The build tag agui_noverify compiles the verifier out.
//
// # The first failure
//
// Once an emit fails, every later emit of the run sends nothing and returns
// that first error, and the run ends with RUN_ERROR reporting it, whatever
// the agent returns ([Emitter.Err] says whether one has failed). An agent
// may therefore emit without checking each error, as one writes to a
// bufio.Writer, and never finishes as a success after part of the run was
// lost; the helpers for the common shapes ([Emitter.SayStream],
// [Emitter.SayReader], [Emitter.EmitToolCall], [RunContext.ChangeState])
// follow the same rule:
//
//	rc.ChangeState(func(s *Trip) { s.City = city })
//	rc.EmitToolCall("weather", args, forecast)
//	rc.SayStream(deltas)
//	return server.Interrupted(server.NewInterrupt("approval", "Book it?")), nil
//
// An emit through a subagent that ended fails without failing the run (see
// [Subagent]).
//
// # Logs and what the client is told
//
// The driver and the handler log through log/slog ([WithLogger]; the
// default is slog.Default()): a failed run, a panic, a rejected request,
// with the run's thread and run ids. The client gets a summary of a failure,
// with URLs and addresses replaced, and the log the whole message, unless
// [WithErrorDetail] sends it whole.
//
// # Concurrency and backpressure
//
// A [RunContext] and its handles are safe for concurrent use. An agent may fan
// work out to goroutines (parallel tool calls, say) that emit at the same time:
// emission is serialised by one mutex, and under it each event is verified and
// handed to the consumer whole, so the verifier judges the very order the
// consumer receives. Entities belong to whoever opened them: a subagent's
// [Emitter] tags its events, and continuing another owner's entity fails with
// the owner-mismatch rule.
//
// Nothing is queued without bound. [Run] hands events over an unbuffered
// channel; the handler buffers at most a few tens of kilobytes before the
// emitting goroutine itself waits for the network. A slow consumer therefore
// slows the agent down, and a consumer that leaves (breaks out of the range
// loop, or an HTTP client that disconnects) makes the next emit fail with
// DISCONNECTED or CANCELLED, so the agent unwinds with no cooperation.
//
// # Cancellation
//
// Cancellation is the run's context.Context, cancelled with a cause:
// [ErrClientDisconnected], [ErrDeadline], [ErrServerShutdown],
// [ErrConsumerStopped], or whatever a custom transport passes to
// [Runner.Cancel] (or an HTTP server's BaseContext is cancelled with). After
// it, every emit fails with the CANCELLED [*Error], whose chain reaches both
// the cause and context.Canceled (context.DeadlineExceeded for a deadline),
// and the driver still ends the stream with RUN_ERROR code CANCELLED. An agent that wants to stop sooner asks its ctx, the run's
// context, which sees a cancelled parent at once: ctx.Err() != nil in a loop
// condition; `return server.Outcome{}, ctx.Err()` between steps (the driver
// reports a context error returned after cancellation as CANCELLED, with
// the cause); ctx.Done() in a select; and [UntilCancelled] to race a long
// call against cancellation.
//
// Goroutines the agent starts must honour ctx: no goroutine of the run
// outlives it only if the agent's own goroutines return when ctx is done. The
// same holds for the function UntilCancelled races: Go cannot stop a goroutine
// from outside, so one that ignores ctx runs until it returns by itself.
//
// # Options
//
// Each constructor family has its own option type, so an option that means
// nothing to a function does not compile there: [RunOption] for [Run] and
// [NewRunner], [HandlerOption] for [NewHandler], and [Option] for the few
// that mean the same to both; [WithDurableRuns] takes its settings in one
// [DurableConfig]. The Start… helpers likewise take [TextMessageOption],
// [ToolCallOption], [ReasoningOption], [SubagentOption] and
// [ActivityOption]; [WithID] is one value that is all of them.
//
// # Values
//
// The helpers that take a Go value to send as JSON ([ToolCall.ArgsJSON],
// [ToolCall.ResultJSON], [Emitter.Custom], [Outcome.WithResult],
// [Subagent.Finish], activity content, the run's state) encode it by one
// rule: a json.RawMessage is JSON the caller already has, checked and
// compacted, never re-encoded (a Go string, by contrast, becomes a JSON
// string); a protocol type of package agui, by value or by pointer, is
// written by its generated encoder; anything else goes through
// encoding/json. A value that cannot be encoded fails with a SERIALIZATION
// [*Error] whose chain reaches the cause, and nothing is sent.
//
// docs/DESIGN.md explains the choices behind all of this.
package server
