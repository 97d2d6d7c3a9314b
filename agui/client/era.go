package client

import (
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/protover"
)

// Era shims: what the reference installs when its peer is older than 1.0
// (maxProtocolVersion). 0.0.39 predates content parts and parentRunId;
// 0.0.57 predates subagents. The outgoing input is downgraded so that the
// old peer does not reject it, and what cannot be carried is reported as a
// WarnEra warning rather than lost in silence.

// downgradeSubagents is the incoming half of the 0.0.57 shim: SUBAGENT_*
// events are dropped with a warning, and tags are removed from the rest, so
// an application written for the older protocol never sees either.
func (p *Pipeline) downgradeSubagents(ev agui.Event) agui.Event {
	switch e := ev.(type) {
	case *agui.SubagentStarted, *agui.SubagentFinished, *agui.SubagentError:
		p.warnf(WarnEra, "dropping "+string(ev.Type())+": a peer pinned to 0.0.57 or older has no subagents")
		return nil
	case *agui.TextMessageStart:
		e.SubagentRunID = nil
	case *agui.TextMessageContent:
		e.SubagentRunID = nil
	case *agui.TextMessageEnd:
		e.SubagentRunID = nil
	case *agui.TextMessageChunk:
		e.SubagentRunID = nil
	case *agui.ToolCallStart:
		e.SubagentRunID = nil
	case *agui.ToolCallArgs:
		e.SubagentRunID = nil
	case *agui.ToolCallEnd:
		e.SubagentRunID = nil
	case *agui.ToolCallChunk:
		e.SubagentRunID = nil
	case *agui.ToolCallResult:
		e.SubagentRunID = nil
	case *agui.StateSnapshot:
		e.SubagentRunID = nil
	case *agui.StateDelta:
		e.SubagentRunID = nil
	case *agui.ActivitySnapshot:
		e.SubagentRunID = nil
	case *agui.ActivityDelta:
		e.SubagentRunID = nil
	case *agui.Raw:
		e.SubagentRunID = nil
	case *agui.Custom:
		e.SubagentRunID = nil
	case *agui.StepStarted:
		e.SubagentRunID = nil
	case *agui.StepFinished:
		e.SubagentRunID = nil
	case *agui.ReasoningStart:
		e.SubagentRunID = nil
	case *agui.ReasoningMessageStart:
		e.SubagentRunID = nil
	case *agui.ReasoningMessageContent:
		e.SubagentRunID = nil
	case *agui.ReasoningMessageEnd:
		e.SubagentRunID = nil
	case *agui.ReasoningMessageChunk:
		e.SubagentRunID = nil
	case *agui.ReasoningEnd:
		e.SubagentRunID = nil
	case *agui.ReasoningEncryptedValue:
		e.SubagentRunID = nil
	case *agui.MessagesSnapshot:
		for _, m := range e.Messages {
			untagMessage(m)
		}
	case *agui.RunStarted:
		if e.Input != nil {
			for _, m := range e.Input.Messages {
				untagMessage(m)
			}
		}
	case *agui.RunFinished, *agui.RunError:
	}
	return ev
}

// untagMessage removes a message's subagentRunId in place.
func untagMessage(m agui.Message) {
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		m.SubagentRunID = nil
	case *agui.SystemMessage:
		m.SubagentRunID = nil
	case *agui.AssistantMessage:
		m.SubagentRunID = nil
	case *agui.UserMessage:
		m.SubagentRunID = nil
	case *agui.ToolMessage:
		m.SubagentRunID = nil
	case *agui.ActivityMessage:
		m.SubagentRunID = nil
	case *agui.ReasoningMessage:
		m.SubagentRunID = nil
	}
}

// downgradeInput applies the outgoing era shims to in, which the caller
// owns (prepareInput copies before calling). warn receives what is lost.
func downgradeInput(in *agui.RunAgentInput, e era, warn func(string)) {
	if !e.declare {
		in.ProtocolVersion = nil
	}
	if e.v10Out {
		if in.ProtocolVersion != nil {
			if v, err := protover.Parse(*in.ProtocolVersion); err == nil && v.Cmp(protover.V1_1) >= 0 {
				in.ProtocolVersion = &e.declared
			}
		}
		if stripped, lost := protover.StripInput(in); lost != nil {
			*in = *stripped
			warn("a peer of protocol " + e.declared + " has no encryptedValueType: removing " + strings.Join(lost, ", ") +
				" from the input (its encryptedValue is kept)")
		}
	}
	if e.noSub {
		for i, m := range in.Messages {
			c := copyMessage(m)
			untagMessage(c)
			in.Messages[i] = c
		}
	}
	if e.flatten {
		in.ParentRunID = nil
		for i, m := range in.Messages {
			in.Messages[i] = flattenMessage(m, warn)
		}
	}
}

// flattenMessage replaces a message's content parts by the text of its
// text parts, joined by newlines, for a 0.0.39 peer that only reads
// strings. The parts it cannot carry are named in a warning.
func flattenMessage(m agui.Message, warn func(string)) agui.Message {
	flat := func(id string, c agui.Content) agui.Content {
		parts, ok := c.Parts()
		if !ok {
			return c
		}
		var texts, lost []string
		for _, p := range parts {
			switch p := p.(type) {
			case *agui.TextPart:
				texts = append(texts, p.Text)
			case *agui.ImagePart:
				lost = append(lost, "image")
			case *agui.AudioPart:
				lost = append(lost, "audio")
			case *agui.VideoPart:
				lost = append(lost, "video")
			case *agui.DocumentPart:
				lost = append(lost, "document")
			}
		}
		if len(lost) > 0 {
			warn("a peer pinned to 0.0.39 only reads text: flattening message '" + id +
				"' DROPS non-text parts (" + strings.Join(lost, ", ") + ")")
		}
		return agui.TextContent(strings.Join(texts, "\n"))
	}
	switch m := m.(type) {
	case *agui.UserMessage:
		c := *m
		c.Content = flat(m.ID, m.Content)
		return &c
	case *agui.ToolMessage:
		c := *m
		c.Content = flat(m.ID, m.Content)
		return &c
	case *agui.DeveloperMessage, *agui.SystemMessage, *agui.AssistantMessage,
		*agui.ActivityMessage, *agui.ReasoningMessage:
	}
	return m
}

// copyMessage returns a shallow copy of m, so that a shim can change its
// top-level fields without touching the caller's message.
func copyMessage(m agui.Message) agui.Message {
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		c := *m
		return &c
	case *agui.SystemMessage:
		c := *m
		return &c
	case *agui.AssistantMessage:
		c := *m
		return &c
	case *agui.UserMessage:
		c := *m
		return &c
	case *agui.ToolMessage:
		c := *m
		return &c
	case *agui.ActivityMessage:
		c := *m
		return &c
	case *agui.ReasoningMessage:
		c := *m
		return &c
	}
	return m
}
