// Package conversation rebuilds an AG-UI thread from the events of its runs:
// the messages, the state, the pending interrupts and how the last run
// ended. It is the reducer of the reference client (@ag-ui/client 1.0.0,
// defaultApplyEvents) in Go, usable on its own: a client folds the events it
// delivers, a server keeps its threads' history with it.
//
//	conv := conversation.New(history, state)
//	for ev, err := range events { // expanded (package chunks) and verified
//		...
//		for _, w := range conv.Apply(ev) {
//			log.Print(w)
//		}
//	}
//	msgs, st := conv.Messages(), conv.State()
//
// # What Apply does
//
// Messages are kept by id, in order:
//
//   - TEXT_MESSAGE_START creates a message of its role (assistant by
//     default) unless the id exists; content events append, whatever the
//     role (non-string content counts as ""). REASONING_MESSAGE_* do the
//     same for reasoning messages. An activity message with the same id
//     makes them warn and do nothing.
//   - TOOL_CALL_START attaches the call to its parentMessageId's assistant
//     message, creating it when missing; with no parent (or a parent that is
//     not an assistant message, which warns) the call gets an assistant
//     message of its own whose id is the call's. A restart of a known call
//     renames it (with a warning). TOOL_CALL_ARGS appends to its arguments.
//   - TOOL_CALL_RESULT mints a tool message placed right after the assistant
//     message owning the call, after the tool messages already there (at
//     the end when the call is unknown).
//   - MESSAGES_SNAPSHOT reconciles by id: local messages the snapshot has
//     are replaced in place, the snapshot's others are appended in its
//     order, and local messages it lacks are dropped, except activity
//     messages when the snapshot carries none (or of types it does not own,
//     per metadata["@ag-ui/client"].authoritativeActivityTypes) and
//     reasoning messages when it carries none.
//   - ACTIVITY_SNAPSHOT creates or (unless replace is false) replaces an
//     activity message; ACTIVITY_DELTA patches its content all-or-nothing.
//   - REASONING_ENCRYPTED_VALUE sets encryptedValue on a tool call or a
//     message; RUN_STARTED adds the input's messages not held yet.
//   - Subagent attribution: a message or tool message created by an event
//     carries the event's subagentRunId (a tool call inherits its message's).
//   - Metadata merges per key, last write wins, no recursion (E.3): text and
//     reasoning events into their message, tool call events into the call,
//     TOOL_CALL_RESULT into the minted message, activity events into the
//     activity (surviving a replacing snapshot). Other events' metadata goes
//     nowhere.
//
// State: STATE_SNAPSHOT replaces it (null included); STATE_DELTA applies
// with [jsonpatch.Apply], all-or-nothing; a delta that does not apply warns
// ("Failed to apply state patch: …") and keeps the old state.
//
// Runs: RUN_FINISHED and RUN_ERROR set the [Outcome] (success with its
// result and pending tool calls, interrupt, cancelled, or the error, with
// usage); an interrupt outcome sets the pending [Conversation.Interrupts],
// any other RUN_FINISHED clears them. A run whose stream ended while Running
// was truncated; telling that apart is the caller's job (the client fails
// such a run).
//
// Warnings are values ([agui.Warning], of the kinds declared here, such as
// [MissingMessage]): Apply returns them with Index -1, and the caller, which
// knows the event's frame, fills the index in and delivers them. Their messages are the reference's, so
// conformance expectations written against it hold.
//
// # Division of work with the client
//
// The client (package agui/client) owns the transport and the pipeline
// before the reducer: the compatibility boundary, lenient decoding, chunk
// expansion, verification, truncation. It calls [Conversation.Apply] for
// every delivered event, [Conversation.NextInput] to build each outgoing
// RunAgentInput (E.4), which also refuses a stale, incomplete, expired or
// cross-thread resume with a [*ResumeError] (E.5) before anything is sent,
// and applies the version shims of older peers to that input itself.
// [Conversation.NewMessages] is the run's newMessages. Between runs the UI's
// side goes in through [Conversation.Append] (what the user said, a
// frontend tool's result) and [Conversation.SetState], as the reference's
// addMessage and setState; [Conversation.ToolCall] gives a pending call's
// name and arguments.
//
// Differences from the reference: a message or tool call is copied when
// it is kept or handed out, where the reference sometimes shares one object
// between two places (a MESSAGES_SNAPSHOT over duplicate local ids); the
// JSON Patch departures listed in package jsonpatch; and the target of a
// text delta whose message id two messages share. A TOOL_CALL_RESULT may
// mint its tool message under the id of a text message being streamed;
// the tool message sits right after its call's message, so it can come
// first, and the reference, which looks up the first message with the id,
// then appends later TEXT_MESSAGE_CONTENT to the tool message and replaces
// its content parts with the text. Here the text goes to the message its
// TEXT_MESSAGE_START opened, the first made with the id, and the tool
// message keeps its parts: matching would lose what the agent sent.
// (A tool call's new assistant message under an id already taken is, as in
// the reference, not attributed to the subagent that started the call.)
// internal/interop (TestReducerDivergences) pins both cases on both sides.
// internal/interop (TestReducerParity) runs random event sequences through
// both reducers and requires the same messages, state, pending interrupts
// and warnings.
//
// A Conversation is not safe for concurrent use.
package conversation
