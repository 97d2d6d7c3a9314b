package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
)

// Thread is one conversation with a remote agent, over as many runs as it
// takes, like the reference's HttpAgent: a UI keeps one Thread per thread
// and drives it turn after turn. Between runs it adds what the user said
// ([Thread.AddUserMessage], [Thread.AddMessages]), sets the state
// ([Thread.SetState]), answers the interrupts the last run raised
// ([Thread.Resolve], [Thread.Decline]) and returns the results of frontend
// tools ([Thread.AddToolResult]); [Thread.Run] sends all of it as the next
// RunAgentInput (protocol.md E.4), after checking the answers locally
// (E.5). The messages and state after a run are the reducer's (package
// conversation): what the agent's events made of them.
//
// Subscribers ([Thread.Subscribe]) and the pending interrupts stay with the
// Thread across runs. Runs on one Thread are serialised: a thread has one
// run at a time. Every method may be called from any goroutine, during a
// run too; what is added during a run goes out with the next.
type Thread struct {
	c *Client

	run  sync.Mutex // held for a whole run
	mu   sync.Mutex // guards what follows
	conv *conversation.Conversation
	subs map[int]func(Delivery)
	next int

	threadID string
	// answers are the recorded answers to the pending interrupts, sent
	// with the next run and kept until a run ends with RUN_FINISHED (which
	// replaces the pending interrupts).
	answers []agui.ResumeEntry
}

// ThreadOption configures a Thread.
type ThreadOption func(*threadConfig)

type threadConfig struct {
	thread   string
	messages []agui.Message
	state    json.RawMessage
}

// WithThreadID sets the thread id (default: a fresh UUID v4 on first run).
func WithThreadID(id string) ThreadOption { return func(a *threadConfig) { a.thread = id } }

// WithMessages sets the messages the thread starts with.
func WithMessages(msgs ...agui.Message) ThreadOption {
	return func(a *threadConfig) { a.messages = msgs }
}

// WithState sets the state the thread starts with (default {}).
func WithState(state json.RawMessage) ThreadOption {
	return func(a *threadConfig) { a.state = state }
}

// NewThread starts a conversation with the agent behind c.
func (c *Client) NewThread(opts ...ThreadOption) *Thread {
	var cfg threadConfig
	for _, o := range opts {
		o(&cfg)
	}
	conv := conversation.New(cfg.messages, cfg.state)
	return &Thread{c: c, conv: conv, subs: map[int]func(Delivery){}, threadID: cfg.thread}
}

// RunParams are the per-run parts of the input; the rest comes from the
// thread.
type RunParams struct {
	RunID          string  // default: a fresh UUID v4
	ParentRunID    *string // the run this one continues, if any
	Tools          []agui.Tool
	Context        []agui.Context
	ForwardedProps json.RawMessage
	// Resume, when not nil, is sent instead of the answers recorded with
	// Resolve, Decline and Answer. Either way the resume must answer every
	// pending interrupt, once; one that does not is refused before
	// anything is sent.
	Resume []agui.ResumeEntry
	// Options apply to this run's request (headers, warning hooks).
	Options []RunOption
}

// Result is what a run did.
type Result struct {
	// Input is the RunAgentInput built for the run (before era shims).
	Input *agui.RunAgentInput
	// NewMessages are the messages whose ids the thread did not hold
	// before the run.
	NewMessages []agui.Message
	// State is the state after the run.
	State json.RawMessage
	// Outcome is how the run ended: Succeeded (Outcome.PendingToolCallIDs
	// name the frontend tool calls to answer), Interrupted (see
	// Outcome.Interrupts), Cancelled, or Failed (Outcome.Error is the
	// agent's RUN_ERROR). Running means the stream failed mid-run.
	Outcome conversation.Outcome
	// Usage is the token usage of the terminal event, when reported.
	Usage []agui.TokenUsage
	// Warnings are every warning of the run, in order: the outgoing input's
	// (Index -1), the pipeline's and the reducer's.
	Warnings []agui.Warning
	// Last is the position of the last event delivered (zero when none
	// was), what [Client.Resume] takes to pick the run up after it.
	Last Position
}

