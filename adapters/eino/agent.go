// Package eino serves an Eino agent (github.com/cloudwego/eino) as an AG-UI
// agent: an ADK agent, such as an adk.ChatModelAgent with its sub-agents, run
// by Eino's own adk.Runner.
//
// The run's messages become Eino messages ([Messages]) and its context
// entries (and, with [WithState], its state) a leading system message. What
// the agent streams becomes AG-UI events: each model reply one assistant text
// message with its tool calls (TOOL_CALL_START/ARGS/END under the model's
// call ids) and its reasoning_content as reasoning events; each tool result
// TOOL_CALL_RESULT; a transfer to a sub-agent SUBAGENT_STARTED (parented to
// the transfer_to_agent call) with the sub-agent's events attributed to it,
// then SUBAGENT_FINISHED; the token usage Eino reports, summed, on
// RUN_FINISHED. A session value a tool or an agent sets with
// [PublishSessionValue] rather than adk.AddSessionValue is also the
// client's: a member of the run's shared state, sent as a STATE_DELTA.
//
// Tools the run declares are the client's (frontend tools). Eino binds an
// agent's tools when the agent is built, so the agent is built for each run
// by a [Builder], which receives them as Eino tools; [ChatModel] is the
// builder of one ChatModelAgent and [WithFrontend] adds them to any
// ChatModelAgentConfig. A reply that calls one ends the run as a success
// with the call pending (the agent returns directly after its tools node;
// backend calls of the same reply run first and their results are sent).
//
// An Eino interrupt (tool.Interrupt and its kin, in a tool or a graph node)
// ends the run with the interrupt outcome: one AG-UI interrupt per root cause,
// whose id is Eino's interrupt id. The Runner saved a checkpoint first, under
// the thread's id in the agent's CheckPointStore ([WithCheckPointStore]; an
// in-memory one by default). A later run of the thread whose input carries
// resume entries is resumed from that checkpoint with
// Runner.ResumeWithParams: each entry's interrupt is a resume target whose
// data is a [*Resume], which the interrupted component reads with
// tool.GetResumeContext[*eino.Resume].
//
// A compiled compose graph whose output streams a message is served by
// [NewGraph].
//
//	agent := eino.New(eino.ChatModel(&adk.ChatModelAgentConfig{
//		Name: "assistant", Description: "A helpful assistant.", Model: chatModel,
//	}))
//	http.Handle("/agent", server.NewHandler(agent))
package eino

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/turn"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// Builder builds the Eino agent of one run. frontend are the tools the run
// declared, as Eino tools the agent must offer its model and return directly
// after (see [WithFrontend]); an agent that offers none of them cannot call
// them.
type Builder func(ctx context.Context, frontend []tool.BaseTool) (adk.Agent, error)

// ChatModel returns the [Builder] of a ChatModelAgent made from cfg, with the
// run's frontend tools added by [WithFrontend].
func ChatModel(cfg *adk.ChatModelAgentConfig) Builder {
	return func(ctx context.Context, frontend []tool.BaseTool) (adk.Agent, error) {
		return adk.NewChatModelAgent(ctx, WithFrontend(cfg, frontend))
	}
}

// WithFrontend returns a copy of cfg whose tools include frontend and whose
// ToolsConfig.ReturnDirectly names them, so that a reply calling one ends
// the agent's run. A frontend tool named like one of cfg's tools is left
// out: the backend tool wins. cfg itself is not changed.
func WithFrontend(cfg *adk.ChatModelAgentConfig, frontend []tool.BaseTool) *adk.ChatModelAgentConfig {
	c := *cfg
	c.ToolsConfig.Tools = slices.Clone(cfg.ToolsConfig.Tools)
	c.ToolsConfig.ReturnDirectly = maps.Clone(cfg.ToolsConfig.ReturnDirectly)
	if len(frontend) == 0 {
		return &c
	}
	ctx := context.Background()
	have := map[string]bool{}
	for _, t := range c.ToolsConfig.Tools {
		if info, err := t.Info(ctx); err == nil {
			have[info.Name] = true
		}
	}
	if c.ToolsConfig.ReturnDirectly == nil {
		c.ToolsConfig.ReturnDirectly = map[string]bool{}
	}
	for _, t := range frontend {
		info, err := t.Info(ctx)
		if err != nil || have[info.Name] {
			continue
		}
		c.ToolsConfig.Tools = append(c.ToolsConfig.Tools, t)
		c.ToolsConfig.ReturnDirectly[info.Name] = true
	}
	return &c
}

