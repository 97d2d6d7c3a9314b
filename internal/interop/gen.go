// This file holds what the verifier's differential test (verify_test.go)
// and its fuzz test (verify/fuzz_test.go) share: a decoder that turns
// arbitrary bytes into a stream of AG-UI events drawn from a small alphabet
// of ids and attributions, so that opens, continuations and closes meet
// often.

package interop

import (
	"encoding/json"

	"github.com/agui-go/sdk/agui"
)

// MaxEvents bounds the length of a stream Events builds.
const MaxEvents = 48

// Source is read one byte at a time; past its end it reads zeros.
type source struct {
	b []byte
	i int
}

func (s *source) next() byte {
	if s.i >= len(s.b) {
		s.i++
		return 0
	}
	c := s.b[s.i]
	s.i++
	return c
}

func (s *source) more() bool { return s.i < len(s.b) }

func (s *source) pick(options ...string) string { return options[int(s.next())%len(options)] }

func (s *source) flag() bool { return s.next()&1 == 1 }

var (
	ids      = []string{"a", "b", "c"}
	steps    = []string{"plan", "act"}
	subs     = []string{"x", "y"}
	metadata = json.RawMessage(`{"k":1}`)
	rawEvent = json.RawMessage(`{"provider":"p"}`)
)

func (s *source) id() string { return s.pick(ids...) }

// tag returns an attribution: usually none (the parent agent), else one of
// two subagents or the empty subagent id (legal, and distinct from none).
func (s *source) tag() *string {
	switch s.next() % 8 {
	case 5:
		return new("x")
	case 6:
		return new("y")
	case 7:
		return new("")
	}
	return nil
}

func (s *source) opt(v string) *string {
	if s.flag() {
		return new(v)
	}
	return nil
}

func (s *source) base() agui.EventBase {
	var b agui.EventBase
	switch s.next() % 8 {
	case 6:
		b.Metadata = metadata
	case 7:
		b.RawEvent = rawEvent
	}
	return b
}

func (s *source) messages() []agui.Message {
	n := int(s.next() % 3)
	var out []agui.Message
	for range n {
		id, tag := s.id(), s.tag()
		switch s.next() % 4 {
		case 0:
			out = append(out, &agui.UserMessage{ID: id, Content: agui.TextContent("hi"), Attribution: agui.Attribution{SubagentRunID: tag}})
		case 1:
			m := &agui.AssistantMessage{ID: id, Attribution: agui.Attribution{SubagentRunID: tag}}
			if s.flag() {
				m.ToolCalls = []agui.ToolCall{{ID: s.id(), Function: agui.FunctionCall{Name: "f", Arguments: "{}"}}}
			}
			out = append(out, m)
		case 2:
			out = append(out, &agui.ReasoningMessage{ID: id, Content: "r", Attribution: agui.Attribution{SubagentRunID: tag}})
		case 3:
			out = append(out, &agui.ActivityMessage{ID: id, ActivityType: "a", Content: json.RawMessage(`{}`), Attribution: agui.Attribution{SubagentRunID: tag}})
		}
	}
	return out
}