// Subscribe calls f with every event delivered to the thread, in order, on
// the goroutine running the run, after the thread applied it. The
// subscription lasts across runs until the returned function removes it.
func (t *Thread) Subscribe(f func(Delivery)) (unsubscribe func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id := t.next
	t.next++
	t.subs[id] = f
	return func() {
		t.mu.Lock()
		delete(t.subs, id)
		t.mu.Unlock()
	}
}

// AddMessages appends messages (copied) to the thread; the next run sends
// them.
func (t *Thread) AddMessages(msgs ...agui.Message) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.conv.Append(msgs...)
}

// AddUserMessage appends a user message saying text and returns its id.
func (t *Thread) AddUserMessage(text string) (id string) {
	id = agui.NewID()
	t.AddMessages(&agui.UserMessage{ID: id, Content: agui.TextContent(text)})
	return id
}

// ErrUnknownToolCall is matched (errors.Is) by the error of a tool result
// for a call the thread does not hold.
var ErrUnknownToolCall = errors.New("agui client: no such tool call in the thread")

// AddToolResult appends the result of a frontend tool, a ToolMessage with
// content answering tool call toolCallID, and returns its id; the next run
// sends it. A call the thread does not hold is refused with
// ErrUnknownToolCall.
func (t *Thread) AddToolResult(toolCallID string, content agui.Content) (id string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.conv.ToolCall(toolCallID); !ok {
		return "", fmt.Errorf("%w: %q", ErrUnknownToolCall, toolCallID)
	}
	id = agui.NewID()
	t.conv.Append(&agui.ToolMessage{ID: id, ToolCallID: toolCallID, Content: content})
	return id, nil
}

// PendingToolCalls returns the frontend tool calls the last run left for
// the client to run (its outcome's pending tool calls) that no tool
// message answers yet, with their names and arguments.
func (t *Thread) PendingToolCalls() []agui.ToolCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []agui.ToolCall
	for _, id := range t.conv.Outcome().PendingToolCallIDs {
		if tc, ok := t.conv.ToolCall(id); ok && !t.conv.Answered(id) {
			out = append(out, tc)
		}
	}
	return out
}

// SetState replaces the thread's state with v encoded as JSON (a
// json.RawMessage is taken as it is, once checked); the next run sends it.
func (t *Thread) SetState(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("agui client: the state cannot be encoded: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.conv.SetState(raw)
	return nil
}

// ErrNotPending is matched (errors.Is) by the error of an answer to an
// interrupt that is not pending.
var ErrNotPending = errors.New("agui client: no such pending interrupt")

// Resolve answers pending interrupt id with payload encoded as JSON (nil,
// or a value that encodes to null: no payload; a json.RawMessage is taken
// as it is, once checked). An approval is Resolve(id, nil), an answer to a
// question Resolve(id, answer). The next run sends the answer, replacing
// any earlier one to the same interrupt.
func (t *Thread) Resolve(id string, payload any) error {
	e := agui.ResumeEntry{InterruptID: id, Status: agui.ResumeStatusResolved}
	if payload != nil {
		raw, err := json.Marshal(payload)
		if err != nil {
			return fmt.Errorf("agui client: the payload for interrupt %q cannot be encoded: %w", id, err)
		}
		if string(raw) != "null" {
			e.Payload = raw
		}
	}
	return t.Answer(e)
}

// Decline answers pending interrupt id as cancelled: the user said no, or
// will not answer. An expired interrupt can only be declined.
func (t *Thread) Decline(id string) error {
	return t.Answer(agui.ResumeEntry{InterruptID: id, Status: agui.ResumeStatusCancelled})
}

// Answer records e as the answer to its pending interrupt, for the next
// run, replacing any earlier answer to it; an entry for an interrupt that
// is not pending is refused with ErrNotPending.
func (t *Thread) Answer(e agui.ResumeEntry) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !slices.ContainsFunc(t.conv.Interrupts(), func(in agui.Interrupt) bool { return in.ID == e.InterruptID }) {
		return fmt.Errorf("%w: %q", ErrNotPending, e.InterruptID)
	}
	i := slices.IndexFunc(t.answers, func(a agui.ResumeEntry) bool { return a.InterruptID == e.InterruptID })
	if i >= 0 {
		t.answers[i] = e
	} else {
		t.answers = append(t.answers, e)
	}
	return nil
}

