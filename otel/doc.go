// Package aguiotel turns the observation hooks of the AG-UI server and
// client ([server.Observer], [client.Observer]) into OpenTelemetry traces
// and metrics, following the GenAI semantic conventions where they name
// what a run is (Development status, open-telemetry/semantic-conventions-genai).
// It is a module of its own, github.com/agui-go/sdk/otel, so that the core
// module never depends on OpenTelemetry.
//
//	obs, err := aguiotel.Server(aguiotel.WithAgentName("travel"))
//	…
//	h := server.NewHandler(agent, server.WithObserver(obs),
//		server.WithLogger(slog.New(aguiotel.LogHandler(slog.NewJSONHandler(os.Stderr, nil)))))
//
// # Spans
//
// Each run is a span named "invoke_agent {agent}" ("invoke_agent" without
// an agent name), of kind Server for a run the handler serves and Internal
// for one driven by [server.Run] or [server.NewRunner]. An incoming W3C
// traceparent (the propagator of [WithPropagator]; propagation.TraceContext
// by default) makes it a child of the caller's span, unless the request's
// context already carries a span (an otelhttp middleware's, which has
// continued the caller's trace itself): then it is that span's child. The
// run's context, the one the agent receives, carries the span, so calls
// the agent makes under it (an HTTP client wrapped by otelhttp, a
// provider SDK's own instrumentation) are its children, and the server's
// log records of the run carry its ids through [LogHandler].
//
// Its attributes:
//
//	gen_ai.operation.name     invoke_agent
//	gen_ai.agent.name         WithAgentName's, when set
//	gen_ai.conversation.id    the thread id
//	agui.run.id               the run id
//	agui.parent_run.id        the parent run id, when the input names one
//	agui.run.durable          true for a durable run (server.WithDurableRuns)
//	agui.run.outcome          success, interrupt, cancelled, error, or
//	                          disconnected (no terminal event reached the
//	                          consumer)
//	error.type                the run's error code (AGENT_ERROR, CANCELLED,
//	                          DISCONNECTED, …) when it did not finish normally
//	agui.run.events           events sent, RUN_STARTED and the terminal one included
//	agui.run.bytes            their frames' bytes
//	gen_ai.usage.input_tokens, gen_ai.usage.output_tokens,
//	gen_ai.usage.cache_read.input_tokens,
//	gen_ai.usage.cache_creation.input_tokens
//	                          the sums over the terminal event's usage, when
//	                          it reports any
//
// A run that did not finish normally has status Error with its whole
// message (the client's RUN_ERROR may carry only a summary), except the
// cancelled outcome of the cancel route, which is not a failure; a panic
// is recorded as an exception event with its stack. Span events mark an
// interrupt of an interrupted run ("agui.interrupt", with its id, reason
// and tool call), the run's cancellation ("agui.cancelled", with the
// cause), a consumer found gone ("agui.disconnected") and an event the
// verifier refused ("agui.verifier.rejected").
//
// Each tool call is a child span "execute_tool {tool}" (gen_ai.tool.name,
// gen_ai.tool.call.id) from its TOOL_CALL_START to its TOOL_CALL_RESULT;
// one without a result in the run (a client-side tool) ends with the run,
// with agui.tool_call.pending set.
//
// A reader of a durable run that reattaches (GET …/runs/{runId}/events) is
// a span "agui.replay" of kind Server with agui.run.id, gen_ai.conversation.id,
// agui.replay.after (the cursor) and agui.replay.ended (whether it got the
// terminal event). A thread's connect stream (GET …/threads/{threadId}/events:
// a page reloaded, a client picking the thread up) is a span "agui.connect"
// of kind Server with gen_ai.conversation.id, agui.connect.replayed
// (whether the stream began with the thread's history), agui.run.id (the
// live run it followed, when there was one) and agui.connect.ended
// (whether the reader got the whole stream); a reader gone before the end
// adds the event "agui.disconnected" with its agui.cause.
//
// # Metrics
//
// Server (meter github.com/agui-go/sdk/otel):
//
//	agui.server.runs.active            UpDownCounter {run}  runs in flight
//	agui.server.runs                   Counter {run}        ended runs, by agui.run.outcome and error.type
//	agui.server.run.duration           Histogram s          by agui.run.outcome and error.type
//	agui.server.run.time_to_first_event Histogram s         from the run's start to the first event the agent emitted
//	agui.server.run.events             Histogram {event}    events per run
//	agui.server.run.bytes              Histogram By         bytes per run
//	agui.server.disconnects            Counter {disconnect} consumers found gone mid-run
//	agui.server.replays                Counter {replay}     reattached readers of durable runs, by agui.replay.ended
//	agui.server.connects               Counter {connect}    connect streams of threads, by agui.connect.ended
//
// Every point carries gen_ai.agent.name when it is set. The client's are
// the same from the consumer's side: agui.client.runs,
// agui.client.run.duration, agui.client.run.time_to_first_event (from the
// request to the first event after RUN_STARTED), agui.client.run.events,
// agui.client.reattaches and agui.client.warnings.
//
// # Exporting
//
// The module exports nothing itself: the providers given to [WithTracerProvider]
// and [WithMeterProvider] (or the global ones) do, through any exporter,
// such as OTLP over HTTP (go.opentelemetry.io/otel/exporters/otlp/…/otlptracehttp
// and otlpmetrichttp, which read the OTEL_EXPORTER_OTLP_* variables);
// `agui demo --otel` is an example. Package [github.com/agui-go/sdk/otel/otlptest]
// is a local OTLP/HTTP receiver for tests that decodes what such an exporter
// sends.
package aguiotel
