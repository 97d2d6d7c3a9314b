package anthropic

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/turn"
	ant "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
)

// conversation is a run's conversation on the Messages API.
type conversation struct {
	a      *Agent
	params ant.MessageNewParams
}

func (a *Agent) newConversation(history []agui.Message, instructions string, tools []agui.Tool) (*conversation, error) {
	c := &conversation{a: a}
	p := &c.params
	p.Model = ant.Model(a.cfg.model)
	p.MaxTokens = a.cfg.maxTokens
	if instructions != "" {
		p.System = append(p.System, ant.TextBlockParam{Text: instructions})
	}
	var err error
	var system []ant.TextBlockParam
	p.Messages, system, err = messages(history)
	if err != nil {
		return nil, err
	}
	p.System = append(p.System, system...)
	for _, t := range tools {
		schema, err := turn.Schema(t.Name, t.Parameters)
		if err != nil {
			return nil, err
		}
		in := ant.ToolInputSchemaParam{ExtraFields: map[string]any{}}
		for k, v := range schema {
			switch k {
			case "type": // always "object"; the SDK writes it
			case "properties":
				in.Properties = v
			case "required":
				for _, r := range asList(v) {
					if s, ok := r.(string); ok {
						in.Required = append(in.Required, s)
					}
				}
			default:
				in.ExtraFields[k] = v
			}
		}
		tool := &ant.ToolParam{Name: t.Name, InputSchema: in}
		if t.Description != "" {
			tool.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, ant.ToolUnionParam{OfTool: tool})
	}
	for _, f := range a.cfg.params {
		f(p)
	}
	return c, nil
}

func asList(v any) []any { l, _ := v.([]any); return l }