// Resume is the resume data of an interrupt a run answered: what the
// interrupted component gets from tool.GetResumeContext[*eino.Resume] (or
// compose.GetResumeContext) when the next run resumes it.
type Resume struct {
	// Status is "resolved" or "cancelled".
	Status agui.ResumeStatus
	// Payload is the client's answer (JSON), nil when it sent none.
	Payload json.RawMessage
	// Metadata is the entry's metadata (a JSON object), nil when absent.
	Metadata json.RawMessage
}

// Agent is an Eino agent served as an AG-UI agent. It is safe for concurrent
// runs.
type Agent struct {
	build Builder
	cfg   config
}

type config struct {
	store     adk.CheckPointStore
	state     bool
	runOpts   []adk.AgentRunOption
	interrupt func(*adk.InterruptCtx) agui.Interrupt
}

// Option configures an [Agent].
type Option func(*config)

// WithCheckPointStore keeps the checkpoints of interrupted runs in store
// (under the thread's id), where a later run of the thread resumes them. The
// default store is in memory: a checkpoint is lost with the process, and
// servers behind a load balancer need a shared one.
func WithCheckPointStore(store adk.CheckPointStore) Option {
	return func(c *config) { c.store = store }
}

// WithState forwards the run's shared state (RunAgentInput.state) to the
// model, in the system message that carries the run's context entries.
func WithState() Option { return func(c *config) { c.state = true } }

// WithRunOptions passes Eino run options (adk.WithChatModelOptions,
// adk.WithSessionValues, ...) to every run and resume.
func WithRunOptions(opts ...adk.AgentRunOption) Option {
	return func(c *config) { c.runOpts = append(c.runOpts, opts...) }
}

// WithInterrupt sets how an Eino interrupt becomes an AG-UI interrupt. The
// default has Eino's interrupt id, the reason "input_required", the info as
// the message when it is a string (as metadata "info" otherwise, when it
// encodes as JSON), the call id of the tool that interrupted, and Eino's
// address as metadata "address". The id must stay Eino's: the run that
// resumes names the interrupt by it.
func WithInterrupt(f func(*adk.InterruptCtx) agui.Interrupt) Option {
	return func(c *config) { c.interrupt = f }
}

// New returns an agent that runs what build builds, for each run.
func New(build Builder, opts ...Option) *Agent {
	cfg := config{interrupt: defaultInterrupt}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.store == nil {
		cfg.store = NewMemoryStore()
	}
	return &Agent{build: build, cfg: cfg}
}

// Run serves one run; it makes *Agent a stateless server.Agent. An agent
// with typed state calls [Agent.Reply] from its own Run instead.
func (a *Agent) Run(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
	return a.Reply(ctx, &rc.Emitter, rc.Input())
}

