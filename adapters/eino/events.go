package eino

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/turn"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
)

// run turns the events of one Eino run into AG-UI events.
type run struct {
	a     *Agent
	root  *server.Emitter
	calls *frontendCalls
	usage agui.TokenUsage

	// path is the run path of the agent now running (path[0] is the root
	// agent); scopes[i] is the open sub-agent invocation of path[i+1].
	path   []string
	scopes []*server.Subagent
	// parents maps a tool call id to the assistant message that holds it;
	// order lists the calls as they started.
	parents map[string]string
	order   []string
	// known holds the tool calls of the run's history: a resumed tool's
	// result answers one of them.
	known map[string]bool
	// transfer is the transfer_to_agent call the next sub-agent starts from.
	transfer   string
	pending    []string
	interrupts []agui.Interrupt
}

// emitter is where the current agent's events go: its sub-agent invocation,
// or the run itself for the root agent.
func (r *run) emitter() *server.Emitter {
	if n := len(r.scopes); n > 0 {
		return &r.scopes[n-1].Emitter
	}
	return r.root
}

// events reads the run's events to the end and returns its outcome.
func (r *run) events(ctx context.Context, events *adk.AsyncIterator[*adk.AgentEvent]) (server.Outcome, error) {
	r.parents = map[string]string{}
	for {
		ev, ok := events.Next()
		if !ok {
			break
		}
		if err := r.event(ctx, ev); err != nil {
			if mv := message(ev); mv != nil && mv.MessageStream != nil {
				mv.MessageStream.Close()
			}
			return server.Outcome{}, err
		}
	}
	if len(r.interrupts) > 0 {
		ids := make([]string, len(r.interrupts))
		for i, in := range r.interrupts {
			ids[i] = in.ID
		}
		for i := len(r.scopes) - 1; i >= 0; i-- {
			if err := r.scopes[i].Suspend(ids...); err != nil {
				return server.Outcome{}, err
			}
		}
		return turn.WithUsage(server.Interrupted(r.interrupts...), r.usage), nil
	}
	if err := r.enterPath(r.path[:min(len(r.path), 1)]); err != nil {
		return server.Outcome{}, err
	}
	return turn.WithUsage(server.Success(r.pending...), r.usage), nil
}

func message(ev *adk.AgentEvent) *adk.MessageVariant {
	if ev.Output == nil {
		return nil
	}
	return ev.Output.MessageOutput
}

// event emits one Eino event.
func (r *run) event(ctx context.Context, ev *adk.AgentEvent) error {
	if len(ev.RunPath) > 0 {
		path := make([]string, len(ev.RunPath))
		for i, s := range ev.RunPath {
			path[i] = s.String()
		}
		if err := r.enterPath(path); err != nil {
			return err
		}
	}
	if ev.Err != nil {
		return modelError(ctx, ev.Err)
	}
	var toolCallID string
	if mv := message(ev); mv != nil {
		var err error
		if toolCallID, err = r.output(ctx, mv); err != nil {
			return err
		}
	}
	if ev.Action == nil {
		return nil
	}
	if ev.Action.TransferToAgent != nil {
		r.transfer = toolCallID
	}
	if in := ev.Action.Interrupted; in != nil {
		for _, ic := range in.InterruptContexts {
			if !ic.IsRootCause {
				continue
			}
			i := r.a.cfg.interrupt(ic)
			if n := len(r.scopes); n > 0 && i.SubagentRunID == nil {
				id := r.scopes[n-1].ID()
				i.SubagentRunID = &id
			}
			r.interrupts = append(r.interrupts, i)
		}
	}
	return nil
}

// enterPath makes path the current run path: the sub-agent invocations
// beyond the part it shares with the current one finish, and one starts for
// each agent it adds, the first parented to the transfer_to_agent call that
// led to it.
func (r *run) enterPath(path []string) error {
	if len(r.path) == 0 {
		r.path = path[:1]
	}
	keep := 1
	for keep < len(r.path) && keep < len(path) && r.path[keep] == path[keep] {
		keep++
	}
	for len(r.path) > keep {
		s := r.scopes[len(r.scopes)-1]
		r.scopes, r.path = r.scopes[:len(r.scopes)-1], r.path[:len(r.path)-1]
		if err := s.Finish(nil); err != nil {
			return err
		}
	}
	for _, name := range path[len(r.path):] {
		var opts []server.SubagentOption
		if r.transfer != "" {
			opts = append(opts, server.WithParentToolCall(r.transfer))
			if m, ok := r.parents[r.transfer]; ok {
				opts = append(opts, server.WithParentMessage(m))
			}
			r.transfer = ""
		}
		s, err := r.emitter().StartSubagent(name, opts...)
		if err != nil {
			return err
		}
		r.scopes, r.path = append(r.scopes, s), append(r.path, name)
	}
	return nil
}

