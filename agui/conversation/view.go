package conversation

import (
	"bytes"
	"encoding/json"

	"github.com/agui-go/sdk/agui"
)

// Messages returns the conversation's messages, in order. They are copies:
// later events do not change them, and changing them does not change the
// conversation (raw JSON members and content parts are shared and must be
// treated as read-only). Copying costs time in the size
// of the conversation, so a UI that shows text as it streams should render
// the delta events and take Messages when it needs the list, not after
// every delta.
func (c *Conversation) Messages() []agui.Message {
	c.flush()
	out := make([]agui.Message, len(c.entries))
	for i, e := range c.entries {
		out[i] = cloneMessage(e.msg)
	}
	return out
}

// Len is the number of messages, without copying them.
func (c *Conversation) Len() int { return len(c.entries) }

// NewMessages returns copies of the messages whose ids were not present at
// the last NextInput (or at New): what the reference's runAgent resolves as
// newMessages.
func (c *Conversation) NewMessages() []agui.Message {
	c.flush()
	var out []agui.Message
	for _, e := range c.entries {
		if _, ok := c.before[messageID(e.msg)]; !ok {
			out = append(out, cloneMessage(e.msg))
		}
	}
	return out
}

// State returns a copy of the current state, a JSON document ({} unless a
// snapshot or a delta said otherwise; a snapshot may make it null).
func (c *Conversation) State() json.RawMessage {
	if c.state == nil {
		return json.RawMessage(`{}`)
	}
	return bytes.Clone(c.state)
}

// Interrupts returns the pending interrupts: those of the last RUN_FINISHED
// when its outcome was an interrupt, else none. The next run must answer
// every one of them (see NextInput).
func (c *Conversation) Interrupts() []agui.Interrupt { return cloneInterrupts(c.interrupts) }

// ThreadID is the thread of the last run seen or asked for ("" before any).
func (c *Conversation) ThreadID() string { return c.thread }

// flush writes streamed text and arguments into their messages.
func (c *Conversation) flush() {
	for _, e := range c.entries {
		if e.dirty {
			setText(e.msg, string(e.text))
			e.dirty = false
		}
	}
	c.flushCalls()
}

func (c *Conversation) flushCalls() {
	for _, k := range c.calls {
		c.flushCall(k)
	}
}

func (c *Conversation) flushCall(k *call) {
	if k.dirty {
		c.toolCall(k).Function.Arguments = string(k.args)
		k.dirty = false
	}
}

func (c *Conversation) ids() map[string]struct{} {
	ids := make(map[string]struct{}, len(c.entries))
	for _, e := range c.entries {
		ids[messageID(e.msg)] = struct{}{}
	}
	return ids
}
