package openai

import (
	"context"
	"fmt"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/turn"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// resp is a run's conversation on the Responses API. The whole conversation
// is sent with every request (no previous_response_id): the AG-UI client
// holds the history, and a run must not depend on what OpenAI stored.
type resp struct {
	a      *Agent
	params responses.ResponseNewParams
}

func (a *Agent) newResponses(history []agui.Message, instructions string, frontend []agui.Tool) (*resp, error) {
	r := &resp{a: a}
	p := &r.params
	p.Model = a.cfg.model
	if instructions != "" {
		p.Instructions = param.NewOpt(instructions)
	}
	items, err := responseItems(history)
	if err != nil {
		return nil, err
	}
	p.Input.OfInputItemList = items
	for _, t := range a.toolList(frontend) {
		schema, err := turn.Schema(t.Name, t.Parameters)
		if err != nil {
			return nil, err
		}
		// strict mode would reject many ordinary schemas (optional members,
		// additionalProperties left open); the schema is passed as given.
		fn := &responses.FunctionToolParam{Name: t.Name, Parameters: schema, Strict: param.NewOpt(false)}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: fn})
	}
	for _, f := range a.cfg.respParams {
		f(p)
	}
	return r, nil
}

// responseItems maps the AG-UI conversation onto Responses input items. A
// reasoning message goes back as a reasoning item only when it carries the
// encrypted content OpenAI gave it (its id is then OpenAI's item id); without
// it OpenAI could not use it. Activity messages are not sent.
func responseItems(history []agui.Message) (responses.ResponseInputParam, error) {
	var out responses.ResponseInputParam
	message := func(role responses.EasyInputMessageRole, text string) {
		out = append(out, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
			Role: role, Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(text)},
		}})
	}
	for _, m := range history {
		switch m := m.(type) {
		case *agui.DeveloperMessage:
			message(responses.EasyInputMessageRoleDeveloper, m.Content)
		case *agui.SystemMessage:
			message(responses.EasyInputMessageRoleSystem, m.Content)
		case *agui.UserMessage:
			parts, isParts := m.Content.Parts()
			if !isParts {
				message(responses.EasyInputMessageRoleUser, m.Content.String())
				continue
			}
			list := responses.ResponseInputMessageContentListParam{}
			for _, p := range parts {
				c, err := responsePart(p)
				if err != nil {
					return nil, fmt.Errorf("message %q: %w", m.ID, err)
				}
				list = append(list, c)
			}
			out = append(out, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role: responses.EasyInputMessageRoleUser, Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: list},
			}})
		case *agui.AssistantMessage:
			if m.Content != nil && *m.Content != "" {
				message(responses.EasyInputMessageRoleAssistant, *m.Content)
			}
			for _, tc := range m.ToolCalls {
				out = append(out, functionCall(tc.ID, tc.Function.Name, tc.Function.Arguments))
			}
		case *agui.ToolMessage:
			out = append(out, functionOutput(m.ToolCallID, turn.ToolOutput(m)))
		case *agui.ReasoningMessage:
			if m.EncryptedValue != nil && *m.EncryptedValue != "" {
				out = append(out, reasoningItem(m.ID, m.Content, *m.EncryptedValue))
			}
		case *agui.ActivityMessage:
		}
	}
	return out, nil
}

func functionCall(callID, name, arguments string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
		CallID: callID, Name: name, Arguments: arguments,
	}}
}

func functionOutput(callID, output string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: param.NewOpt(callID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt(output)},
	}}
}

func reasoningItem(id, summary, encrypted string) responses.ResponseInputItemUnionParam {
	item := &responses.ResponseReasoningItemParam{ID: id, Summary: []responses.ResponseReasoningItemSummaryParam{}}
	if summary != "" {
		item.Summary = append(item.Summary, responses.ResponseReasoningItemSummaryParam{Text: summary})
	}
	if encrypted != "" {
		item.EncryptedContent = param.NewOpt(encrypted)
	}
	return responses.ResponseInputItemUnionParam{OfReasoning: item}
}

func responsePart(p agui.ContentPart) (responses.ResponseInputContentUnionParam, error) {
	switch p := p.(type) {
	case *agui.TextPart:
		return responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: p.Text}}, nil
	case *agui.ImagePart:
		img := &responses.ResponseInputImageParam{Detail: responses.ResponseInputImageDetailAuto}
		switch s := p.Source.(type) {
		case *agui.DataSource:
			img.ImageURL = param.NewOpt(turn.DataURL(s.MimeType, s.Value))
		case *agui.URLSource:
			img.ImageURL = param.NewOpt(s.Value)
		case *agui.FileSource:
			img.FileID = param.NewOpt(s.Value)
		}
		return responses.ResponseInputContentUnionParam{OfInputImage: img}, nil
	case *agui.DocumentPart:
		f := &responses.ResponseInputFileParam{}
		switch s := p.Source.(type) {
		case *agui.DataSource:
			f.FileData = param.NewOpt(turn.DataURL(s.MimeType, s.Value))
			f.Filename = param.NewOpt(filename(p.Metadata, s.MimeType))
		case *agui.URLSource:
			f.FileURL = param.NewOpt(s.Value)
		case *agui.FileSource:
			f.FileID = param.NewOpt(s.Value)
		}
		return responses.ResponseInputContentUnionParam{OfInputFile: f}, nil
	case *agui.AudioPart:
		return responses.ResponseInputContentUnionParam{}, turn.UnsupportedPart("OpenAI Responses", "audio", p.Source)
	case *agui.VideoPart:
		return responses.ResponseInputContentUnionParam{}, turn.UnsupportedPart("OpenAI Responses", "video", p.Source)
	}
	return responses.ResponseInputContentUnionParam{}, fmt.Errorf("unknown content part %T", p)
}

