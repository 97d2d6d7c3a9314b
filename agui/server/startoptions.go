package server

import "github.com/agui-go/sdk/agui"

// Each Start… helper takes its own option type, so that an option meant for
// another entity (a role for a tool call, a description for a text message)
// does not compile. An option that means the same to several entities is one
// value implementing each of their option types: [WithID] works everywhere,
// [WithParentMessage] for tool calls and subagents.

// TextMessageOption adjusts [Emitter.StartTextMessage]: [WithID], [WithRole],
// [WithName].
type TextMessageOption interface {
	applyToTextMessage(*textMessageOptions)
}

// ToolCallOption adjusts [Emitter.StartToolCall]: [WithID],
// [WithParentMessage].
type ToolCallOption interface {
	applyToToolCall(*toolCallOptions)
}

// ReasoningOption adjusts [Emitter.StartReasoning] and
// [Reasoning.StartMessage]: [WithID].
type ReasoningOption interface {
	applyToReasoning(id *string)
}

// SubagentOption adjusts [Emitter.StartSubagent]: [WithID],
// [WithDescription], [WithParentMessage], [WithParentToolCall].
type SubagentOption interface {
	applyToSubagent(*subagentOptions)
}

// ActivityOption adjusts [Emitter.StartActivity]: [WithID].
type ActivityOption interface {
	applyToActivity(id *string)
}

type textMessageOptions struct {
	id   string
	role *agui.TextMessageRole
	name *string
}

type toolCallOptions struct {
	id              string
	parentMessageID *string
}

type subagentOptions struct {
	id               string
	description      *string
	parentToolCallID *string
	parentMessageID  *string
}

// idOrNew returns id, or a fresh one when it is empty.
func idOrNew(id string) string {
	if id == "" {
		return agui.NewID()
	}
	return id
}

func reasoningID(opts []ReasoningOption) string {
	var id string
	for _, opt := range opts {
		if opt != nil {
			opt.applyToReasoning(&id)
		}
	}
	return idOrNew(id)
}

// IDOption is the option [WithID] returns; it applies to every Start… helper.
type IDOption struct{ id string }

// WithID uses id instead of a fresh random one (text messages, tool calls,
// reasoning, activities, subagent runs). Starting an entity with the id of a
// closed one re-opens it.
func WithID(id string) IDOption { return IDOption{id: id} }

func (o IDOption) applyToTextMessage(t *textMessageOptions) { t.id = o.id }
func (o IDOption) applyToToolCall(t *toolCallOptions)       { t.id = o.id }
func (o IDOption) applyToReasoning(id *string)              { *id = o.id }
func (o IDOption) applyToSubagent(s *subagentOptions)       { s.id = o.id }
func (o IDOption) applyToActivity(id *string)               { *id = o.id }

// ParentMessageOption is the option [WithParentMessage] returns; it applies
// to tool calls and subagents.
type ParentMessageOption struct{ messageID string }

// WithParentMessage names the assistant message that holds a tool call, or
// that a subagent belongs to.
func WithParentMessage(messageID string) ParentMessageOption {
	return ParentMessageOption{messageID: messageID}
}

func (o ParentMessageOption) applyToToolCall(t *toolCallOptions) {
	id := o.messageID
	t.parentMessageID = &id
}

func (o ParentMessageOption) applyToSubagent(s *subagentOptions) {
	id := o.messageID
	s.parentMessageID = &id
}

// textMessageOption and subagentOption are the options that apply to one
// entity only.
type (
	textMessageOption func(*textMessageOptions)
	subagentOption    func(*subagentOptions)
)

func (f textMessageOption) applyToTextMessage(o *textMessageOptions) { f(o) }
func (f subagentOption) applyToSubagent(o *subagentOptions)          { f(o) }

// WithRole sets a text message's role (the protocol's default is assistant).
func WithRole(role agui.TextMessageRole) TextMessageOption {
	return textMessageOption(func(o *textMessageOptions) { o.role = &role })
}

// WithName sets a text message's name.
func WithName(name string) TextMessageOption {
	return textMessageOption(func(o *textMessageOptions) { o.name = &name })
}

// WithParentToolCall names the tool call a subagent serves.
func WithParentToolCall(toolCallID string) SubagentOption {
	return subagentOption(func(o *subagentOptions) { o.parentToolCallID = &toolCallID })
}

// WithDescription sets a subagent's description.
func WithDescription(d string) SubagentOption {
	return subagentOption(func(o *subagentOptions) { o.description = &d })
}