// output emits a message the agent produced: a model reply, streamed, or a
// tool's result. It returns the tool call id of a result.
func (r *run) output(ctx context.Context, mv *adk.MessageVariant) (string, error) {
	if mv.Role == schema.Tool {
		msg, err := mv.GetMessage()
		if err != nil {
			return "", modelError(ctx, err)
		}
		if r.calls.has(msg.ToolCallID) {
			r.pending = append(r.pending, msg.ToolCallID)
			return msg.ToolCallID, nil
		}
		if _, ours := r.parents[msg.ToolCallID]; !ours && !r.known[msg.ToolCallID] {
			// A call resumed from a checkpoint that the client's history
			// does not hold: the model reads the result, the client, which
			// never saw the call, gets none.
			return msg.ToolCallID, nil
		}
		return msg.ToolCallID, r.emitter().Emit(agui.NewToolCallResult(agui.NewID(), msg.ToolCallID, agui.TextContent(msg.Content)))
	}
	t := turn.New(r.emitter())
	var usage *schema.TokenUsage
	if !mv.IsStreaming {
		if mv.Message != nil {
			if err := r.chunk(t, mv.Message, &usage); err != nil {
				return "", err
			}
		}
	} else {
		defer mv.MessageStream.Close()
		for {
			chunk, err := mv.MessageStream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return "", modelError(ctx, err)
			}
			if err := r.chunk(t, chunk, &usage); err != nil {
				return "", err
			}
		}
	}
	if _, calls, err := t.Close(); err != nil {
		return "", err
	} else {
		for _, c := range calls {
			r.parents[c.ID] = t.MessageID()
			r.order = append(r.order, c.ID)
		}
	}
	if usage != nil {
		u := agui.TokenUsage{
			InputTokens:  turn.Count(int64(usage.PromptTokens)),
			OutputTokens: turn.Count(int64(usage.CompletionTokens)),
			TotalTokens:  turn.Count(int64(usage.TotalTokens)),
		}
		if n := usage.CompletionTokensDetails.ReasoningTokens; n > 0 {
			u.ReasoningTokens = turn.Count(int64(n))
		}
		if n := usage.PromptTokenDetails.CachedTokens; n > 0 {
			u.CachedInputTokens = turn.Count(int64(n))
		}
		turn.AddUsage(&r.usage, u)
	}
	return "", nil
}

// chunk emits one chunk of a model reply (or a whole reply). Tool calls are
// keyed by their index in the reply, as Chat Completions streams them.
func (r *run) chunk(t *turn.Turn, m *schema.Message, usage **schema.TokenUsage) error {
	if m.ResponseMeta != nil && m.ResponseMeta.Usage != nil {
		*usage = m.ResponseMeta.Usage
	}
	if m.ReasoningContent != "" {
		if err := t.Reasoning("", m.ReasoningContent); err != nil {
			return err
		}
	}
	if err := t.Text(m.Content); err != nil {
		return err
	}
	for i, tc := range m.ToolCalls {
		key := "#" + strconv.Itoa(i)
		if tc.Index != nil {
			key = strconv.Itoa(*tc.Index)
		}
		if err := t.ToolChunk(key, tc.ID, tc.Function.Name, tc.Function.Arguments); err != nil {
			return err
		}
	}
	return nil
}

// modelError is the run's error for what Eino reported: the cancellation
// when the run was cancelled, an AGENT_ERROR with Eino's words otherwise.
func modelError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	return server.AgentError(&turn.Failure{Text: "Eino: " + einoText(err), Errs: []error{err}})
}

// einoText is what an Eino error says without the node path that Eino's
// graph errors append after a rule, and without their kind's tag.
func einoText(err error) string {
	text := err.Error()
	if i := strings.Index(text, "\n------------------------\n"); i >= 0 {
		text = text[:i]
	}
	return strings.TrimPrefix(text, "[NodeRunError] ")
}