// messages maps the AG-UI conversation onto Anthropic messages. System and
// developer messages go to the system prompt (the Messages API has no such
// role in the conversation); tool results become tool_result blocks of a
// user turn; consecutive turns of one role are merged, as the API expects
// turns to alternate. A reasoning message that carries an encrypted value
// (the signature Anthropic gave the thinking, or a redacted block's data)
// is sent back as a thinking block at the start of the next assistant turn;
// one without is dropped, as Anthropic would reject it. Activity messages are
// not sent.
func messages(history []agui.Message) ([]ant.MessageParam, []ant.TextBlockParam, error) {
	var out []ant.MessageParam
	var system []ant.TextBlockParam
	var thinking []ant.ContentBlockParamUnion
	add := func(role string, blocks ...ant.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 {
			last := &out[n-1]
			if role == "user" && last.OfUser != nil {
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
				return
			}
			if role == "assistant" && last.OfAssistant != nil {
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
				return
			}
		}
		if role == "user" {
			out = append(out, ant.NewUserMessage(blocks...))
		} else {
			out = append(out, ant.NewAssistantMessage(blocks...))
		}
	}
	for _, m := range history {
		switch m := m.(type) {
		case *agui.SystemMessage:
			system = append(system, ant.TextBlockParam{Text: m.Content})
		case *agui.DeveloperMessage:
			system = append(system, ant.TextBlockParam{Text: m.Content})
		case *agui.UserMessage:
			blocks, err := userBlocks(m.Content)
			if err != nil {
				return nil, nil, fmt.Errorf("message %q: %w", m.ID, err)
			}
			add("user", blocks...)
		case *agui.ReasoningMessage:
			if m.EncryptedValue != nil && *m.EncryptedValue != "" {
				thinking = append(thinking, thinkingBlock(m.Content, *m.EncryptedValue))
			}
		case *agui.AssistantMessage:
			blocks := thinking
			thinking = nil
			if m.Content != nil && *m.Content != "" {
				blocks = append(blocks, ant.NewTextBlock(*m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, ant.NewToolUseBlock(tc.ID, toolInput(tc.Function.Arguments), tc.Function.Name))
			}
			add("assistant", blocks...)
		case *agui.ToolMessage:
			text := turn.ContentText(m.Content)
			isError := m.Error != nil && *m.Error != ""
			if isError {
				text = strings.TrimSpace(text + "\nerror: " + *m.Error)
			}
			add("user", ant.NewToolResultBlock(m.ToolCallID, text, isError))
		case *agui.ActivityMessage:
		}
	}
	return out, system, nil
}

// thinkingBlock rebuilds the thinking block a reasoning message was made
// from.
func thinkingBlock(text, encrypted string) ant.ContentBlockParamUnion {
	if data, ok := strings.CutPrefix(encrypted, RedactedPrefix); ok {
		return ant.ContentBlockParamUnion{OfRedactedThinking: &ant.RedactedThinkingBlockParam{Data: data}}
	}
	return ant.ContentBlockParamUnion{OfThinking: &ant.ThinkingBlockParam{Thinking: text, Signature: encrypted}}
}

// toolInput is a call's arguments as the object tool_use.input must be; text
// that is not a JSON object (a model cut off mid-call) becomes {}.
func toolInput(arguments string) json.RawMessage {
	var probe map[string]json.RawMessage
	if json.Unmarshal([]byte(arguments), &probe) != nil || probe == nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(arguments)
}

func userBlocks(c agui.Content) ([]ant.ContentBlockParamUnion, error) {
	parts, isParts := c.Parts()
	if !isParts {
		text, _ := c.Text()
		return []ant.ContentBlockParamUnion{ant.NewTextBlock(text)}, nil
	}
	var blocks []ant.ContentBlockParamUnion
	for _, p := range parts {
		b, err := block(p)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

func block(p agui.ContentPart) (ant.ContentBlockParamUnion, error) {
	switch p := p.(type) {
	case *agui.TextPart:
		return ant.NewTextBlock(p.Text), nil
	case *agui.ImagePart:
		var src ant.ImageBlockParamSourceUnion
		switch s := p.Source.(type) {
		case *agui.DataSource:
			switch mt := ant.Base64ImageSourceMediaType(s.MimeType); mt {
			case ant.Base64ImageSourceMediaTypeImageJPEG, ant.Base64ImageSourceMediaTypeImagePNG,
				ant.Base64ImageSourceMediaTypeImageGIF, ant.Base64ImageSourceMediaTypeImageWebP:
				src.OfBase64 = &ant.Base64ImageSourceParam{Data: s.Value, MediaType: mt}
			default:
				return ant.ContentBlockParamUnion{}, turn.UnsupportedPart("Anthropic", "image", p.Source)
			}
		case *agui.URLSource:
			src.OfURL = &ant.URLImageSourceParam{URL: s.Value}
		case *agui.FileSource:
			src.OfFile = &ant.FileImageSourceParam{FileID: s.Value}
		}
		return ant.ContentBlockParamUnion{OfImage: &ant.ImageBlockParam{Source: src}}, nil
	case *agui.DocumentPart:
		var src ant.DocumentBlockParamSourceUnion
		switch s := p.Source.(type) {
		case *agui.DataSource:
			switch {
			case s.MimeType == "application/pdf":
				src.OfBase64 = &ant.Base64PDFSourceParam{Data: s.Value}
			case strings.HasPrefix(s.MimeType, "text/"):
				text, err := base64.StdEncoding.DecodeString(s.Value)
				if err != nil {
					return ant.ContentBlockParamUnion{}, fmt.Errorf("a %s document's data is not base64: %w", s.MimeType, err)
				}
				src.OfText = &ant.PlainTextSourceParam{Data: string(text)}
			default:
				return ant.ContentBlockParamUnion{}, turn.UnsupportedPart("Anthropic", "document", p.Source)
			}
		case *agui.URLSource:
			src.OfURL = &ant.URLPDFSourceParam{URL: s.Value}
		case *agui.FileSource:
			src.OfFile = &ant.FileDocumentSourceParam{FileID: s.Value}
		}
		return ant.ContentBlockParamUnion{OfDocument: &ant.DocumentBlockParam{Source: src}}, nil
	case *agui.AudioPart:
		return ant.ContentBlockParamUnion{}, turn.UnsupportedPart("Anthropic", "audio", p.Source)
	case *agui.VideoPart:
		return ant.ContentBlockParamUnion{}, turn.UnsupportedPart("Anthropic", "video", p.Source)
	}
	return ant.ContentBlockParamUnion{}, fmt.Errorf("unknown content part %T", p)
}

// streamed is one content block of the reply, kept to send the reply back.
type streamed struct {
	kind      string // text, thinking, redacted_thinking, tool_use
	text      strings.Builder
	signature string
	data      string
	id, name  string
	args      strings.Builder
}

// Next streams one reply and records it.
func (c *conversation) Next(ctx context.Context, t *turn.Turn) (agui.TokenUsage, error) {
	stream := c.a.client.Messages.NewStreaming(ctx, c.params, c.a.cfg.reqOpts...)
	defer stream.Close()
	var usage agui.TokenUsage
	var in, cacheRead, cacheWrite, out int64
	var blocks []*streamed
	byIndex := map[int64]*streamed{}
	finished := false // message_stop came: the reply is whole
	for stream.Next() {
		ev := stream.Current()
		var err error
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			in, cacheRead, cacheWrite, out = u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens
			if ev.Message.Model != "" {
				model := string(ev.Message.Model)
				usage.Model = &model
			}
		case "content_block_start":
			cb := ev.ContentBlock
			b := &streamed{kind: cb.Type, id: cb.ID, name: cb.Name}
			byIndex[ev.Index] = b
			blocks = append(blocks, b)
			switch cb.Type {
			case "text":
				b.text.WriteString(cb.Text)
				err = t.Text(cb.Text)
			case "thinking":
				b.text.WriteString(cb.Thinking)
				err = t.Reasoning("", cb.Thinking)
			case "redacted_thinking":
				b.data = cb.Data
				if err = t.ReasoningEncrypted("", RedactedPrefix+cb.Data); err == nil {
					err = t.EndThought()
				}
			case "tool_use":
				err = t.StartTool(key(ev.Index), cb.ID, cb.Name)
			}
		case "content_block_delta":
			b := byIndex[ev.Index]
			if b == nil {
				break
			}
			d := ev.Delta
			switch d.Type {
			case "text_delta":
				b.text.WriteString(d.Text)
				err = t.Text(d.Text)
			case "thinking_delta":
				b.text.WriteString(d.Thinking)
				err = t.Reasoning("", d.Thinking)
			case "signature_delta":
				b.signature += d.Signature
			case "input_json_delta":
				b.args.WriteString(d.PartialJSON)
				err = t.ToolArgs(key(ev.Index), d.PartialJSON)
			}
		case "content_block_stop":
			b := byIndex[ev.Index]
			if b == nil {
				break
			}
			switch b.kind {
			case "thinking":
				if err = t.ReasoningEncrypted("", b.signature); err == nil {
					err = t.EndThought()
				}
			case "tool_use":
				err = t.EndTool(key(ev.Index))
			}
		case "message_stop":
			finished = true
		case "message_delta":
			// Counts in message_delta are cumulative for the message.
			u := ev.Usage
			out = u.OutputTokens
			if u.InputTokens > 0 {
				in = u.InputTokens
			}
			if u.CacheReadInputTokens > 0 {
				cacheRead = u.CacheReadInputTokens
			}
			if u.CacheCreationInputTokens > 0 {
				cacheWrite = u.CacheCreationInputTokens
			}
		}
		if err != nil {
			return usage, err
		}
	}
	if err := stream.Err(); err != nil {
		return usage, providerError(ctx, err)
	}
	if !finished {
		return usage, turn.Truncated("the Anthropic")
	}
	total := in + cacheRead + cacheWrite
	usage.InputTokens, usage.OutputTokens, usage.TotalTokens = turn.Count(total), turn.Count(out), turn.Count(total+out)
	usage.CachedInputTokens, usage.CacheWriteInputTokens = turn.Count(cacheRead), turn.Count(cacheWrite)
	if _, _, err := t.Close(); err != nil {
		return usage, err
	}
	var reply []ant.ContentBlockParamUnion
	for _, b := range blocks {
		switch b.kind {
		case "text":
			if b.text.Len() > 0 {
				reply = append(reply, ant.NewTextBlock(b.text.String()))
			}
		case "thinking":
			reply = append(reply, ant.ContentBlockParamUnion{OfThinking: &ant.ThinkingBlockParam{Thinking: b.text.String(), Signature: b.signature}})
		case "redacted_thinking":
			reply = append(reply, ant.ContentBlockParamUnion{OfRedactedThinking: &ant.RedactedThinkingBlockParam{Data: b.data}})
		case "tool_use":
			reply = append(reply, ant.NewToolUseBlock(b.id, toolInput(b.args.String()), b.name))
		}
	}
	if len(reply) > 0 {
		c.params.Messages = append(c.params.Messages, ant.NewAssistantMessage(reply...))
	}
	return usage, nil
}

func key(index int64) string { return strconv.FormatInt(index, 10) }

// AddResults records the backend tools' results as tool_result blocks of one
// user turn.
func (c *conversation) AddResults(results []turn.Result) {
	blocks := make([]ant.ContentBlockParamUnion, len(results))
	for i, r := range results {
		blocks[i] = ant.NewToolResultBlock(r.CallID, r.Content, r.IsError)
	}
	c.params.Messages = append(c.params.Messages, ant.NewUserMessage(blocks...))
}
