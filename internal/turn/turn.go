// Package turn turns the streamed reply of a language model into AG-UI events
// and runs the tool loop around it. It knows nothing of any provider: the
// adapters in adapters/* feed it the deltas their provider's SDK decodes, so
// that the rules (one assistant message per reply, tool calls parented to it,
// reasoning closed before the answer, every entity closed before the run
// finishes) live in one place.
package turn

import (
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// Call is one tool call the model finished asking for.
type Call struct {
	ID        string // the provider's id, also the AG-UI toolCallId
	Name      string
	Arguments string // JSON text as the model streamed it
}

// Turn streams one reply of the model. It opens entities lazily, on their
// first delta, so a reply without text emits no empty message. A Turn is used
// from one goroutine.
type Turn struct {
	em        *server.Emitter
	messageID string

	text      *server.TextMessage
	span      *server.Reasoning
	thought   *server.ReasoningMessage
	thoughtID string // id of the open or last reasoning message
	calls     []*call
	byKey     map[string]*call
	finished  bool
	textSoFar strings.Builder
}

type call struct {
	Call
	tc   *server.ToolCall
	args strings.Builder
}

// New starts a reply emitted through em. Its text and tool calls share one
// fresh assistant message id, so the client's reducer files them together.
func New(em *server.Emitter) *Turn {
	return &Turn{em: em, messageID: agui.NewID(), byKey: map[string]*call{}}
}

// MessageID returns the id of the reply's assistant message.
func (t *Turn) MessageID() string { return t.messageID }

// Text appends a delta of the answer. Reasoning still open is closed first:
// the answer follows the thinking that led to it.
func (t *Turn) Text(delta string) error {
	if delta == "" {
		return nil
	}
	if err := t.EndReasoning(); err != nil {
		return err
	}
	if t.text == nil {
		m, err := t.em.StartTextMessage(server.WithID(t.messageID))
		if err != nil {
			return err
		}
		t.text = m
	}
	t.textSoFar.WriteString(delta)
	return t.text.Append(delta)
}

// Reasoning appends a delta of visible reasoning to the open reasoning
// message, starting a span and a message when none is open. id names the
// message (the provider's own item id, when it has one that must round-trip;
// "" for a fresh one).
func (t *Turn) Reasoning(id, delta string) error {
	if err := t.openThought(id); err != nil {
		return err
	}
	if delta == "" {
		return nil
	}
	return t.thought.Append(delta)
}

// ReasoningEncrypted attaches the provider's opaque reasoning payload (a
// signature, encrypted content) to the current reasoning message, opening one
// when none is open, as REASONING_ENCRYPTED_VALUE.
func (t *Turn) ReasoningEncrypted(id, value string) error {
	if value == "" {
		return nil
	}
	if err := t.openThought(id); err != nil {
		return err
	}
	return t.thought.EncryptedValue(value)
}

func (t *Turn) openThought(id string) error {
	if t.thought != nil && (id == "" || id == t.thoughtID) {
		return nil
	}
	if err := t.EndThought(); err != nil {
		return err
	}
	if t.span == nil {
		span, err := t.em.StartReasoning()
		if err != nil {
			return err
		}
		t.span = span
	}
	if id == "" {
		id = agui.NewID()
	}
	m, err := t.span.StartMessage(server.WithID(id))
	if err != nil {
		return err
	}
	t.thought, t.thoughtID = m, id
	return nil
}

// EndThought closes the open reasoning message, if any; the span stays open
// for the next one.
func (t *Turn) EndThought() error {
	if t.thought == nil {
		return nil
	}
	m := t.thought
	t.thought = nil
	return m.End()
}

// EndReasoning closes the open reasoning message and span, if any.
func (t *Turn) EndReasoning() error {
	if err := t.EndThought(); err != nil {
		return err
	}
	if t.span == nil {
		return nil
	}
	s := t.span
	t.span = nil
	return s.End()
}

// StartTool opens a tool call. key is how the provider names the call in
// later deltas (an index, an item id); id is the provider's call id.
func (t *Turn) StartTool(key, id, name string) error {
	if _, ok := t.byKey[key]; ok {
		return nil
	}
	if err := t.EndReasoning(); err != nil {
		return err
	}
	tc, err := t.em.StartToolCall(name, server.WithID(id), server.WithParentMessage(t.messageID))
	if err != nil {
		return err
	}
	c := &call{Call: Call{ID: id, Name: name}, tc: tc}
	t.byKey[key] = c
	t.calls = append(t.calls, c)
	return nil
}

// HasTool reports whether the call named key was started.
func (t *Turn) HasTool(key string) bool { _, ok := t.byKey[key]; return ok }

// ToolArgs appends a fragment of the arguments of the call named key.
func (t *Turn) ToolArgs(key, delta string) error {
	c, ok := t.byKey[key]
	if !ok || delta == "" {
		return nil
	}
	c.args.WriteString(delta)
	return c.tc.Args(delta)
}

// ToolChunk takes one tool call delta of the Chat Completions shape, which
// OpenAI and the servers and frameworks that speak it stream: the first
// delta of key opens the call, under id (or a fresh "call_…" id, as some
// compatible servers send none) and name, and every delta may carry a
// fragment of its arguments.
func (t *Turn) ToolChunk(key, id, name, args string) error {
	if !t.HasTool(key) {
		if id == "" {
			id = "call_" + agui.NewID()
		}
		if err := t.StartTool(key, id, name); err != nil {
			return err
		}
	}
	return t.ToolArgs(key, args)
}

// EndTool closes the call named key: its arguments are complete.
func (t *Turn) EndTool(key string) error {
	c, ok := t.byKey[key]
	if !ok {
		return nil
	}
	return c.tc.End()
}

// Close ends whatever is still open, reasoning first, then the text, then the
// tool calls in the order they started, and returns the reply's text and
// tool calls. Calling it again returns the same.
func (t *Turn) Close() (text string, calls []Call, err error) {
	if !t.finished {
		t.finished = true
		if err := t.EndReasoning(); err != nil {
			return "", nil, err
		}
		if t.text != nil {
			if err := t.text.End(); err != nil {
				return "", nil, err
			}
		}
		for _, c := range t.calls {
			if err := c.tc.End(); err != nil {
				return "", nil, err
			}
		}
	}
	calls = make([]Call, len(t.calls))
	for i, c := range t.calls {
		calls[i] = c.Call
		calls[i].Arguments = c.args.String()
	}
	return t.textSoFar.String(), calls, nil
}
