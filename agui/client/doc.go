// Package client consumes AG-UI agents over HTTP: it POSTs a RunAgentInput,
// reads the answer (Server-Sent Events or protobuf), and hands application code the
// events a conforming client delivers, and the conversation they build.
//
// Two levels:
//
//   - [Client.Run] is one request: an iter.Seq2 of the delivered events,
//     each a [Delivery] with its [Position], ending with at most one error
//     (transport, [*HTTPError], or a [*StreamError] for a rejected or
//     truncated stream). Cancelling the context, or breaking out of the
//     loop, aborts the request; the error of a cancelled context matches
//     context.Canceled and the cause it was cancelled with.
//     [Client.Resume] picks a durable run up after a position.
//   - [Thread] ([Client.NewThread]) is a conversation with one agent over
//     many runs, like the reference's HttpAgent: thread id, messages, state,
//     subscribers and pending interrupts kept across runs; the UI adds
//     messages, sets state, answers interrupts and returns frontend tool
//     results between runs, and each input is built from all of it
//     (package conversation), resumes checked before they are sent, with a
//     [Result] per run.
//
// Between the bytes and the application sits the reference client's
// pipeline ([Pipeline]): the compatibility boundary (retired THINKING_*
// events and binary content parts rewritten as their 1.0 forms, legacy
// nulls read as absent), lenient decoding (unknown types dropped, unknown
// members stripped), the era shims of an older peer
// ([WithMaxProtocolVersion]) and of a client pinned to 1.0
// ([WithProtocolVersion]: the members 1.1 added stripped with warnings),
// chunk expansion, and the client verifier. One
// deliberate difference: a stream that ends inside a run fails with
// verify.ErrTruncated, where the reference reports success. Two more: an
// aborted run (context cancelled) ends with the context's cause as the
// error, where the reference invents a RUN_ERROR with code "abort", so an
// abort can never be mistaken for the agent's own failure; and events read
// from a protobuf answer are verified like SSE ones, where the reference
// skips verification for protobuf.
//
// The client asks for SSE, or for protobuf with SSE as the fallback when
// given [WithProtobuf], and reads the answer in the binding its
// Content-Type names, whatever it asked for.
//
// Everything repaired, dropped or not applied along the way is an
// [agui.Warning] value (kind, frame index, message), given to hooks
// ([WithWarnings], [RunWarnings]) and kept on the Thread's [Result];
// [LogWarnings] sends them to a slog.Logger. The kinds are the root
// package's for any stream reader ([agui.WarnStripped], [agui.WarnDropped],
// [agui.WarnFraming]), this package's for its shims ([WarnLegacy],
// [WarnEra], [WarnVersion]), and the reducer's (package conversation).
//
// Text deltas, which are most of any answer, take a fast path that decodes
// them, escapes and all, without the general decoder and amortises their
// allocations (see fastpath.go).
package client