// Reply answers the run whose input is in, emitting through em, and returns
// the run's outcome.
func (a *Agent) Reply(ctx context.Context, em *server.Emitter, in *agui.RunAgentInput) (server.Outcome, error) {
	calls := &frontendCalls{ids: map[string]bool{}}
	frontend, err := frontendTools(in.Tools, calls)
	if err != nil {
		return server.Outcome{}, server.AgentError(err)
	}
	agent, err := a.build(ctx, frontend)
	if err != nil {
		return server.Outcome{}, server.AgentError(fmt.Errorf("building the Eino agent: %w", err))
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: true, CheckPointStore: a.cfg.store})

	// The run's own context: stopping early (an emit failed) stops Eino too,
	// and the events still coming are drained before Reply returns.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx = context.WithValue(ctx, publisherKey{}, newPublisher(em, in.State))
	checkpoint := in.ThreadID
	opts := append(slices.Clone(a.cfg.runOpts), adk.WithCheckPointID(checkpoint))
	var events *adk.AsyncIterator[*adk.AgentEvent]
	if len(in.Resume) > 0 {
		targets := make(map[string]any, len(in.Resume))
		for _, r := range in.Resume {
			targets[r.InterruptID] = &Resume{Status: r.Status, Payload: r.Payload, Metadata: r.Metadata}
		}
		if _, ok, err := a.cfg.store.Get(ctx, checkpoint); err != nil {
			return server.Outcome{}, server.AgentError(fmt.Errorf("reading the checkpoint of thread %q: %w", checkpoint, err))
		} else if !ok {
			return server.Outcome{}, server.AgentError(fmt.Errorf("%w: thread %q has none", ErrNoCheckpoint, checkpoint))
		}
		events, err = runner.ResumeWithParams(ctx, checkpoint, &adk.ResumeParams{Targets: targets}, opts...)
		if err != nil {
			return server.Outcome{}, server.AgentError(fmt.Errorf("resuming thread %q: %w", checkpoint, err))
		}
	} else {
		msgs, err := Messages(in.Messages)
		if err != nil {
			return server.Outcome{}, server.AgentError(err)
		}
		var state json.RawMessage
		if a.cfg.state {
			state = in.State
		}
		if s := turn.Instructions("", in.Context, state); s != "" {
			msgs = append([]*schema.Message{schema.SystemMessage(s)}, msgs...)
		}
		events = runner.Run(ctx, msgs, opts...)
	}
	r := &run{a: a, root: em, calls: calls, known: map[string]bool{}}
	for _, m := range in.Messages {
		if am, ok := m.(*agui.AssistantMessage); ok {
			for _, tc := range am.ToolCalls {
				r.known[tc.ID] = true
			}
		}
	}
	defer drain(events)
	out, err := r.events(ctx, events)
	if err != nil {
		cancel(err)
		if ctx.Err() != nil && context.Cause(ctx) != err {
			return server.Outcome{}, fmt.Errorf("%w: %w", ctx.Err(), context.Cause(ctx))
		}
		if turn.Counted(r.usage) {
			return server.Outcome{}, server.ErrorWithUsage(err, r.usage)
		}
		return server.Outcome{}, err
	}
	return out, nil
}

// ErrNoCheckpoint is in the chain of the error of a run that resumes
// interrupts when its thread has no checkpoint to resume.
var ErrNoCheckpoint = errors.New("there is no Eino checkpoint to resume")

// drain reads the events Eino still sends once the run stopped reading, so
// that its goroutines end and its streams close.
func drain(events *adk.AsyncIterator[*adk.AgentEvent]) {
	for {
		ev, ok := events.Next()
		if !ok {
			return
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.MessageStream != nil {
			ev.Output.MessageOutput.MessageStream.Close()
		}
	}
}

func defaultInterrupt(ic *adk.InterruptCtx) agui.Interrupt {
	in := agui.Interrupt{ID: ic.ID, Reason: "input_required"}
	md := map[string]any{"address": ic.Address.String()}
	switch info := ic.Info.(type) {
	case nil:
	case string:
		in.Message = &info
	default:
		if b, err := json.Marshal(info); err == nil {
			md["info"] = json.RawMessage(b)
		}
	}
	if n := len(ic.Address); n > 0 && ic.Address[n-1].Type == adk.AddressSegmentTool && ic.Address[n-1].SubID != "" {
		id := ic.Address[n-1].SubID
		in.ToolCallID = &id
	}
	in.Metadata, _ = json.Marshal(md)
	return in
}

// frontendCalls records the calls of frontend tools a run made, by call id.
type frontendCalls struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (f *frontendCalls) add(id string) {
	f.mu.Lock()
	f.ids[id] = true
	f.mu.Unlock()
}

func (f *frontendCalls) has(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ids[id]
}

// MemoryStore is an in-memory adk.CheckPointStore, safe for concurrent use.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{m: map[string][]byte{}} }

// Get returns the checkpoint saved under id.
func (s *MemoryStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

// Set saves a checkpoint under id.
func (s *MemoryStore) Set(_ context.Context, id string, checkpoint []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = checkpoint
	return nil
}

var _ compose.CheckPointStore = (*MemoryStore)(nil)
