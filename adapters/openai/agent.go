// Package openai serves an OpenAI model as an AG-UI agent, on the official
// Go SDK (github.com/openai/openai-go/v3), through either the Chat
// Completions or the Responses streaming API.
//
// The run's messages, tools, context entries and (with [WithState]) state
// become the request; the streamed reply becomes one assistant text message,
// TOOL_CALL_START/ARGS/END with OpenAI's call ids, and reasoning events. Tools
// the run declared are the client's (frontend tools): a reply that calls one
// ends the run as a success with the call pending. Tools registered with
// [WithTool] run here, in a loop, until the model answers.
//
// Reasoning reaches the client as reasoning events: the Responses API's
// reasoning summaries, and on Chat Completions the reasoning_content that
// compatible servers stream. OpenAI sends the encrypted reasoning a later run
// needs only when asked; with
//
//	openai.WithResponsesParams(func(p *responses.ResponseNewParams) {
//		p.Include = append(p.Include, responses.ResponseIncludableReasoningEncryptedContent)
//		p.Store = param.NewOpt(false)
//	})
//
// it arrives as REASONING_ENCRYPTED_VALUE on a reasoning message whose id is
// OpenAI's item id, and goes back as that reasoning item on the next run.
//
// The package has the SDK's name; import the SDK under another one:
//
//	import (
//		oai "github.com/openai/openai-go/v3"
//		"github.com/agui-go/sdk/adapters/openai"
//	)
//
//	agent := openai.New(oai.NewClient(), openai.WithModel("gpt-4.1-mini"))
//	http.Handle("/agent", server.NewHandler(agent))
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/turn"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// API selects the OpenAI endpoint a run streams from.
type API int

const (
	// ChatCompletions is POST /chat/completions (the default).
	ChatCompletions API = iota
	// Responses is POST /responses.
	Responses
)

// String returns "chat" or "responses", as the example's --api flag spells
// them.
func (a API) String() string {
	if a == Responses {
		return "responses"
	}
	return "chat"
}

// DefaultModel is the model used without [WithModel].
const DefaultModel = "gpt-4.1-mini"

// Agent is an OpenAI model served as an AG-UI agent. It is safe for
// concurrent runs.
type Agent struct {
	client oai.Client
	cfg    config
}

type config struct {
	api          API
	model        string
	systemPrompt string
	state        bool
	maxSteps     int
	tools        []turn.Tool
	chatParams   []func(*oai.ChatCompletionNewParams)
	respParams   []func(*responses.ResponseNewParams)
	reqOpts      []option.RequestOption
}

// Option configures an [Agent].
type Option func(*config)

// WithAPI selects the streaming API (ChatCompletions by default).
func WithAPI(api API) Option { return func(c *config) { c.api = api } }

// WithModel names the model ([DefaultModel] otherwise).
func WithModel(model string) Option { return func(c *config) { c.model = model } }

// WithSystemPrompt sets instructions sent before the conversation; the run's
// context entries are appended to them.
func WithSystemPrompt(prompt string) Option { return func(c *config) { c.systemPrompt = prompt } }

// WithState forwards the run's shared state (RunAgentInput.state) to the
// model as part of its instructions, so it can answer about it.
func WithState() Option { return func(c *config) { c.state = true } }

// WithMaxSteps bounds the model requests of one run (10 by default): a model
// that keeps calling backend tools ends the run with an error instead of
// looping for ever.
func WithMaxSteps(n int) Option { return func(c *config) { c.maxSteps = n } }

// WithTool registers a backend tool: fn runs on the server when the model
// calls name, with the arguments as JSON; its result goes back to the model
// and to the client as TOOL_CALL_RESULT. An error from fn is reported to the
// model as the result. parameters is the arguments' JSON Schema (nil for
// none). A backend tool wins over a frontend tool of the same name.
func WithTool(name, description string, parameters json.RawMessage, fn func(ctx context.Context, arguments json.RawMessage) (string, error)) Option {
	return func(c *config) {
		c.tools = append(c.tools, turn.Tool{Name: name, Description: description, Parameters: parameters, Func: fn})
	}
}

