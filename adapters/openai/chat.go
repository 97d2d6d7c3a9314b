package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/turn"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// chat is a run's conversation on the Chat Completions API.
type chat struct {
	a      *Agent
	params oai.ChatCompletionNewParams
}

func (a *Agent) newChat(history []agui.Message, instructions string, frontend []agui.Tool) (*chat, error) {
	c := &chat{a: a}
	p := &c.params
	p.Model = a.cfg.model
	p.StreamOptions.IncludeUsage = param.NewOpt(true)
	if instructions != "" {
		p.Messages = append(p.Messages, oai.SystemMessage(instructions))
	}
	msgs, err := chatMessages(history)
	if err != nil {
		return nil, err
	}
	p.Messages = append(p.Messages, msgs...)
	for _, t := range a.toolList(frontend) {
		schema, err := turn.Schema(t.Name, t.Parameters)
		if err != nil {
			return nil, err
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionToolUnionParam{OfFunction: &oai.ChatCompletionFunctionToolParam{Function: fn}})
	}
	for _, f := range a.cfg.chatParams {
		f(p)
	}
	return c, nil
}

// chatMessages maps the AG-UI conversation onto Chat Completions messages.
// Activity messages are the UI's own and are not sent; reasoning messages
// have no place in a Chat Completions request and are dropped too.
func chatMessages(history []agui.Message) ([]oai.ChatCompletionMessageParamUnion, error) {
	var out []oai.ChatCompletionMessageParamUnion
	for _, m := range history {
		switch m := m.(type) {
		case *agui.DeveloperMessage:
			out = append(out, oai.DeveloperMessage(m.Content))
		case *agui.SystemMessage:
			out = append(out, oai.SystemMessage(m.Content))
		case *agui.UserMessage:
			u, err := chatUser(m)
			if err != nil {
				return nil, fmt.Errorf("message %q: %w", m.ID, err)
			}
			out = append(out, u)
		case *agui.AssistantMessage:
			var am oai.ChatCompletionAssistantMessageParam
			if m.Content != nil && *m.Content != "" {
				am.Content.OfString = param.NewOpt(*m.Content)
			}
			if m.Name != nil {
				am.Name = param.NewOpt(*m.Name)
			}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
					},
				})
			}
			out = append(out, oai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		case *agui.ToolMessage:
			out = append(out, oai.ToolMessage(turn.ToolOutput(m), m.ToolCallID))
		case *agui.ActivityMessage, *agui.ReasoningMessage:
		}
	}
	return out, nil
}

func chatUser(m *agui.UserMessage) (oai.ChatCompletionMessageParamUnion, error) {
	var u oai.ChatCompletionUserMessageParam
	if m.Name != nil {
		u.Name = param.NewOpt(*m.Name)
	}
	parts, isParts := m.Content.Parts()
	if !isParts {
		text, _ := m.Content.Text()
		u.Content.OfString = param.NewOpt(text)
		return oai.ChatCompletionMessageParamUnion{OfUser: &u}, nil
	}
	list := []oai.ChatCompletionContentPartUnionParam{}
	for _, p := range parts {
		part, err := chatPart(p)
		if err != nil {
			return oai.ChatCompletionMessageParamUnion{}, err
		}
		list = append(list, part)
	}
	u.Content.OfArrayOfContentParts = list
	return oai.ChatCompletionMessageParamUnion{OfUser: &u}, nil
}

func chatPart(p agui.ContentPart) (oai.ChatCompletionContentPartUnionParam, error) {
	switch p := p.(type) {
	case *agui.TextPart:
		return oai.TextContentPart(p.Text), nil
	case *agui.ImagePart:
		switch s := p.Source.(type) {
		case *agui.DataSource:
			return oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: turn.DataURL(s.MimeType, s.Value)}), nil
		case *agui.URLSource:
			return oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: s.Value}), nil
		case *agui.FileSource:
		}
		return oai.ChatCompletionContentPartUnionParam{}, turn.UnsupportedPart("OpenAI Chat Completions", "image", p.Source)
	case *agui.AudioPart:
		if s, ok := p.Source.(*agui.DataSource); ok {
			switch s.MimeType {
			case "audio/wav", "audio/x-wav", "audio/wave":
				return oai.InputAudioContentPart(oai.ChatCompletionContentPartInputAudioInputAudioParam{Data: s.Value, Format: "wav"}), nil
			case "audio/mpeg", "audio/mp3":
				return oai.InputAudioContentPart(oai.ChatCompletionContentPartInputAudioInputAudioParam{Data: s.Value, Format: "mp3"}), nil
			}
		}
		return oai.ChatCompletionContentPartUnionParam{}, turn.UnsupportedPart("OpenAI Chat Completions", "audio", p.Source)
	case *agui.DocumentPart:
		var f oai.ChatCompletionContentPartFileFileParam
		switch s := p.Source.(type) {
		case *agui.DataSource:
			f.FileData = param.NewOpt(turn.DataURL(s.MimeType, s.Value))
			f.Filename = param.NewOpt(filename(p.Metadata, s.MimeType))
		case *agui.FileSource:
			f.FileID = param.NewOpt(s.Value)
		case *agui.URLSource:
			return oai.ChatCompletionContentPartUnionParam{}, turn.UnsupportedPart("OpenAI Chat Completions", "document", p.Source)
		}
		return oai.FileContentPart(f), nil
	case *agui.VideoPart:
		return oai.ChatCompletionContentPartUnionParam{}, turn.UnsupportedPart("OpenAI Chat Completions", "video", p.Source)
	}
	return oai.ChatCompletionContentPartUnionParam{}, fmt.Errorf("unknown content part %T", p)
}