// Run runs the agent once on the thread. A RUN_ERROR sent by the agent is
// not an error here: it is Result.Outcome (Failed). The error is a refused
// resume (*conversation.ResumeError: a pending interrupt unanswered, say),
// an encoding or transport failure, an HTTP status (*HTTPError), a
// rejected or truncated stream (*StreamError), or the end of ctx (matching
// both context.Canceled and the cause it was cancelled with); the result
// then holds what was delivered before it.
func (t *Thread) Run(ctx context.Context, p RunParams) (*Result, error) {
	t.run.Lock()
	defer t.run.Unlock()

	t.mu.Lock()
	resume := p.Resume
	if resume == nil && len(t.answers) > 0 {
		resume = slices.Clone(t.answers)
	}
	in, err := t.conv.NextInput(conversation.InputOptions{
		ThreadID:       t.threadID,
		RunID:          p.RunID,
		ParentRunID:    p.ParentRunID,
		Tools:          p.Tools,
		Context:        p.Context,
		ForwardedProps: p.ForwardedProps,
		Resume:         resume,
	})
	if err == nil {
		t.threadID = in.ThreadID
	}
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}

	res := &Result{Input: in}
	collect := func(w agui.Warning) { res.Warnings = append(res.Warnings, w) }
	opts := append(append([]RunOption(nil), p.Options...), RunWarnings(collect))
	// The reducer's warnings go where the pipeline's go: the client's hook,
	// the run's hooks, the result.
	reducerWarn := t.c.warnFunc(append(p.warnHooks(), collect))
	runErr := t.c.run(ctx, in, opts, t.deliver(res, reducerWarn))
	t.mu.Lock()
	res.NewMessages = t.conv.NewMessages()
	res.State = t.conv.State()
	res.Outcome = t.conv.Outcome()
	if o := res.Outcome; o.RunID == in.RunID && (o.Status == conversation.Succeeded || o.Status == conversation.Interrupted || o.Status == conversation.Cancelled) {
		t.answers = nil // RUN_FINISHED replaced the interrupts they answered
	}
	t.mu.Unlock()
	res.Usage = res.Outcome.Usage
	return res, runErr
}

// deliver returns the function a run or a connect hands each delivered
// event: the thread applies it, then its subscribers see it (outside the
// lock, so that one may call the thread's methods); res.Last follows the
// positions, and the reducer's warnings go to warn with the event's index.
func (t *Thread) deliver(res *Result, warn func(agui.Warning)) func(Delivery, int) bool {
	var subs []func(Delivery)
	return func(d Delivery, index int) bool {
		t.mu.Lock()
		ws := t.conv.Apply(d.Event)
		subs = subs[:0]
		for _, f := range t.subs {
			subs = append(subs, f)
		}
		t.mu.Unlock()
		res.Last = d.Pos
		for _, w := range ws {
			w.Index = index
			warn(w)
		}
		for _, f := range subs {
			f(d)
		}
		return true
	}
}

// warnHooks are the warning hooks among the run's options.
func (p RunParams) warnHooks() []func(agui.Warning) {
	var rc runConfig
	for _, o := range p.Options {
		o(&rc)
	}
	return rc.warn
}

// Messages returns a copy of the thread's messages.
func (t *Thread) Messages() []agui.Message {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.conv.Messages()
}

// State returns a copy of the thread's state.
func (t *Thread) State() json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.conv.State()
}

// Interrupts returns the interrupts the next run must answer.
func (t *Thread) Interrupts() []agui.Interrupt {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.conv.Interrupts()
}

// ThreadID returns the thread id ("" before the first run unless set).
func (t *Thread) ThreadID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.threadID
}
