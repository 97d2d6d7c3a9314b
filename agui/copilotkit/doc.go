// Package copilotkit serves agents of package agui/server to CopilotKit's
// browser client (@copilotkit/core and the React components built on it)
// with no Node runtime in between: it is a CopilotKit runtime in Go.
//
// A [Handler] holds one or more agents by id, each an AG-UI endpoint made
// with server.NewHandler (with server.WithDurableRuns and
// server.WithThreads, which connect and stop need), and answers both
// forms of the runtime protocol the client speaks:
//
//   - the multi-route form: GET {base}/info, POST {base}/agent/{id}/run,
//     POST {base}/agent/{id}/connect and POST {base}/agent/{id}/stop/{threadId};
//   - the single-route form: POST {base} with a JSON envelope
//     {"method":…,"params":…,"body":…}, methods "info", "agent/run",
//     "agent/connect" and "agent/stop".
//
// The client's default transport ("auto") asks GET {base}/info first and
// falls back to the envelope when that is not a 2xx; a Handler answers both,
// so "auto" settles on the multi-route form, and a client set to "single"
// is served the same agents through the envelope.
//
// A run is the agent's run, streamed by its handler. Connect is the
// thread's connect stream (GET {path}/threads/{threadId}/events of the
// agent's handler): the thread's history as one replayed run, then its live
// run to the end; a thread the store does not know is an empty stream, as
// CopilotKit's own runtime answers. Stop reads the thread's live run and
// cancels that run through the durable run's cancel route: it never reaches
// a later run of the same thread, and with a run id it stops that run only.
//
// The streams are the agent's 1.0 streams, with the few events the client's
// @ag-ui/client 0.0.59 would refuse or misread put in words it knows. Its
// schema has no cancelled outcome, and CopilotKit's core ends a stream
// without a word at the first event the schema refuses, so a RUN_FINISHED
// with the cancelled outcome, and a RUN_ERROR with code CANCELLED (which
// the client would report as a failure), reach it as RUN_ERROR with code
// "abort", which it takes as a stop; a success outcome loses
// pendingToolCallIds, which its closed success outcome refuses (it finds
// pending frontend tool calls in the messages); tool content given as parts
// becomes its text. docs/DESIGN.md lists every place where CopilotKit's
// runtime and the AG-UI 1.0 specification part, and which side this
// package takes.
package copilotkit
