package genkit

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/turn"
	"github.com/firebase/genkit/go/ai"
)

// run is one AG-UI run's side of a Generate call: the Genkit messages and
// tools built from its input, and the middleware that streams each model
// request of Genkit's loop into events.
type run struct {
	em        *server.Emitter
	cfg       *config
	modelName string // Genkit's name of the model, "" when the flow chooses

	messages []*ai.Message
	frontend []agui.Tool // the run's tools, before backend tools of the same name are dropped
	resume   []ai.GenerateOption

	// mu guards what the middleware and finish share: Genkit runs the model
	// and the tools of one Generate call one after another, but a flow may
	// call Generate from goroutines of its own.
	mu       sync.Mutex
	isFront  map[string]bool // frontend tool names actually declared
	reported map[string]bool // tool call ids whose result the client has
	usage    agui.TokenUsage
	counted  bool
}

func newRun(ctx context.Context, em *server.Emitter, in *agui.RunAgentInput, cfg *config) (*run, error) {
	r := &run{em: em, cfg: cfg, frontend: in.Tools, isFront: map[string]bool{}, reported: map[string]bool{}}
	var state json.RawMessage
	if cfg.state {
		state = in.State
	}
	if s := turn.Instructions(cfg.systemPrompt, in.Context, state); s != "" {
		r.messages = append(r.messages, ai.NewSystemTextMessage(s))
	}
	h, err := messages(in.Messages)
	if err != nil {
		return nil, server.AgentError(err)
	}
	r.messages = append(r.messages, h.msgs...)
	for id := range h.results {
		r.reported[id] = true
	}
	if len(in.Resume) > 0 {
		opts, err := r.resumeOptions(ctx, in.Resume)
		if err != nil {
			return nil, server.AgentError(err)
		}
		r.resume = opts
	}
	return r, nil
}

// options are the Generate options of the run: its messages, the backend
// tools then the run's frontend tools, the streaming middleware and the
// resume directives.
func (r *run) options(backend []ai.ToolRef) []ai.GenerateOption {
	names := map[string]bool{}
	tools := append([]ai.ToolRef(nil), backend...)
	for _, t := range backend {
		names[t.Name()] = true
	}
	r.mu.Lock()
	for _, t := range r.frontend {
		if names[t.Name] {
			continue
		}
		names[t.Name] = true
		r.isFront[t.Name] = true
		tools = append(tools, frontendTool(t))
	}
	r.mu.Unlock()
	opts := []ai.GenerateOption{ai.WithMessages(r.messages...), ai.WithMiddleware(r.middleware)}
	if len(tools) > 0 {
		opts = append(opts, ai.WithTools(tools...))
	}
	return append(opts, r.resume...)
}

// frontendTool is a tool the run declared, as a dynamic Genkit tool: the
// client executes it, so calling it interrupts Genkit's loop.
func frontendTool(t agui.Tool) ai.Tool {
	schema, err := turn.Schema(t.Name, t.Parameters)
	if err != nil {
		schema = map[string]any{"type": "object"}
	}
	return ai.NewTool(t.Name, t.Description, func(tc *ai.ToolContext, _ any) (any, error) {
		return nil, tc.Interrupt(&ai.InterruptOptions{Metadata: map[string]any{"frontend": true}})
	}, ai.WithInputSchema(schema))
}

