package eino

import (
	"context"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/turn"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// Graph is a compiled Eino compose graph (or chain, or workflow) served as
// an AG-UI agent: its input is the run's conversation, as [Messages] maps it
// (the context entries in a leading system message), and the message it
// streams out is the reply: one assistant text message with its reasoning
// and tool calls. Tool calls in the reply are calls the graph did not run,
// so the run ends with them pending for the client. It is safe for
// concurrent runs.
//
// Interrupts of a graph are not mapped: a graph that interrupts ends the run
// with RUN_ERROR. Serve an ADK agent with [New] for interrupts and resume.
type Graph struct {
	r     compose.Runnable[[]*schema.Message, *schema.Message]
	opts  []compose.Option
	state bool
}

// NewGraph serves r, streamed with opts on every run.
func NewGraph(r compose.Runnable[[]*schema.Message, *schema.Message], opts ...compose.Option) *Graph {
	return &Graph{r: r, opts: opts}
}

// WithGraphState returns g forwarding the run's state to the graph, as
// [WithState] does for an agent.
func (g *Graph) WithGraphState() *Graph { c := *g; c.state = true; return &c }

// Run serves one run.
func (g *Graph) Run(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
	in := rc.Input()
	msgs, err := Messages(in.Messages)
	if err != nil {
		return server.Outcome{}, server.AgentError(err)
	}
	state := in.State
	if !g.state {
		state = nil
	}
	if s := turn.Instructions("", in.Context, state); s != "" {
		msgs = append([]*schema.Message{schema.SystemMessage(s)}, msgs...)
	}
	stream, err := g.r.Stream(ctx, msgs, g.opts...)
	if err != nil {
		return server.Outcome{}, modelError(ctx, err)
	}
	r := &run{a: &Agent{}, root: &rc.Emitter, calls: &frontendCalls{ids: map[string]bool{}}, parents: map[string]string{}}
	if _, err := r.output(ctx, &adk.MessageVariant{IsStreaming: true, MessageStream: stream, Role: schema.Assistant}); err != nil {
		if turn.Counted(r.usage) {
			return server.Outcome{}, server.ErrorWithUsage(err, r.usage)
		}
		return server.Outcome{}, err
	}
	return turn.WithUsage(server.Success(r.order...), r.usage), nil
}
