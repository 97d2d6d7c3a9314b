//go:build !agui_noverify

package verify

import "github.com/agui-go/sdk/agui"

// Server is the server-profile verifier: every rule of [Rule], applied
// to the one run a server emits. It is on by default in the server runtime;
// the build tag agui_noverify turns it into a zero-size type whose methods
// do nothing.
//
// Compared with [Client] it is strict where a producer can be held to
// account: one run per stream and nothing after its end, an absent
// subagentRunId means the parent agent (so a continuation must carry its
// opener's attribution exactly), a tool result must answer a tool call the
// run introduced after that call's TOOL_CALL_END, RUN_FINISHED must name the
// run that started, and a subagent's parent must still be active. Every
// stream it accepts as one complete run the client profile accepts too.
//
// Chunk events open, continue and close their entity as the protocol's
// expansion (package chunks) does.
//
// The zero value is ready. A Server is for one run and not safe for
// concurrent use.
type Server struct {
	e engine
}

// Observe verifies the next event. It returns nil or a *Error; after the
// first failure it returns that same error for every later event.
func (s *Server) Observe(ev agui.Event) error {
	s.e.server = true
	return s.e.observe(ev)
}

// Finish reports the end of the stream: a *Error wrapping ErrTruncated
// when the run did not end (or never started), the sticky failure if there
// was one, else nil.
func (s *Server) Finish() error {
	s.e.server = true
	return s.e.finish()
}

// Seed records the conversation the run starts from (RunAgentInput.messages)
// before the first event: owners of its messages, and its tool calls as
// introduced, so that a TOOL_CALL_RESULT may answer a call from history.
func (s *Server) Seed(history []agui.Message) {
	s.e.seed(history, false)
}
