package client

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
)

// Agent is a conversation with one remote agent, like the reference's
// HttpAgent: it keeps the thread id, the messages and the state across
// runs, builds each outgoing RunAgentInput from them (protocol.md E.4),
// checks resumes locally before sending (E.5), folds every delivered event
// into the conversation, and lets subscribers watch events as they arrive.
//
// Runs on one Agent are serialised: a thread has one run at a time. The
// accessors may be called from any goroutine.
type Agent struct {
	c *Client

	run  sync.Mutex // held for a whole run
	mu   sync.Mutex // guards conv between and during runs, and subs
	conv *conversation.Conversation
	subs map[int]func(agui.Event)
	next int

	threadID string
}

// AgentOption configures an Agent.
type AgentOption func(*agentConfig)

type agentConfig struct {
	thread   string
	messages []agui.Message
	state    json.RawMessage
}

// WithThreadID sets the thread id (default: a fresh UUID v4 on first run).
func WithThreadID(id string) AgentOption { return func(a *agentConfig) { a.thread = id } }

// WithMessages sets the messages the conversation starts with.
func WithMessages(msgs ...agui.Message) AgentOption {
	return func(a *agentConfig) { a.messages = msgs }
}

// WithState sets the state the conversation starts with (default {}).
func WithState(state json.RawMessage) AgentOption { return func(a *agentConfig) { a.state = state } }

// NewAgent returns an Agent talking to the agent behind c.
func NewAgent(c *Client, opts ...AgentOption) *Agent {
	var cfg agentConfig
	for _, o := range opts {
		o(&cfg)
	}
	conv := conversation.New(cfg.messages, cfg.state)
	return &Agent{c: c, conv: conv, subs: map[int]func(agui.Event){}, threadID: cfg.thread}
}

// RunParams are the per-run parts of the input; the rest comes from the
// conversation.
type RunParams struct {
	RunID          string  // default: a fresh UUID v4
	ParentRunID    *string // the run this one continues, if any
	Tools          []agui.Tool
	Context        []agui.Context
	ForwardedProps json.RawMessage
	// Resume answers the pending interrupts: every one of them, once. A
	// resume that does not is refused before anything is sent.
	Resume []agui.ResumeEntry
	// Options apply to this run's request (headers, warning hooks).
	Options []RunOption
}

// Result is what a run did.
type Result struct {
	// Input is the RunAgentInput built for the run (before era shims).
	Input *agui.RunAgentInput
	// NewMessages are the messages whose ids the conversation did not hold
	// before the run.
	NewMessages []agui.Message
	// State is the state after the run.
	State json.RawMessage
	// Outcome is how the run ended: Succeeded, Interrupted (see
	// Outcome.Interrupts), Cancelled, or Failed (Outcome.Error is the
	// agent's RUN_ERROR). Running means the stream failed mid-run.
	Outcome conversation.Outcome
	// Usage is the token usage of the terminal event, when reported.
	Usage []agui.TokenUsage
	// Warnings are every warning of the run, in order: the outgoing input's
	// (Index -1), the pipeline's and the reducer's.
	Warnings []agui.Warning
}

// Subscribe calls f with every event delivered to the agent, in order, on
// the goroutine running the run, after the conversation applied it. The
// returned function removes the subscription.
func (a *Agent) Subscribe(f func(agui.Event)) (unsubscribe func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := a.next
	a.next++
	a.subs[id] = f
	return func() {
		a.mu.Lock()
		delete(a.subs, id)
		a.mu.Unlock()
	}
}

// Run runs the agent once on the conversation. A RUN_ERROR sent by the
// agent is not an error here: it is Result.Outcome (Failed). The error is
// a refused resume (*conversation.ResumeError), an encoding or transport
// failure, an HTTP status (*HTTPError), or a rejected or truncated stream
// (*StreamError); the result then holds what was delivered before it.
func (a *Agent) Run(ctx context.Context, p RunParams) (*Result, error) {
	a.run.Lock()
	defer a.run.Unlock()

	a.mu.Lock()
	in, err := a.conv.NextInput(conversation.InputOptions{
		ThreadID:       a.threadID,
		RunID:          p.RunID,
		ParentRunID:    p.ParentRunID,
		Tools:          p.Tools,
		Context:        p.Context,
		ForwardedProps: p.ForwardedProps,
		Resume:         p.Resume,
	})
	if err == nil {
		a.threadID = in.ThreadID
	}
	a.mu.Unlock()
	if err != nil {
		return nil, err
	}

	res := &Result{Input: in}
	collect := func(w agui.Warning) { res.Warnings = append(res.Warnings, w) }
	opts := append(append([]RunOption(nil), p.Options...), RunWarnings(collect))
	// The reducer's warnings go where the pipeline's go: the client's hook,
	// the run's hooks, the result.
	reducerWarn := a.c.warnFunc(append(p.warnHooks(), collect))
	var subs []func(agui.Event)
	runErr := a.c.run(ctx, in, opts, func(ev agui.Event, index int) bool {
		a.mu.Lock()
		ws := a.conv.Apply(ev)
		subs = subs[:0]
		for _, f := range a.subs {
			subs = append(subs, f)
		}
		a.mu.Unlock()
		for _, w := range ws {
			w.Index = index
			reducerWarn(w)
		}
		for _, f := range subs {
			f(ev)
		}
		return true
	})
	a.mu.Lock()
	res.NewMessages = a.conv.NewMessages()
	res.State = a.conv.State()
	res.Outcome = a.conv.Outcome()
	a.mu.Unlock()
	res.Usage = res.Outcome.Usage
	return res, runErr
}

// warnHooks are the warning hooks among the run's options.
func (p RunParams) warnHooks() []func(agui.Warning) {
	var rc runConfig
	for _, o := range p.Options {
		o(&rc)
	}
	return rc.warn
}

// Messages returns a copy of the conversation's messages.
func (a *Agent) Messages() []agui.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conv.Messages()
}

// State returns a copy of the conversation's state.
func (a *Agent) State() json.RawMessage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conv.State()
}

// Interrupts returns the interrupts the next run must resume.
func (a *Agent) Interrupts() []agui.Interrupt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conv.Interrupts()
}

// ThreadID returns the thread id ("" before the first run unless set).
func (a *Agent) ThreadID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.threadID
}