// reasoning is a reasoning item of the reply, kept to send it back.
type reasoning struct {
	id, encrypted string
	summary       strings.Builder
}

// Next streams one reply and records it.
func (r *resp) Next(ctx context.Context, t *turn.Turn) (agui.TokenUsage, error) {
	stream := r.a.client.Responses.NewStreaming(ctx, r.params, r.a.cfg.reqOpts...)
	defer stream.Close()
	var usage agui.TokenUsage
	var thoughts []*reasoning
	byID := map[string]*reasoning{}
	thought := func(id string) *reasoning {
		if th, ok := byID[id]; ok {
			return th
		}
		th := &reasoning{id: id}
		byID[id] = th
		thoughts = append(thoughts, th)
		return th
	}
	var failure error
	finished := false // response.completed came: the reply is whole
	for failure == nil && stream.Next() {
		ev := stream.Current()
		var err error
		switch ev.Type {
		case "response.output_text.delta", "response.refusal.delta":
			err = t.Text(ev.Delta)
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			thought(ev.ItemID).summary.WriteString(ev.Delta)
			err = t.Reasoning(ev.ItemID, ev.Delta)
		case "response.reasoning_summary_part.added":
			if ev.SummaryIndex > 0 { // parts of one summary read as paragraphs
				thought(ev.ItemID).summary.WriteString("\n\n")
				err = t.Reasoning(ev.ItemID, "\n\n")
			}
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				err = t.StartTool(ev.Item.ID, ev.Item.CallID, ev.Item.Name)
			}
		case "response.function_call_arguments.delta":
			err = t.ToolArgs(ev.ItemID, ev.Delta)
		case "response.output_item.done":
			switch ev.Item.Type {
			case "function_call":
				if !t.HasTool(ev.Item.ID) { // arguments came whole, without deltas
					if err = t.StartTool(ev.Item.ID, ev.Item.CallID, ev.Item.Name); err == nil {
						err = t.ToolArgs(ev.Item.ID, ev.Item.Arguments.OfString)
					}
				}
				if err == nil {
					err = t.EndTool(ev.Item.ID)
				}
			case "reasoning":
				th := thought(ev.Item.ID)
				th.encrypted = ev.Item.EncryptedContent
				if err = t.ReasoningEncrypted(ev.Item.ID, th.encrypted); err == nil {
					err = t.EndThought()
				}
			}
		case "response.completed", "response.incomplete", "response.failed":
			usage = responseUsage(ev.Response)
			finished = true
			switch ev.Type {
			case "response.incomplete":
				failure = server.AgentError(fmt.Errorf("OpenAI ended the response incomplete: %s", ev.Response.IncompleteDetails.Reason))
			case "response.failed":
				msg := ev.Response.Error.Message
				if msg == "" {
					msg = "the response failed"
				}
				if ev.Response.Error.Code != "" {
					msg += " (" + string(ev.Response.Error.Code) + ")"
				}
				failure = server.AgentError(&turn.Failure{Text: "OpenAI failed mid-stream: " + msg, Errs: []error{ErrStream}})
			}
		case "error":
			msg := ev.Message
			if ev.Code != "" {
				msg += " (" + ev.Code + ")"
			}
			failure = server.AgentError(&turn.Failure{Text: "OpenAI failed mid-stream: " + msg, Errs: []error{ErrStream}})
		}
		if err != nil {
			return usage, err
		}
	}
	if failure != nil {
		return usage, failure
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
	p := &r.params.Input.OfInputItemList
	for _, th := range thoughts {
		if th.encrypted != "" {
			*p = append(*p, reasoningItem(th.id, th.summary.String(), th.encrypted))
		}
	}
	if text != "" {
		*p = append(*p, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
			Role: responses.EasyInputMessageRoleAssistant, Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(text)},
		}})
	}
	for _, c := range calls {
		*p = append(*p, functionCall(c.ID, c.Name, c.Arguments))
	}
	return usage, nil
}

func responseUsage(r responses.Response) agui.TokenUsage {
	var u agui.TokenUsage
	if r.Model != "" {
		model := string(r.Model)
		u.Model = &model
	}
	if !r.JSON.Usage.Valid() {
		return u
	}
	u.InputTokens = turn.Count(r.Usage.InputTokens)
	u.OutputTokens = turn.Count(r.Usage.OutputTokens)
	u.TotalTokens = turn.Count(r.Usage.TotalTokens)
	u.ReasoningTokens = turn.Count(r.Usage.OutputTokensDetails.ReasoningTokens)
	u.CachedInputTokens = turn.Count(r.Usage.InputTokensDetails.CachedTokens)
	return u
}

// AddResults records the backend tools' results as function call outputs.
func (r *resp) AddResults(results []turn.Result) {
	for _, res := range results {
		r.params.Input.OfInputItemList = append(r.params.Input.OfInputItemList, functionOutput(res.CallID, res.Content))
	}
}
