package eino

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/turn"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
)

// Messages maps an AG-UI conversation onto Eino messages: developer and
// system messages become system messages, user content parts become
// UserInputMultiContent, assistant tool calls become ToolCalls and a tool
// message becomes a tool message carrying the client's result (or its
// error). Activity messages are the UI's own and reasoning messages have no
// place in a model's input; both are dropped.
func Messages(history []agui.Message) ([]*schema.Message, error) {
	out := make([]*schema.Message, 0, len(history))
	names := map[string]string{} // tool call id → tool name, for the tool messages
	for _, m := range history {
		switch m := m.(type) {
		case *agui.DeveloperMessage:
			out = append(out, schema.SystemMessage(m.Content))
		case *agui.SystemMessage:
			out = append(out, schema.SystemMessage(m.Content))
		case *agui.UserMessage:
			u, err := userMessage(m)
			if err != nil {
				return nil, fmt.Errorf("message %q: %w", m.ID, err)
			}
			out = append(out, u)
		case *agui.AssistantMessage:
			am := &schema.Message{Role: schema.Assistant}
			if m.Content != nil {
				am.Content = *m.Content
			}
			if m.Name != nil {
				am.Name = *m.Name
			}
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Function.Name
				am.ToolCalls = append(am.ToolCalls, schema.ToolCall{ID: tc.ID, Type: "function",
					Function: schema.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
			}
			out = append(out, am)
		case *agui.ToolMessage:
			out = append(out, schema.ToolMessage(turn.ToolOutput(m), m.ToolCallID, schema.WithToolName(names[m.ToolCallID])))
		case *agui.ActivityMessage, *agui.ReasoningMessage:
		}
	}
	return out, nil
}

func userMessage(m *agui.UserMessage) (*schema.Message, error) {
	u := &schema.Message{Role: schema.User}
	if m.Name != nil {
		u.Name = *m.Name
	}
	parts, isParts := m.Content.Parts()
	if !isParts {
		u.Content, _ = m.Content.Text()
		return u, nil
	}
	for _, p := range parts {
		part, err := inputPart(p)
		if err != nil {
			return nil, err
		}
		u.UserInputMultiContent = append(u.UserInputMultiContent, part)
	}
	return u, nil
}

// inputPart maps one content part. Eino's parts take a URL or base64 data
// with its MIME type; a part given by a provider's file id has no place in
// them.
func inputPart(p agui.ContentPart) (schema.MessageInputPart, error) {
	var common schema.MessagePartCommon
	source := func(kind string, src agui.PartSource) error {
		switch s := src.(type) {
		case *agui.DataSource:
			v := s.Value
			common.Base64Data, common.MIMEType = &v, s.MimeType
			return nil
		case *agui.URLSource:
			v := s.Value
			common.URL = &v
			common.MIMEType = turn.MimeType(s)
			return nil
		case *agui.FileSource:
		}
		return turn.UnsupportedPart("Eino", kind, src)
	}
	switch p := p.(type) {
	case *agui.TextPart:
		return schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, Text: p.Text}, nil
	case *agui.ImagePart:
		if err := source("image", p.Source); err != nil {
			return schema.MessageInputPart{}, err
		}
		return schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: common}}, nil
	case *agui.AudioPart:
		if err := source("audio", p.Source); err != nil {
			return schema.MessageInputPart{}, err
		}
		return schema.MessageInputPart{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{MessagePartCommon: common}}, nil
	case *agui.VideoPart:
		if err := source("video", p.Source); err != nil {
			return schema.MessageInputPart{}, err
		}
		return schema.MessageInputPart{Type: schema.ChatMessagePartTypeVideoURL, Video: &schema.MessageInputVideo{MessagePartCommon: common}}, nil
	case *agui.DocumentPart:
		if err := source("document", p.Source); err != nil {
			return schema.MessageInputPart{}, err
		}
		return schema.MessageInputPart{Type: schema.ChatMessagePartTypeFileURL, File: &schema.MessageInputFile{MessagePartCommon: common}}, nil
	}
	return schema.MessageInputPart{}, fmt.Errorf("unknown content part %T", p)
}

// FrontendResult is the result an Eino agent records for a call of a
// frontend tool: the call is the client's, and the run ends with it pending.
const FrontendResult = "The client runs this tool; its result arrives with the next message."

// frontendTool is a tool the run declared: the model sees its schema, and a
// call of it returns at once (the agent's ToolsConfig.ReturnDirectly names
// it, so the agent stops there) and is left pending for the client.
type frontendTool struct {
	info  *schema.ToolInfo
	calls *frontendCalls
}

func (f *frontendTool) Info(context.Context) (*schema.ToolInfo, error) { return f.info, nil }

func (f *frontendTool) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	f.calls.add(compose.GetToolCallID(ctx))
	return FrontendResult, nil
}

// frontendTools maps the run's tools onto Eino tools.
func frontendTools(tools []agui.Tool, calls *frontendCalls) ([]tool.BaseTool, error) {
	out := make([]tool.BaseTool, 0, len(tools))
	for _, t := range tools {
		s := &jsonschema.Schema{}
		if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
			if err := json.Unmarshal(t.Parameters, s); err != nil {
				return nil, fmt.Errorf("the parameters of tool %q are not a JSON Schema object: %w", t.Name, err)
			}
		} else {
			s.Type, s.Properties = "object", jsonschema.NewProperties()
		}
		out = append(out, &frontendTool{info: &schema.ToolInfo{Name: t.Name, Desc: t.Description,
			ParamsOneOf: schema.NewParamsOneOfByJSONSchema(s)}, calls: calls})
	}
	return out, nil
}
