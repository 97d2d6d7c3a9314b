// Package genkit serves Genkit (github.com/firebase/genkit/go) as an AG-UI
// agent: a Generate call with tools ([New]), or a streaming flow that makes
// one ([NewFlow]).
//
// The run's messages become Genkit messages, its context entries (and, with
// [WithState], its state) a system message, and the tools the run declared
// (frontend tools, which the client executes) dynamic Genkit tools that
// interrupt. Genkit runs the tool loop: the tools given with [WithTools] (or
// to the flow's Generate call) run in the server, their results reach the
// client as TOOL_CALL_RESULT. A reply that calls a frontend tool ends the run
// as a success with the call pending; a tool that interrupts
// (ai.ToolContext.Interrupt) ends it with the interrupt outcome, one
// interrupt per interrupted call, and the next run's RunAgentInput.resume
// resumes it through Genkit's own mechanism (ai.WithToolRestarts and
// ai.WithToolResponses; see [WithResume]).
//
// Each model request of Genkit's loop is one assistant message on the
// stream: its text and reasoning as they stream, then its tool calls, with
// Genkit's tool request refs as toolCallIds. Tool calls are sent when the
// model's reply is complete, from the reply Genkit assembled, because the
// chunks some model plugins stream (compat_oai's) carry argument fragments
// without saying which of several parallel calls they belong to.
//
// The package has Genkit's name; import Genkit's under another one:
//
//	import (
//		gk "github.com/firebase/genkit/go/genkit"
//		"github.com/agui-go/sdk/adapters/genkit"
//	)
//
//	g := gk.Init(ctx, gk.WithPlugins(&openai.OpenAI{}))
//	agent := genkit.New(g, genkit.WithModelName("openai/gpt-4.1-mini"), genkit.WithTools(weather))
//	http.Handle("/agent", server.NewHandler(agent))
package genkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/turn"
	"github.com/firebase/genkit/go/ai"
	gk "github.com/firebase/genkit/go/genkit"
)

// Agent is a Genkit Generate call served as an AG-UI agent. It is safe for
// concurrent runs.
type Agent struct {
	g   *gk.Genkit
	cfg config
}

type config struct {
	model        ai.ModelArg
	systemPrompt string
	state        bool
	tools        []ai.ToolRef
	maxTurns     int
	genOpts      []ai.GenerateOption
	resume       ResumeFunc
}

// Option configures an [Agent] or a [FlowAgent].
type Option func(*config)

// WithModel names the model Generate asks (Genkit's default model,
// genkit.WithDefaultModel, otherwise). Not used by a [FlowAgent], whose flow
// chooses.
func WithModel(model ai.ModelArg) Option { return func(c *config) { c.model = model } }

// WithModelName names the model by its Genkit name, "provider/model".
func WithModelName(name string) Option {
	return func(c *config) { c.model = ai.NewModelRef(name, nil) }
}

// WithSystemPrompt sets instructions sent before the conversation; the run's
// context entries are appended to them.
func WithSystemPrompt(prompt string) Option { return func(c *config) { c.systemPrompt = prompt } }

// WithState forwards the run's shared state (RunAgentInput.state) to the
// model as part of its instructions.
func WithState() Option { return func(c *config) { c.state = true } }

// WithTools gives Generate backend tools (genkit.DefineTool, ai.NewTool):
// Genkit runs them in the server when the model calls them. A backend tool
// wins over a frontend tool of the same name. Not used by a [FlowAgent]:
// its flow passes its tools to [Input.Options].
func WithTools(tools ...ai.ToolRef) Option {
	return func(c *config) { c.tools = append(c.tools, tools...) }
}

// WithMaxTurns bounds the tool rounds of one run (Genkit's default, 5,
// otherwise). Not used by a [FlowAgent].
func WithMaxTurns(n int) Option { return func(c *config) { c.maxTurns = n } }

// WithGenerateOptions adds Genkit options to every Generate call: the model's
// config (ai.WithConfig), a tool choice, documents. The adapter sets the
// messages, tools, middleware, streaming callback and resume directives
// itself; options that set them again make Generate fail. Not used by a
// [FlowAgent].
func WithGenerateOptions(opts ...ai.GenerateOption) Option {
	return func(c *config) { c.genOpts = append(c.genOpts, opts...) }
}

