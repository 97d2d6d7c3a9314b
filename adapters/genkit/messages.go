package genkit

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/turn"
	"github.com/firebase/genkit/go/ai"
)

// history is the run's conversation as Genkit messages.
type history struct {
	msgs    []*ai.Message
	results map[string]bool // tool call ids the conversation has a result for
}

// messages maps the AG-UI conversation onto Genkit messages: developer and
// system messages as system messages, a run of tool messages as one tool
// message (Genkit answers a reply's calls together), a reasoning message
// that carries an encrypted value as a reasoning part of the reply after
// it. Activity messages are the UI's own and are not sent.
func messages(in []agui.Message) (history, error) {
	h := history{results: map[string]bool{}}
	names := map[string]string{} // tool call id → tool name
	var reasoning []*ai.Part
	for _, m := range in {
		switch m := m.(type) {
		case *agui.DeveloperMessage:
			h.msgs = append(h.msgs, ai.NewSystemTextMessage(m.Content))
		case *agui.SystemMessage:
			h.msgs = append(h.msgs, ai.NewSystemTextMessage(m.Content))
		case *agui.UserMessage:
			parts, err := userParts(m.Content)
			if err != nil {
				return h, fmt.Errorf("message %q: %w", m.ID, err)
			}
			h.msgs = append(h.msgs, ai.NewUserMessage(parts...))
		case *agui.ReasoningMessage:
			if m.EncryptedValue == nil || *m.EncryptedValue == "" {
				continue
			}
			sig, err := base64.StdEncoding.DecodeString(*m.EncryptedValue)
			if err != nil {
				sig = []byte(*m.EncryptedValue)
			}
			reasoning = append(reasoning, ai.NewReasoningPart(m.Content, sig))
		case *agui.AssistantMessage:
			parts := reasoning
			reasoning = nil
			if m.Content != nil && *m.Content != "" {
				parts = append(parts, ai.NewTextPart(*m.Content))
			}
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Function.Name
				parts = append(parts, ai.NewToolRequestPart(&ai.ToolRequest{
					Ref: tc.ID, Name: tc.Function.Name, Input: decodeArgs(tc.Function.Arguments),
				}))
			}
			if len(parts) > 0 {
				h.msgs = append(h.msgs, ai.NewModelMessage(parts...))
			}
		case *agui.ToolMessage:
			h.results[m.ToolCallID] = true
			part := ai.NewToolResponsePart(&ai.ToolResponse{Ref: m.ToolCallID, Name: names[m.ToolCallID], Output: toolResult(m)})
			if n := len(h.msgs); n > 0 && h.msgs[n-1].Role == ai.RoleTool {
				h.msgs[n-1].Content = append(h.msgs[n-1].Content, part)
			} else {
				h.msgs = append(h.msgs, ai.NewMessage(ai.RoleTool, nil, part))
			}
		case *agui.ActivityMessage:
		}
	}
	return h, nil
}

// decodeArgs is a tool call's arguments as Genkit keeps a tool input: the
// decoded JSON value, the text itself when it is not JSON.
func decodeArgs(s string) any {
	if s == "" {
		return map[string]any{}
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	return v
}

// toolResult is what the model reads as a tool's output: the decoded JSON
// of the client's result when it is JSON, else its text, with the error the
// client reported.
func toolResult(m *agui.ToolMessage) any {
	text := turn.ContentText(m.Content)
	if m.Error != nil && *m.Error != "" {
		if text == "" {
			return "error: " + *m.Error
		}
		return text + "\nerror: " + *m.Error
	}
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		return v
	}
	return text
}

func userParts(c agui.Content) ([]*ai.Part, error) {
	if s, ok := c.Text(); ok {
		return []*ai.Part{ai.NewTextPart(s)}, nil
	}
	list, _ := c.Parts()
	var out []*ai.Part
	for _, p := range list {
		switch p := p.(type) {
		case *agui.TextPart:
			out = append(out, ai.NewTextPart(p.Text))
		case *agui.ImagePart:
			mp, err := mediaPart("image", p.Source)
			if err != nil {
				return nil, err
			}
			out = append(out, mp)
		case *agui.AudioPart:
			mp, err := mediaPart("audio", p.Source)
			if err != nil {
				return nil, err
			}
			out = append(out, mp)
		case *agui.VideoPart:
			mp, err := mediaPart("video", p.Source)
			if err != nil {
				return nil, err
			}
			out = append(out, mp)
		case *agui.DocumentPart:
			mp, err := mediaPart("document", p.Source)
			if err != nil {
				return nil, err
			}
			out = append(out, mp)
		default:
			return nil, fmt.Errorf("unknown content part %T", p)
		}
	}
	return out, nil
}