// WithChatParams adjusts every Chat Completions request after the adapter
// built it: temperature, reasoning effort, max tokens, any provider parameter.
func WithChatParams(f func(*oai.ChatCompletionNewParams)) Option {
	return func(c *config) { c.chatParams = append(c.chatParams, f) }
}

// WithResponsesParams adjusts every Responses request after the adapter
// built it.
func WithResponsesParams(f func(*responses.ResponseNewParams)) Option {
	return func(c *config) { c.respParams = append(c.respParams, f) }
}

// WithRequestOptions passes SDK request options to every request.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.reqOpts = append(c.reqOpts, opts...) }
}

// New returns an agent that streams from client.
func New(client oai.Client, opts ...Option) *Agent {
	cfg := config{model: DefaultModel}
	for _, o := range opts {
		o(&cfg)
	}
	return &Agent{client: client, cfg: cfg}
}

// Run serves one run; it makes *Agent a stateless server.Agent (the run's
// state still reaches the model with [WithState]). An agent with typed state
// calls [Agent.Reply] from its own Run instead.
func (a *Agent) Run(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
	return a.Reply(ctx, &rc.Emitter, rc.Input())
}

// Reply answers the run whose input is in, emitting through em, and returns
// the run's outcome: the model's part of any agent.
func (a *Agent) Reply(ctx context.Context, em *server.Emitter, in *agui.RunAgentInput) (server.Outcome, error) {
	loop := turn.Loop{Backend: map[string]turn.Tool{}, Frontend: map[string]bool{}, MaxSteps: a.cfg.maxSteps}
	for _, t := range a.cfg.tools {
		loop.Backend[t.Name] = t
	}
	var frontend []agui.Tool
	for _, t := range in.Tools {
		if _, ok := loop.Backend[t.Name]; !ok {
			loop.Frontend[t.Name] = true
			frontend = append(frontend, t)
		}
	}
	var state json.RawMessage
	if a.cfg.state {
		state = in.State
	}
	instructions := turn.Instructions(a.cfg.systemPrompt, in.Context, state)

	var conv turn.Conversation
	var err error
	switch a.cfg.api {
	case Responses:
		conv, err = a.newResponses(in.Messages, instructions, frontend)
	default:
		conv, err = a.newChat(in.Messages, instructions, frontend)
	}
	if err != nil {
		return server.Outcome{}, server.AgentError(err)
	}
	provider := "openai"
	return loop.Run(ctx, em, conv, agui.TokenUsage{Provider: &provider})
}

// toolList is every tool declared to the model: the backend ones, then the
// run's frontend ones.
func (a *Agent) toolList(frontend []agui.Tool) []agui.Tool {
	list := make([]agui.Tool, 0, len(a.cfg.tools)+len(frontend))
	for _, t := range a.cfg.tools {
		list = append(list, agui.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return append(list, frontend...)
}

// providerError turns what the SDK returned for a failed request into the
// run's error. A request that failed because the run was cancelled reports
// the cancellation (the run ends CANCELLED, and errors.Is reaches the cause);
// anything else becomes AGENT_ERROR with OpenAI's own words.
func providerError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ctx.Err(), context.Cause(ctx))
	}
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		msg := fmt.Sprintf("OpenAI returned HTTP %d", apiErr.StatusCode)
		if apiErr.Message != "" {
			msg += ": " + apiErr.Message
		}
		return server.AgentError(&turn.Failure{Text: msg, Errs: []error{err}})
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		var body struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(streamErr.Event.Data, &body) == nil && body.Error.Message != "" {
			return server.AgentError(&turn.Failure{Text: "OpenAI failed mid-stream: " + body.Error.Message, Errs: []error{ErrStream, err}})
		}
	}
	return server.AgentError(&turn.Failure{Text: "OpenAI request failed: " + err.Error(), Errs: []error{err}})
}

// ErrStream is in the chain of a run's error (errors.Is) when OpenAI
// reported a failure inside the stream rather than refusing the request.
var ErrStream = errors.New("OpenAI reported an error inside the stream")
