// Package anthropic serves an Anthropic model as an AG-UI agent, on the
// official Go SDK (github.com/anthropics/anthropic-sdk-go/v2) and its
// streaming Messages API.
//
// The run's messages, tools, context entries and (with [WithState]) state
// become the request; the streamed reply becomes one assistant text message,
// TOOL_CALL_START/ARGS/END with Anthropic's tool_use ids, and reasoning events
// for extended thinking (the block's signature, or a redacted block's data,
// as REASONING_ENCRYPTED_VALUE, so the next run can send the thinking back).
// Tools the run declared are the client's (frontend tools): a reply that
// calls one ends the run as a success with the call pending. Tools
// registered with [WithTool] run here, in a loop, until the model answers.
//
// Extended thinking is the model's to switch on:
//
//	anthropic.WithParams(func(p *ant.MessageNewParams) {
//		p.Thinking = ant.ThinkingConfigParamOfEnabled(2048)
//	})
//
// The package has the SDK's name; import the SDK under another one:
//
//	import (
//		ant "github.com/anthropics/anthropic-sdk-go/v2"
//		"github.com/agui-go/sdk/adapters/anthropic"
//	)
//
//	agent := anthropic.New(ant.NewClient(), anthropic.WithModel("claude-sonnet-4-5"))
//	http.Handle("/agent", server.NewHandler(agent))
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/turn"
	ant "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// DefaultModel is the model used without [WithModel].
const DefaultModel = "claude-sonnet-4-5"

// DefaultMaxTokens is max_tokens without [WithMaxTokens]; the Messages API
// requires one.
const DefaultMaxTokens = 4096

// RedactedPrefix starts the encrypted value of a redacted thinking block, to
// tell it from the signature of a visible one when the client sends it back.
const RedactedPrefix = "anthropic-redacted-thinking:"

// Agent is an Anthropic model served as an AG-UI agent. It is safe for
// concurrent runs.
type Agent struct {
	client ant.Client
	cfg    config
}

type config struct {
	model        string
	maxTokens    int64
	systemPrompt string
	state        bool
	maxSteps     int
	tools        []turn.Tool
	params       []func(*ant.MessageNewParams)
	reqOpts      []option.RequestOption
}

// Option configures an [Agent].
type Option func(*config)

// WithModel names the model ([DefaultModel] otherwise).
func WithModel(model string) Option { return func(c *config) { c.model = model } }

// WithMaxTokens sets max_tokens of every request ([DefaultMaxTokens]
// otherwise).
func WithMaxTokens(n int64) Option { return func(c *config) { c.maxTokens = n } }

// WithSystemPrompt sets the system prompt; the run's context entries are
// appended to it.
func WithSystemPrompt(prompt string) Option { return func(c *config) { c.systemPrompt = prompt } }

// WithState forwards the run's shared state (RunAgentInput.state) to the
// model in its system prompt, so it can answer about it.
func WithState() Option { return func(c *config) { c.state = true } }

// WithMaxSteps bounds the model requests of one run (10 by default): a model
// that keeps calling backend tools ends the run with an error instead of
// looping for ever.
func WithMaxSteps(n int) Option { return func(c *config) { c.maxSteps = n } }

// WithTool registers a backend tool: fn runs on the server when the model
// calls name, with the arguments as JSON; its result goes back to the model
// and to the client as TOOL_CALL_RESULT. An error from fn is reported to the
// model as an error result. parameters is the arguments' JSON Schema (nil for
// none). A backend tool wins over a frontend tool of the same name.
func WithTool(name, description string, parameters json.RawMessage, fn func(ctx context.Context, arguments json.RawMessage) (string, error)) Option {
	return func(c *config) {
		c.tools = append(c.tools, turn.Tool{Name: name, Description: description, Parameters: parameters, Func: fn})
	}
}

// WithParams adjusts every request after the adapter built it: extended
// thinking, temperature, stop sequences, any provider parameter.
func WithParams(f func(*ant.MessageNewParams)) Option {
	return func(c *config) { c.params = append(c.params, f) }
}

// WithRequestOptions passes SDK request options to every request.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.reqOpts = append(c.reqOpts, opts...) }
}

// New returns an agent that streams from client.
func New(client ant.Client, opts ...Option) *Agent {
	cfg := config{model: DefaultModel, maxTokens: DefaultMaxTokens}
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
	tools := make([]agui.Tool, 0, len(a.cfg.tools)+len(in.Tools))
	for _, t := range a.cfg.tools {
		tools = append(tools, agui.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	for _, t := range in.Tools {
		if _, ok := loop.Backend[t.Name]; !ok {
			loop.Frontend[t.Name] = true
			tools = append(tools, t)
		}
	}
	var state json.RawMessage
	if a.cfg.state {
		state = in.State
	}
	conv, err := a.newConversation(in.Messages, turn.Instructions(a.cfg.systemPrompt, in.Context, state), tools)
	if err != nil {
		return server.Outcome{}, server.AgentError(err)
	}
	provider := "anthropic"
	return loop.Run(ctx, em, conv, agui.TokenUsage{Provider: &provider})
}

// ErrStream is in the chain of a run's error (errors.Is) when Anthropic
// reported a failure inside the stream (an error event) rather than refusing
// the request.
var ErrStream = errors.New("Anthropic reported an error inside the stream")

// providerError turns what the SDK returned for a failed request into the
// run's error. A request that failed because the run was cancelled reports
// the cancellation (the run ends CANCELLED, and errors.Is reaches the cause);
// anything else becomes AGENT_ERROR with Anthropic's own words.
func providerError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ctx.Err(), context.Cause(ctx))
	}
	var apiErr *ant.Error
	if errors.As(err, &apiErr) {
		var body struct {
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(apiErr.RawJSON()), &body)
		msg := apiErr.Message
		if msg == "" {
			msg = body.Error.Message
		}
		if body.Error.Type != "" {
			msg += " (" + body.Error.Type + ")"
		}
		if apiErr.StatusCode == 0 || apiErr.StatusCode == 200 {
			return server.AgentError(&turn.Failure{Text: "Anthropic failed mid-stream: " + msg, Errs: []error{ErrStream, err}})
		}
		return server.AgentError(&turn.Failure{Text: fmt.Sprintf("Anthropic returned HTTP %d: %s", apiErr.StatusCode, msg), Errs: []error{err}})
	}
	return server.AgentError(&turn.Failure{Text: "Anthropic request failed: " + err.Error(), Errs: []error{err}})
}