// filename names an inline document: the part's metadata "filename" when it
// has one, else a name from its MIME type (OpenAI requires one).
func filename(metadata json.RawMessage, mimeType string) string {
	var md struct {
		Filename string `json:"filename"`
	}
	if json.Unmarshal(metadata, &md) == nil && md.Filename != "" {
		return md.Filename
	}
	if mimeType == "application/pdf" {
		return "document.pdf"
	}
	return "document"
}

// Next streams one reply and records it.
func (c *chat) Next(ctx context.Context, t *turn.Turn) (agui.TokenUsage, error) {
	stream := c.a.client.Chat.Completions.NewStreaming(ctx, c.params, c.a.cfg.reqOpts...)
	defer stream.Close()
	var usage agui.TokenUsage
	finished := false // a finish_reason came: the reply is whole
	for stream.Next() {
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() {
			u := chunk.Usage
			usage = agui.TokenUsage{
				InputTokens:  turn.Count(u.PromptTokens),
				OutputTokens: turn.Count(u.CompletionTokens),
				TotalTokens:  turn.Count(u.TotalTokens),
			}
			if u.CompletionTokensDetails.JSON.ReasoningTokens.Valid() {
				usage.ReasoningTokens = turn.Count(u.CompletionTokensDetails.ReasoningTokens)
			}
			if u.PromptTokensDetails.JSON.CachedTokens.Valid() {
				usage.CachedInputTokens = turn.Count(u.PromptTokensDetails.CachedTokens)
			}
		}
		if chunk.Model != "" && usage.Model == nil {
			model := chunk.Model
			usage.Model = &model
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue // one reply per run: extra choices (n > 1) are ignored
			}
			if choice.FinishReason != "" {
				finished = true
			}
			if err := c.delta(t, choice.Delta); err != nil {
				return usage, err
			}
		}
	}
	if err := stream.Err(); err != nil {
		return usage, providerError(ctx, err)
	}
	if !finished {
		return usage, turn.Truncated("the OpenAI")
	}
	text, calls, err := t.Close()
	if err != nil {
		return usage, err
	}
	var am oai.ChatCompletionAssistantMessageParam
	if text != "" {
		am.Content.OfString = param.NewOpt(text)
	}
	for _, call := range calls {
		am.ToolCalls = append(am.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
				ID:       call.ID,
				Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: call.Name, Arguments: call.Arguments},
			},
		})
	}
	c.params.Messages = append(c.params.Messages, oai.ChatCompletionMessageParamUnion{OfAssistant: &am})
	return usage, nil
}

// delta emits one choice delta. Reasoning is not part of OpenAI's own Chat
// Completions stream; servers that speak the same API and do stream it (vLLM,
// DeepSeek, OpenRouter) put it in delta.reasoning_content or
// delta.reasoning, which are read when present.
func (c *chat) delta(t *turn.Turn, d oai.ChatCompletionChunkChoiceDelta) error {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		// The SDK keeps members it does not know as raw JSON (Valid is false
		// for them by design).
		if f, ok := d.JSON.ExtraFields[key]; ok {
			var s string
			if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
				if err := t.Reasoning("", s); err != nil {
					return err
				}
			}
		}
	}
	if err := t.Text(d.Content); err != nil {
		return err
	}
	if err := t.Text(d.Refusal); err != nil {
		return err
	}
	for _, tc := range d.ToolCalls {
		key := strconv.FormatInt(tc.Index, 10)
		if err := t.ToolChunk(key, tc.ID, tc.Function.Name, tc.Function.Arguments); err != nil {
			return err
		}
	}
	return nil
}

// AddResults records the backend tools' results as tool messages.
func (c *chat) AddResults(results []turn.Result) {
	for _, r := range results {
		c.params.Messages = append(c.params.Messages, oai.ToolMessage(r.Content, r.CallID))
	}
}