// ResumeFunc answers one interrupted tool call with the client's resume
// entry. call is the tool request part of the interrupted call, as Genkit
// left it; the result is either a tool request part, which restarts the
// tool (tool.RestartWith, or ai.Tool.Restart), or a tool response part,
// which answers the call without running the tool (tool.RespondWith).
type ResumeFunc func(ctx context.Context, call *ai.Part, entry agui.ResumeEntry) (*ai.Part, error)

// WithResume sets how a resume entry resumes its interrupted call. Without
// it, the entry restarts the tool (ai.WithToolRestarts): a resolved entry
// with its payload as ai.ToolContext.Resumed (an object payload as it is,
// any other under the key "payload"; true without one), a cancelled entry
// with Resumed {"cancelled":true} (and the payload under "payload"), which
// a tool that interrupts checks before it acts.
func WithResume(f ResumeFunc) Option { return func(c *config) { c.resume = f } }

// New returns an agent that answers each run with genkit.Generate on g.
func New(g *gk.Genkit, opts ...Option) *Agent {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	return &Agent{g: g, cfg: cfg}
}

// Run serves one run; it makes *Agent a stateless server.Agent (the run's
// state still reaches the model with [WithState]). An agent with typed state
// calls [Agent.Reply] from its own Run instead.
func (a *Agent) Run(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
	return a.Reply(ctx, &rc.Emitter, rc.Input())
}

// Reply answers the run whose input is in, emitting through em, and returns
// the run's outcome.
func (a *Agent) Reply(ctx context.Context, em *server.Emitter, in *agui.RunAgentInput) (server.Outcome, error) {
	r, err := newRun(ctx, em, in, &a.cfg)
	if err != nil {
		return server.Outcome{}, err
	}
	if a.cfg.model != nil {
		r.modelName = a.cfg.model.Name()
	}
	opts := r.options(a.cfg.tools)
	if a.cfg.model != nil {
		opts = append(opts, ai.WithModel(a.cfg.model))
	}
	if a.cfg.maxTurns > 0 {
		opts = append(opts, ai.WithMaxTurns(a.cfg.maxTurns))
	}
	opts = append(opts, a.cfg.genOpts...)
	resp, err := gk.Generate(ctx, a.g, opts...)
	return r.finish(ctx, resp, err)
}

// toolOutput is a tool's output as the client reads it: a string as it is,
// anything else as JSON.
func toolOutput(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// genkitError turns what Generate returned for a failed run into the run's
// error. A run cancelled underneath reports the cancellation (it ends
// CANCELLED, and errors.Is reaches the cause); anything else becomes
// AGENT_ERROR with Genkit's and the provider's words.
func genkitError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ctx.Err(), context.Cause(ctx))
	}
	var se *server.Error
	if errors.As(err, &se) {
		return se // the stream itself failed (an emit was refused)
	}
	return server.AgentError(&turn.Failure{Text: "Genkit: " + describe(err), Errs: []error{ErrGenerate, err}})
}

// describe is the text of a failed Generate call, with the JSON error body a
// model plugin quotes (compat_oai quotes the provider's) replaced by the
// message in it: "stream error: received error while streaming: The server
// had an error…" rather than the whole object.
func describe(err error) string {
	s := strings.TrimSpace(err.Error())
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return s
	}
	var body struct {
		Message string `json:"message"`
		Error   *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	d := json.NewDecoder(strings.NewReader(s[i:]))
	if d.Decode(&body) != nil {
		return s
	}
	msg := body.Message
	if body.Error != nil && body.Error.Message != "" {
		msg = body.Error.Message
	}
	if msg == "" {
		return s
	}
	head := strings.TrimSuffix(strings.TrimSpace(s[:i]), ":")
	if head != "" {
		head += ": "
	}
	return head + msg + s[i+int(d.InputOffset()):]
}

// ErrGenerate is in the chain of a run's error (errors.Is) when Genkit's
// Generate call (or the flow) failed: the model request, a tool, the tool
// loop's bound.
var ErrGenerate = errors.New("genkit: generate failed")