// Event builds one event of the type chosen by t (t % 32: the 31 types in
// protocol order, and RUN_FINISHED once more), reading its fields from s.
func (s *source) event(t byte) agui.Event {
	types := agui.EventTypes()
	typ := agui.EventTypeRunFinished
	if int(t%32) < len(types) {
		typ = types[t%32]
	}
	switch typ {
	case agui.EventTypeTextMessageStart:
		e := &agui.TextMessageStart{EventBase: s.base(), MessageID: s.id(), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
		if s.flag() {
			e.Role = new(agui.TextMessageRoleAssistant)
		}
		return e
	case agui.EventTypeTextMessageContent:
		return &agui.TextMessageContent{EventBase: s.base(), MessageID: s.id(), Delta: s.pick("x", ""), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeTextMessageEnd:
		return &agui.TextMessageEnd{EventBase: s.base(), MessageID: s.id(), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeTextMessageChunk:
		e := &agui.TextMessageChunk{EventBase: s.base(), MessageID: s.opt(s.id()), Delta: s.opt("d"), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
		switch s.next() % 4 {
		case 2:
			e.Role = new(agui.TextMessageRoleAssistant)
		case 3:
			e.Role = new(agui.TextMessageRoleUser)
		}
		if s.next()%4 == 3 {
			e.Name = new(s.pick("n", "m"))
		}
		return e
	case agui.EventTypeToolCallStart:
		return &agui.ToolCallStart{EventBase: s.base(), ToolCallID: s.id(), ToolCallName: "f", ParentMessageID: s.opt(s.id()), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeToolCallArgs:
		return &agui.ToolCallArgs{EventBase: s.base(), ToolCallID: s.id(), Delta: "{}", Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeToolCallEnd:
		return &agui.ToolCallEnd{EventBase: s.base(), ToolCallID: s.id(), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeToolCallChunk:
		e := &agui.ToolCallChunk{EventBase: s.base(), ToolCallID: s.opt(s.id()), Delta: s.opt("{}"), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
		if s.next()%4 != 0 {
			e.ToolCallName = new(s.pick("f", "f", "g"))
		}
		if s.next()%4 == 3 {
			e.ParentMessageID = new(s.id())
		}
		return e
	case agui.EventTypeToolCallResult:
		return &agui.ToolCallResult{EventBase: s.base(), MessageID: "r" + s.id(), ToolCallID: s.id(), Content: agui.TextContent("ok"), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeStateSnapshot:
		return &agui.StateSnapshot{EventBase: s.base(), Snapshot: json.RawMessage(`{}`), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeStateDelta:
		return &agui.StateDelta{EventBase: s.base(), Delta: agui.JSONPatch{}, Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeMessagesSnapshot:
		return &agui.MessagesSnapshot{EventBase: s.base(), Messages: append([]agui.Message{}, s.messages()...)}
	case agui.EventTypeActivitySnapshot:
		e := &agui.ActivitySnapshot{EventBase: s.base(), MessageID: s.id(), ActivityType: "a", Content: json.RawMessage(`{}`), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
		switch s.next() % 3 {
		case 1:
			e.Replace = new(false)
		case 2:
			e.Replace = new(true)
		}
		return e
	case agui.EventTypeActivityDelta:
		return &agui.ActivityDelta{EventBase: s.base(), MessageID: s.id(), ActivityType: "a", Patch: agui.JSONPatch{}, Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeRaw:
		return &agui.Raw{EventBase: s.base(), Event: json.RawMessage(`{}`), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeCustom:
		return &agui.Custom{EventBase: s.base(), Name: "c", Value: json.RawMessage(`1`), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeRunStarted:
		e := &agui.RunStarted{EventBase: s.base(), ThreadID: "t", RunID: s.pick("r1", "r2")}
		if s.next()%4 == 3 {
			e.Input = &agui.RunAgentInput{ThreadID: "t", RunID: e.RunID, State: json.RawMessage(`{}`), Messages: append([]agui.Message{}, s.messages()...), Tools: []agui.Tool{}, Context: []agui.Context{}, ForwardedProps: json.RawMessage(`{}`)}
		}
		return e
	case agui.EventTypeRunFinished:
		return &agui.RunFinished{EventBase: s.base(), ThreadID: "t", RunID: s.pick("r1", "r1", "r2")}
	case agui.EventTypeRunError:
		return &agui.RunError{EventBase: s.base(), Message: "boom"}
	case agui.EventTypeStepStarted:
		return &agui.StepStarted{EventBase: s.base(), StepName: s.pick(steps...), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeStepFinished:
		return &agui.StepFinished{EventBase: s.base(), StepName: s.pick(steps...), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeReasoningStart:
		return &agui.ReasoningStart{EventBase: s.base(), MessageID: s.id(), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeReasoningMessageStart:
		return &agui.ReasoningMessageStart{EventBase: s.base(), MessageID: s.id(), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeReasoningMessageContent:
		return &agui.ReasoningMessageContent{EventBase: s.base(), MessageID: s.id(), Delta: "t", Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeReasoningMessageEnd:
		return &agui.ReasoningMessageEnd{EventBase: s.base(), MessageID: s.id(), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeReasoningMessageChunk:
		return &agui.ReasoningMessageChunk{EventBase: s.base(), MessageID: s.opt(s.id()), Delta: s.opt("t"), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeReasoningEnd:
		return &agui.ReasoningEnd{EventBase: s.base(), MessageID: s.id(), Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeReasoningEncryptedValue:
		sub := agui.ReasoningEncryptedValueSubtypeMessage
		if s.flag() {
			sub = agui.ReasoningEncryptedValueSubtypeToolCall
		}
		return &agui.ReasoningEncryptedValue{EventBase: s.base(), Subtype: sub, EntityID: s.id(), EncryptedValue: "e", Attribution: agui.Attribution{SubagentRunID: s.tag()}}
	case agui.EventTypeSubagentStarted:
		return &agui.SubagentStarted{EventBase: s.base(), SubagentRunID: s.pick(subs...), Name: "sub", ParentSubagentRunID: s.opt(s.pick(subs...))}
	case agui.EventTypeSubagentFinished:
		return &agui.SubagentFinished{EventBase: s.base(), SubagentRunID: s.pick(subs...)}
	case agui.EventTypeSubagentError:
		return &agui.SubagentError{EventBase: s.base(), SubagentRunID: s.pick(subs...), Message: "boom"}
	}
	panic("interop: unhandled event type " + string(typ))
}

// Events decodes data into a stream of at most MaxEvents events. Every byte
// string is a valid stream (not necessarily one the protocol accepts); the
// first byte of each event picks its type, the following ones its ids,
// attribution and optional members.
func Events(data []byte) []agui.Event {
	s := &source{b: data}
	var out []agui.Event
	for s.more() && len(out) < MaxEvents {
		out = append(out, s.event(s.next()))
	}
	return out
}

// Next decodes the first event of data, as Events would, and returns the
// bytes it describes it with: data's prefix, padded with the zeros read past
// its end. Appending such encodings builds the input of a chosen stream.
func Next(data []byte) (agui.Event, []byte) {
	s := &source{b: data}
	ev := s.event(s.next())
	enc := make([]byte, s.i)
	copy(enc, data)
	return ev, enc
}