// mediaPart is a media part as Genkit carries one: a URL, inline data as a
// data: URL. A provider file id has no place in a Genkit message.
func mediaPart(kind string, src agui.PartSource) (*ai.Part, error) {
	switch s := src.(type) {
	case *agui.DataSource:
		return ai.NewMediaPart(s.MimeType, turn.DataURL(s.MimeType, s.Value)), nil
	case *agui.URLSource:
		return ai.NewMediaPart(turn.MimeType(src), s.Value), nil
	case *agui.FileSource:
	}
	return nil, turn.UnsupportedPart("Genkit", kind, src)
}

// ErrResume is in the chain of a run's error when its resume entries do
// not answer the interrupted calls of the conversation's last reply.
var ErrResume = errors.New("genkit: the resume entries do not match the interrupted tool calls")

// resumeOptions turns the run's resume entries into Genkit's resume
// directives. The conversation must end with the interrupted reply (and
// the results the client has for its other calls): those results become the
// calls' pending output, as Genkit keeps them, and each remaining call is
// answered by the entry whose interruptId is its id.
func (r *run) resumeOptions(ctx context.Context, entries []agui.ResumeEntry) ([]ai.GenerateOption, error) {
	msgs := r.messages
	var answered map[string]any
	if n := len(msgs); n > 0 && msgs[n-1].Role == ai.RoleTool {
		answered = map[string]any{}
		for _, p := range msgs[n-1].Content {
			if p.IsToolResponse() {
				answered[p.ToolResponse.Ref] = p.ToolResponse.Output
			}
		}
		msgs = msgs[:n-1]
	}
	n := len(msgs)
	if n == 0 || msgs[n-1].Role != ai.RoleModel || !slices.ContainsFunc(msgs[n-1].Content, (*ai.Part).IsToolRequest) {
		return nil, fmt.Errorf("%w: the conversation does not end with the reply that was interrupted", ErrResume)
	}
	byID := map[string]agui.ResumeEntry{}
	for _, e := range entries {
		byID[e.InterruptID] = e
	}
	last := *msgs[n-1]
	last.Content = slices.Clone(last.Content)
	var restarts, responses []*ai.Part
	for i, p := range last.Content {
		if !p.IsToolRequest() {
			continue
		}
		id := p.ToolRequest.Ref
		if out, ok := answered[id]; ok {
			c := *p
			c.Metadata = map[string]any{"pendingOutput": out}
			last.Content[i] = &c
			continue
		}
		e, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%w: tool call %q has neither a result nor a resume entry", ErrResume, id)
		}
		delete(byID, id)
		resume := r.cfg.resume
		if resume == nil {
			resume = defaultResume
		}
		part, err := resume(ctx, p, e)
		if err != nil {
			return nil, fmt.Errorf("resuming tool call %q: %w", id, err)
		}
		switch {
		case part.IsToolRequest():
			restarts = append(restarts, part)
		case part.IsToolResponse():
			responses = append(responses, part)
		default:
			return nil, fmt.Errorf("resuming tool call %q: the resume function returned neither a tool request nor a tool response", id)
		}
		// The client answered this call through resume: the result the
		// resumed tool gives is news to it.
		r.reported[id] = false
	}
	for id := range byID {
		return nil, fmt.Errorf("%w: interrupt %q is not a call of the interrupted reply", ErrResume, id)
	}
	r.messages = append(slices.Clone(msgs[:n-1]), &last)
	var opts []ai.GenerateOption
	if len(restarts) > 0 {
		opts = append(opts, ai.WithToolRestarts(restarts...))
	}
	if len(responses) > 0 {
		opts = append(opts, ai.WithToolResponses(responses...))
	}
	return opts, nil
}

// defaultResume restarts the interrupted tool (Genkit's restart: the tool
// runs again with ai.ToolContext.Resumed set): a resolved entry with its
// payload as Resumed, a cancelled one with {"cancelled":true}. A cancelled
// call is restarted rather than answered because Genkit checks an answer
// against the tool's output schema, which only the tool knows how to meet.
func defaultResume(_ context.Context, call *ai.Part, e agui.ResumeEntry) (*ai.Part, error) {
	var payload any
	if len(e.Payload) > 0 {
		if err := json.Unmarshal(e.Payload, &payload); err != nil {
			return nil, fmt.Errorf("the payload of interrupt %q: %w", e.InterruptID, err)
		}
	}
	var resumed any = true
	switch v := payload.(type) {
	case nil:
	case map[string]any:
		resumed = v
	default:
		resumed = map[string]any{"payload": v}
	}
	if e.Status == agui.ResumeStatusCancelled {
		m := map[string]any{"cancelled": true}
		if payload != nil {
			m["payload"] = payload
		}
		resumed = m
	}
	p := ai.NewToolRequestPart(&ai.ToolRequest{Name: call.ToolRequest.Name, Ref: call.ToolRequest.Ref, Input: call.ToolRequest.Input})
	p.Metadata = map[string]any{"resumed": resumed}
	return p, nil
}