// middleware wraps each model request of Genkit's loop: the results of the
// tool round before it go out first, then the reply streams as one
// assistant message, its tool calls once the reply is complete.
func (r *run) middleware(next ai.ModelFunc) ai.ModelFunc {
	return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := r.results(req.Messages); err != nil {
			return nil, err
		}
		t := turn.New(r.em)
		streamed := false
		resp, err := next(ctx, req, func(ctx context.Context, c *ai.ModelResponseChunk) error {
			for _, p := range c.Content {
				if err := streamPart(t, p, &streamed); err != nil {
					return err
				}
			}
			if cb != nil {
				return cb(ctx, c)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		r.addUsage(resp)
		if resp.Message == nil {
			_, _, err := t.Close()
			return resp, err
		}
		for _, p := range resp.Message.Content {
			switch {
			case p.IsToolRequest():
				if p.ToolRequest.Ref == "" {
					p.ToolRequest.Ref = "call_" + agui.NewID()
				}
				id := p.ToolRequest.Ref
				if err := t.StartTool(id, id, p.ToolRequest.Name); err != nil {
					return nil, err
				}
				if err := t.ToolArgs(id, arguments(p.ToolRequest.Input)); err != nil {
					return nil, err
				}
				if err := t.EndTool(id); err != nil {
					return nil, err
				}
			case streamed:
			case p.IsReasoning(), p.IsText():
				// A model that did not stream (or a plugin that streams
				// nothing): the reply's text goes out whole.
				var none bool
				if err := streamPart(t, p, &none); err != nil {
					return nil, err
				}
			}
		}
		_, _, err = t.Close()
		return resp, err
	}
}

// streamPart emits one streamed part of a reply: text, reasoning (with its
// signature as an encrypted value). Tool request fragments are left for the
// complete reply.
func streamPart(t *turn.Turn, p *ai.Part, streamed *bool) error {
	switch {
	case p.IsReasoning():
		*streamed = true
		if err := t.Reasoning("", p.Text); err != nil {
			return err
		}
		if sig := signature(p); sig != "" {
			return t.ReasoningEncrypted("", sig)
		}
	case p.IsText():
		*streamed = *streamed || p.Text != ""
		return t.Text(p.Text)
	}
	return nil
}

// signature is the base64 of a reasoning part's signature, "" for none.
func signature(p *ai.Part) string {
	switch s := p.Metadata["signature"].(type) {
	case []byte:
		if len(s) > 0 {
			return base64.StdEncoding.EncodeToString(s)
		}
	case string:
		return s
	}
	return ""
}

// arguments is a tool request's input as the JSON text of its arguments.
func arguments(input any) string {
	switch v := input.(type) {
	case nil:
		return "{}"
	case string:
		if json.Valid([]byte(v)) {
			return v
		}
	}
	b, err := json.Marshal(input)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// results emits TOOL_CALL_RESULT for each tool response in msgs the client
// has not seen: the round Genkit just ran, or the calls a resume restarted.
func (r *run) results(msgs []*ai.Message) error {
	for _, m := range msgs {
		if m.Role != ai.RoleTool {
			continue
		}
		for _, p := range m.Content {
			if !p.IsToolResponse() || r.reported[p.ToolResponse.Ref] {
				continue
			}
			if err := r.result(p.ToolResponse.Ref, p.ToolResponse.Output); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *run) result(id string, output any) error {
	r.reported[id] = true
	return r.em.Emit(agui.NewToolCallResult(agui.NewID(), id, agui.TextContent(toolOutput(output))))
}

func (r *run) addUsage(resp *ai.ModelResponse) {
	u := agui.TokenUsage{}
	count := func(n int) *int64 {
		if n == 0 {
			return nil
		}
		return turn.Count(int64(n))
	}
	if g := resp.Usage; g != nil {
		u.InputTokens, u.OutputTokens, u.TotalTokens = count(g.InputTokens), count(g.OutputTokens), count(g.TotalTokens)
		u.ReasoningTokens, u.CachedInputTokens = count(g.ThoughtsTokens), count(g.CachedContentTokens)
	}
	if c, ok := resp.Custom.(map[string]any); ok {
		if m, ok := c["model"].(string); ok && m != "" {
			u.Model = &m
		}
	}
	if u.Model == nil && r.modelName != "" {
		_, m, _ := strings.Cut(r.modelName, "/")
		u.Model = &m
	}
	if u.InputTokens != nil || u.OutputTokens != nil || u.TotalTokens != nil {
		r.counted = true
	}
	turn.AddUsage(&r.usage, u)
}

// finish turns what Generate returned into the run's outcome: the answer, a
// success with frontend calls pending, or the interrupt outcome.
func (r *run) finish(ctx context.Context, resp *ai.ModelResponse, err error) (server.Outcome, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.usage.Provider == nil {
		provider := "genkit"
		if p, _, ok := strings.Cut(r.modelName, "/"); ok {
			provider = p
		}
		r.usage.Provider = &provider
	}
	fail := func(err error) (server.Outcome, error) {
		if !r.counted {
			return server.Outcome{}, err
		}
		return server.Outcome{}, server.ErrorWithUsage(err, r.usage)
	}
	if err != nil {
		return fail(genkitError(ctx, err))
	}
	if resp == nil {
		return fail(server.AgentError(fmt.Errorf("%w: no response", ErrGenerate)))
	}
	var pending []string
	var interrupts []agui.Interrupt
	if resp.FinishReason == ai.FinishReasonInterrupted && resp.Message != nil {
		for _, p := range resp.Message.Content {
			if !p.IsToolRequest() {
				continue
			}
			id := p.ToolRequest.Ref
			if out, ok := p.Metadata["pendingOutput"]; ok && !r.reported[id] {
				// A backend call of the same reply finished before the
				// interrupt: its result is the client's to send back.
				if err := r.result(id, out); err != nil {
					return fail(err)
				}
				continue
			}
			if !p.IsInterrupt() {
				continue
			}
			if r.isFront[p.ToolRequest.Name] {
				pending = append(pending, id)
				continue
			}
			interrupts = append(interrupts, interrupt(p))
		}
	}
	var out server.Outcome
	if len(interrupts) > 0 {
		out = server.Interrupted(interrupts...)
	} else {
		out = server.Success(pending...)
	}
	if r.counted {
		out = out.WithUsage(r.usage)
	}
	return out, nil
}

// interrupt is the AG-UI interrupt of a tool call a Genkit tool
// interrupted. Its id is the call's, so that a later run's resume entry
// names the call it answers; the tool's interrupt metadata travels as the
// interrupt's metadata, and its "reason" and "message" members, when they
// are strings, as the interrupt's reason and message.
func interrupt(p *ai.Part) agui.Interrupt {
	id := p.ToolRequest.Ref
	in := agui.Interrupt{ID: id, Reason: "tool_interrupt", ToolCallID: &id}
	if md, ok := p.Metadata["interrupt"].(map[string]any); ok {
		if s, ok := md["reason"].(string); ok && s != "" {
			in.Reason = s
		}
		if s, ok := md["message"].(string); ok && s != "" {
			in.Message = &s
		}
		if b, err := json.Marshal(md); err == nil {
			in.Metadata = b
		}
	}
	return in
}
