package genkit

import (
	"context"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
)

// Input is what a [FlowAgent] passes its flow: the run's conversation as
// Genkit messages (the instructions first, as a system message), and the
// Generate options that serve the run, which the flow passes on:
//
//	flow := gk.DefineStreamingFlow(g, "chat",
//		func(ctx context.Context, in *genkit.Input, cb core.StreamCallback[*ai.ModelResponseChunk]) (*ai.ModelResponse, error) {
//			opts := append(in.Options(weather), ai.WithModelName("openai/gpt-4.1-mini"), ai.WithStreaming(cb))
//			return gk.Generate(ctx, g, opts...)
//		})
//
// A flow that changes the conversation passes ai.WithMessages itself and
// the rest of [Input.Options] after the first.
type Input struct {
	Messages []*ai.Message `json:"messages"`

	r *run
}

// Options returns the Generate options of the run: ai.WithMessages with
// in.Messages, ai.WithTools with tools (the flow's backend tools) and the
// run's frontend tools, the middleware that streams the run's events, and
// the resume directives of a run that resumes interrupts. The flow adds its
// model, config and streaming callback; it must not set the tools or the
// middleware again (Genkit refuses an option set twice).
func (in *Input) Options(tools ...ai.ToolRef) []ai.GenerateOption {
	in.r.messages = in.Messages
	return in.r.options(tools)
}

// FlowAgent is a Genkit streaming flow served as an AG-UI agent. The flow
// takes an [*Input] and returns the *ai.ModelResponse of the Generate call it
// made with [Input.Options]: the reply's text, tool calls and tool results
// stream through the middleware those options install, so whatever the flow
// streams itself (of type S) is not read. It is safe for concurrent runs.
type FlowAgent[S any] struct {
	flow *core.Flow[*Input, *ai.ModelResponse, S]
	cfg  config
}

// NewFlow returns an agent that answers each run by running flow. Of the
// options, [WithSystemPrompt], [WithState] and [WithResume] apply; the flow
// chooses the model, the tools and the bounds.
func NewFlow[S any](flow *core.Flow[*Input, *ai.ModelResponse, S], opts ...Option) *FlowAgent[S] {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	return &FlowAgent[S]{flow: flow, cfg: cfg}
}

// Run serves one run; it makes *FlowAgent a stateless server.Agent.
func (a *FlowAgent[S]) Run(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
	return a.Reply(ctx, &rc.Emitter, rc.Input())
}

// Reply answers the run whose input is in, emitting through em.
func (a *FlowAgent[S]) Reply(ctx context.Context, em *server.Emitter, in *agui.RunAgentInput) (server.Outcome, error) {
	r, err := newRun(ctx, em, in, &a.cfg)
	if err != nil {
		return server.Outcome{}, err
	}
	var resp *ai.ModelResponse
	for v, err := range a.flow.Stream(ctx, &Input{Messages: r.messages, r: r}) {
		if err != nil {
			return r.finish(ctx, nil, err)
		}
		if v.Done {
			resp = v.Output
		}
	}
	return r.finish(ctx, resp, nil)
}
