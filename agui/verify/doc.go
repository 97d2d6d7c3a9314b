// Package verify checks the order of AG-UI events: that every run starts
// and ends once, that every message, tool call, reasoning span and message,
// step and subagent is opened before it is continued or closed and closed
// before its run finishes, and that only its opener continues it.
//
// There are two profiles over one engine:
//
//   - [Server] holds a producer to the nine rules of [Rule]. The server
//     runtime runs it on every event it emits, where the bug is made; the
//     build tag agui_noverify turns it into a zero-size no-op.
//   - [Client] accepts exactly what the reference client (@ag-ui/client
//     1.0.0, verifyEvents) accepts and rejects the rest at the same event,
//     and in addition reports a stream that ends inside a run
//     ([ErrTruncated]) when [Client.Finish] is called.
//
// Both expand chunk events (package chunks) before verifying. [Check] runs
// a whole captured stream, given as JSON documents, through a profile's
// decoding and verification; the agui verify command is built on it.
//
// A failure is a [*Error] naming the event type, the [Rule], the id
// involved, the event's index and what was still open:
//
//	TEXT_MESSAGE_CONTENT breaks rule `not-open` (content and terminators require a matching start): message "msg-2" is not open [open: messages={"msg-1"}]
//
// Failure is sticky: after a rejection, every later call returns the same
// error. What was open is rendered only when a failure happens; the success
// path pays one table lookup and, for an event that names an entity, one
// hash lookup (none for a run of deltas to one entity). An event before any
// RUN_STARTED is reported under [NotStarted].
//
// # The engine
//
// The tables in tables_gen.go, generated from the schema's lifecycle
// annotations, say for every event type what it does (open, continue,
// close, fail, answer a tool call, upsert or mutate an activity, annotate,
// seed owners from message history, or nothing) to which entity kind, under
// which id and attribution. The engine applies those actions to any entity
// kind; it does not switch on event types, so an event added to the schema
// with a known lifecycle role needs no change here. The few relations the
// annotations do not carry yet (a tool call's parent message, a subagent's
// parent, the message a tool result mints, an activity snapshot's replace
// flag, an encrypted value's subtype, replayed message history) are read in
// relations.go.
//
// # Rules
//
// The rules, their ids and one-sentence descriptions are generated from the
// schema; their values are stable and only ever appended. Each occurs as
// follows (a minimal stream for each is in rules_test.go, which proves it
// triggers the rule):
//
// [RunEnded] (run-ended) occurs when an event follows RUN_FINISHED or
// RUN_ERROR: RUN_STARTED, RUN_FINISHED, TEXT_MESSAGE_START. The client
// profile still accepts a late RUN_ERROR after RUN_FINISHED and a new
// RUN_STARTED after either, as the reference does.
//
// [DuplicateRunStarted] (duplicate-run-started) occurs when RUN_STARTED
// arrives while a run is active: RUN_STARTED, RUN_STARTED.
//
// [DuplicateStart] (duplicate-start) occurs when a message, tool call,
// reasoning span or message, step (per owner) or subagent is opened while it
// is open: RUN_STARTED, TEXT_MESSAGE_START m1, TEXT_MESSAGE_START m1. A
// subagent id may not be reused in a run either, and a chunk restating its
// stream's role, name, tool name or parent message with another value is
// reported here. Reopening a closed message or tool call is allowed.
//
// [NotOpen] (not-open) occurs when content or a terminator names something
// not open: RUN_STARTED, TEXT_MESSAGE_START msg-1, TEXT_MESSAGE_CONTENT
// msg-2. Also: a first chunk without its id or tool name, a subagent whose
// parent was never started (server profile: is not active), and (server
// profile) RUN_FINISHED naming another run.
//
// [UnknownID] (unknown-id), server profile only, occurs when a
// TOOL_CALL_RESULT answers a tool call the run never introduced (by
// TOOL_CALL_START, MESSAGES_SNAPSHOT, RUN_STARTED.input or [Server.Seed]):
// RUN_STARTED, TOOL_CALL_RESULT c9.
//
// [OutOfOrder] (out-of-order), server profile only, occurs when a
// TOOL_CALL_RESULT arrives before its call's TOOL_CALL_END: RUN_STARTED,
// TOOL_CALL_START c1, TOOL_CALL_RESULT c1.
//
// [OpenAtFinish] (open-at-finish) occurs when RUN_FINISHED arrives while a
// step, message, reasoning message or span, tool call or subagent is open,
// reported in that order: RUN_STARTED, TEXT_MESSAGE_START m1, RUN_FINISHED.
// RUN_ERROR is exempt: a run that failed mid-message cannot have closed it.
//
// [OwnerMismatch] (owner-mismatch) occurs when an event continues, closes
// or reopens an entity opened by another agent: RUN_STARTED,
// TEXT_MESSAGE_START m1 (subagent s1), TEXT_MESSAGE_CONTENT m1 (subagent s2).
// Owners are kept for the whole run; a tool call belongs to its parent
// message's owner; a step is finished by whoever started it; a chunk naming
// an id open in another subagent's lane, or an id-less chunk several lanes
// could continue, is reported here. In the client profile an event without
// a subagentRunId agrees with any owner; in the server profile it means the
// parent agent.
//
// [NotStarted] (not-started) occurs when a stream begins with anything but
// RUN_STARTED or RUN_ERROR (a run that failed before it started):
// TEXT_MESSAGE_START m1. It is a rule of its own, appended last, so that the
// message names what is wrong (there is no run yet) rather than the entity
// the event happened to name.
package verify
