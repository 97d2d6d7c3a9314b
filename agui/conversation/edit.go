package conversation

import (
	"bytes"
	"encoding/json"

	"github.com/agui-go/sdk/agui"
)

// The UI's side of a thread. Between runs a user types, a frontend tool
// answers its call and a form edits the state; these go out with the next
// NextInput, as the reference's addMessage and setState make them do. The
// agent's side arrives through Apply.

// Append adds messages (copied) at the end of the conversation: a user's
// message, a frontend tool's ToolMessage, anything the next run should
// carry. A nil message is skipped. A message whose id the conversation
// already holds is appended all the same, as the reference appends it; the
// reducer's events then find the first one with that id.
func (c *Conversation) Append(msgs ...agui.Message) {
	c.init()
	for _, m := range msgs {
		if m != nil {
			c.push(&entry{msg: cloneMessage(m)})
		}
	}
}

// SetState replaces the state with a copy of state, one JSON document
// (nil means {}); the next NextInput sends it, and the agent's snapshots
// and deltas apply to it from then on.
func (c *Conversation) SetState(state json.RawMessage) {
	c.init()
	if state == nil {
		c.state = json.RawMessage(`{}`)
		return
	}
	c.state = bytes.Clone(state)
}

// ToolCall returns a copy of the tool call with this id as it stands now,
// its streamed arguments included, and whether the conversation holds one:
// what a UI needs to run a frontend tool the last run left pending
// (Outcome.PendingToolCallIDs).
func (c *Conversation) ToolCall(id string) (agui.ToolCall, bool) {
	k := c.calls[id]
	if k == nil {
		return agui.ToolCall{}, false
	}
	c.flushCall(k)
	tc := *c.toolCall(k)
	tc.EncryptedValue = cp(tc.EncryptedValue)
	tc.Metadata = bytes.Clone(tc.Metadata)
	return tc, true
}

// Answered reports whether a tool message answers tool call id.
func (c *Conversation) Answered(id string) bool {
	for _, e := range c.entries {
		if tm, ok := e.msg.(*agui.ToolMessage); ok && tm.ToolCallID == id {
			return true
		}
	}
	return false
}
