package conversation

import (
	"encoding/json"
	"slices"

	"github.com/agui-go/sdk/agui"
)

// The helpers below give the reducer uniform access to the seven message
// variants. Each is an exhaustive switch: a new role is a compile-time
// (lint-time) change here.

func messageID(m agui.Message) string {
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		return m.ID
	case *agui.SystemMessage:
		return m.ID
	case *agui.AssistantMessage:
		return m.ID
	case *agui.UserMessage:
		return m.ID
	case *agui.ToolMessage:
		return m.ID
	case *agui.ActivityMessage:
		return m.ID
	case *agui.ReasoningMessage:
		return m.ID
	}
	return ""
}

// text returns the message's content as the reference's text events read
// it: a string content, or "" for anything else (parts, an activity's object,
// an absent assistant content).
func text(m agui.Message) string {
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		return m.Content
	case *agui.SystemMessage:
		return m.Content
	case *agui.AssistantMessage:
		if m.Content != nil {
			return *m.Content
		}
	case *agui.UserMessage:
		s, _ := m.Content.Text()
		return s
	case *agui.ToolMessage:
		s, _ := m.Content.Text()
		return s
	case *agui.ReasoningMessage:
		return m.Content
	case *agui.ActivityMessage:
	}
	return ""
}

// setText replaces the content with a string, as the reference's text
// events do.
func setText(m agui.Message, s string) {
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		m.Content = s
	case *agui.SystemMessage:
		m.Content = s
	case *agui.AssistantMessage:
		m.Content = &s
	case *agui.UserMessage:
		m.Content = agui.TextContent(s)
	case *agui.ToolMessage:
		m.Content = agui.TextContent(s)
	case *agui.ReasoningMessage:
		m.Content = s
	case *agui.ActivityMessage: // never called: activity messages take no text
	}
}

// metadataOf returns a pointer to the message's metadata.
func metadataOf(m agui.Message) *json.RawMessage {
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		return &m.Metadata
	case *agui.SystemMessage:
		return &m.Metadata
	case *agui.AssistantMessage:
		return &m.Metadata
	case *agui.UserMessage:
		return &m.Metadata
	case *agui.ToolMessage:
		return &m.Metadata
	case *agui.ActivityMessage:
		return &m.Metadata
	case *agui.ReasoningMessage:
		return &m.Metadata
	}
	return nil
}

// setEncryptedValue sets encryptedValue on a message that has one (every
// role but activity).
func setEncryptedValue(m agui.Message, v string) bool {
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		m.EncryptedValue = &v
	case *agui.SystemMessage:
		m.EncryptedValue = &v
	case *agui.AssistantMessage:
		m.EncryptedValue = &v
	case *agui.UserMessage:
		m.EncryptedValue = &v
	case *agui.ToolMessage:
		m.EncryptedValue = &v
	case *agui.ReasoningMessage:
		m.EncryptedValue = &v
	case *agui.ActivityMessage:
		return false
	}
	return true
}

// cloneMessage copies a message, pointed-to strings and tool calls
// included, so that the copy can be handed out (or taken in from an event a
// producer may reuse) without sharing anything either side changes later.
// Raw JSON members and content parts are shared: the reducer replaces them,
// never edits them in place.
func cloneMessage(m agui.Message) agui.Message {
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		c := *m
		c.Name, c.EncryptedValue, c.SubagentRunID = cp(m.Name), cp(m.EncryptedValue), cp(m.SubagentRunID)
		return &c
	case *agui.SystemMessage:
		c := *m
		c.Name, c.EncryptedValue, c.SubagentRunID = cp(m.Name), cp(m.EncryptedValue), cp(m.SubagentRunID)
		return &c
	case *agui.AssistantMessage:
		c := *m
		c.Content, c.Name, c.EncryptedValue, c.SubagentRunID = cp(m.Content), cp(m.Name), cp(m.EncryptedValue), cp(m.SubagentRunID)
		if m.ToolCalls != nil {
			c.ToolCalls = make([]agui.ToolCall, len(m.ToolCalls))
			for i, tc := range m.ToolCalls {
				tc.EncryptedValue = cp(tc.EncryptedValue)
				c.ToolCalls[i] = tc
			}
		}
		return &c
	case *agui.UserMessage:
		c := *m
		c.Content = cloneContent(m.Content)
		c.Name, c.EncryptedValue, c.SubagentRunID = cp(m.Name), cp(m.EncryptedValue), cp(m.SubagentRunID)
		return &c
	case *agui.ToolMessage:
		c := *m
		c.Content = cloneContent(m.Content)
		c.Error, c.EncryptedValue, c.SubagentRunID = cp(m.Error), cp(m.EncryptedValue), cp(m.SubagentRunID)
		return &c
	case *agui.ActivityMessage:
		c := *m
		c.SubagentRunID = cp(m.SubagentRunID)
		return &c
	case *agui.ReasoningMessage:
		c := *m
		c.EncryptedValue, c.SubagentRunID = cp(m.EncryptedValue), cp(m.SubagentRunID)
		return &c
	}
	return m
}

// cp copies a pointed-to string.
func cp(p *string) *string {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneContent copies the list of parts (the parts themselves are shared).
func cloneContent(c agui.Content) agui.Content {
	if parts, ok := c.Parts(); ok {
		return agui.PartsContent(slices.Clone(parts)...)
	}
	return c
}

func roleOf(m agui.Message) agui.Role {
	switch m.(type) {
	case *agui.DeveloperMessage:
		return agui.RoleDeveloper
	case *agui.SystemMessage:
		return agui.RoleSystem
	case *agui.AssistantMessage:
		return agui.RoleAssistant
	case *agui.UserMessage:
		return agui.RoleUser
	case *agui.ToolMessage:
		return agui.RoleTool
	case *agui.ActivityMessage:
		return agui.RoleActivity
	case *agui.ReasoningMessage:
		return agui.RoleReasoning
	}
	return ""
}

// newTextMessage is the message TEXT_MESSAGE_START creates: its role (the
// assistant when absent), empty string content, its name and owner.
func newTextMessage(ev *agui.TextMessageStart) agui.Message {
	empty := ""
	role := agui.TextMessageRoleAssistant
	if ev.Role != nil {
		role = *ev.Role
	}
	switch role {
	case agui.TextMessageRoleDeveloper:
		return &agui.DeveloperMessage{ID: ev.MessageID, Name: cp(ev.Name), Attribution: agui.Attribution{SubagentRunID: cp(ev.SubagentRunID)}}
	case agui.TextMessageRoleSystem:
		return &agui.SystemMessage{ID: ev.MessageID, Name: cp(ev.Name), Attribution: agui.Attribution{SubagentRunID: cp(ev.SubagentRunID)}}
	case agui.TextMessageRoleUser:
		return &agui.UserMessage{ID: ev.MessageID, Content: agui.TextContent(""), Name: cp(ev.Name), Attribution: agui.Attribution{SubagentRunID: cp(ev.SubagentRunID)}}
	case agui.TextMessageRoleAssistant:
	}
	return &agui.AssistantMessage{ID: ev.MessageID, Content: &empty, Name: cp(ev.Name), Attribution: agui.Attribution{SubagentRunID: cp(ev.SubagentRunID)}}
}
