package server

import (
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/jsonpatch"
)

// Emitter emits the events of a run, attributed either to the run itself (the
// Emitter embedded in [RunContext]) or to one subagent (the Emitter embedded
// in [Subagent], which tags every event it emits with the subagent's
// subagentRunId).
//
// Every helper emits through the same verified path as [Emitter.Emit]; the
// helpers only make the common shapes hard to get wrong. Each Start… method
// returns a handle whose End (or equivalent) is idempotent and meant for
// defer; an entity left open when the agent returns success is reported (the
// RUN_FINISHED is rejected with open-at-finish and becomes RUN_ERROR
// PROTOCOL_VIOLATION), never closed silently as if it had succeeded.
//
// An Emitter is safe for concurrent use.
type Emitter struct {
	e  *emitter
	sc *scope // the subagent whose events these are, nil for the run itself
}

// Emit sends one event, verified. On a subagent's Emitter an event that can
// be attributed and carries no subagentRunId is given the subagent's. The
// driver owns RUN_STARTED, RUN_FINISHED and RUN_ERROR; emitting one of them
// is a PROTOCOL error.
//
// It fails with CANCELLED after the run was cancelled, DISCONNECTED after the
// consumer left, PROTOCOL (wrapping [ErrSubagentEnded]) on the Emitter of a
// subagent that ended, PROTOCOL_VIOLATION when the event breaks an ordering
// rule (errors.As reaches the *verify.Error), SERIALIZATION when it cannot be
// encoded. A rejected event is not sent, and its error is the run's first
// failure: every later emit returns it (see [Emitter.Err]).
func (em *Emitter) Emit(ev agui.Event) error {
	if em.sc != nil && ev != nil {
		attribute(ev, em.sc.tag())
	}
	return em.e.emit(ev, em.sc)
}

// ---- text messages ----

// TextMessage is an open streamed text message.
type TextMessage struct {
	e     *emitter
	id    string
	sc    *scope
	ended atomic.Bool
}

// StartTextMessage emits TEXT_MESSAGE_START and returns the open message.
func (em *Emitter) StartTextMessage(opts ...TextMessageOption) (*TextMessage, error) {
	var o textMessageOptions
	for _, opt := range opts {
		if opt != nil {
			opt.applyToTextMessage(&o)
		}
	}
	o.id = idOrNew(o.id)
	ev := agui.NewTextMessageStart(o.id)
	ev.Role, ev.Name, ev.SubagentRunID = o.role, o.name, em.sc.tag()
	if err := em.e.emit(ev, em.sc); err != nil {
		return nil, err
	}
	return &TextMessage{e: em.e, id: o.id, sc: em.sc}, nil
}

// Say emits a whole assistant text message: start, the text, end.
func (em *Emitter) Say(text string) error {
	m, err := em.StartTextMessage()
	if err != nil {
		return err
	}
	if err := m.Append(text); err != nil {
		return err
	}
	return m.End()
}

// ID returns the message's id.
func (m *TextMessage) ID() string { return m.id }

// Append emits TEXT_MESSAGE_CONTENT with delta (which may be empty).
func (m *TextMessage) Append(delta string) error { return m.e.textContent(m.id, delta, m.sc) }

// End emits TEXT_MESSAGE_END. Only the first call emits; later calls return
// nil, so `defer m.End()` is always safe.
func (m *TextMessage) End() error {
	if !m.ended.CompareAndSwap(false, true) {
		return nil
	}
	ev := agui.NewTextMessageEnd(m.id)
	ev.SubagentRunID = m.sc.tag()
	return m.e.emit(ev, m.sc)
}

// ---- tool calls ----

// ToolCall is a tool call whose arguments are streaming.
type ToolCall struct {
	e     *emitter
	id    string
	sc    *scope
	ended atomic.Bool
}

// StartToolCall emits TOOL_CALL_START for tool name and returns the call.
func (em *Emitter) StartToolCall(name string, opts ...ToolCallOption) (*ToolCall, error) {
	var o toolCallOptions
	for _, opt := range opts {
		if opt != nil {
			opt.applyToToolCall(&o)
		}
	}
	o.id = idOrNew(o.id)
	ev := agui.NewToolCallStart(o.id, name)
	ev.ParentMessageID, ev.SubagentRunID = o.parentMessageID, em.sc.tag()
	if err := em.e.emit(ev, em.sc); err != nil {
		return nil, err
	}
	return &ToolCall{e: em.e, id: o.id, sc: em.sc}, nil
}

// ID returns the tool call's id.
func (c *ToolCall) ID() string { return c.id }

// Args emits TOOL_CALL_ARGS with a fragment of the arguments' JSON text.
func (c *ToolCall) Args(delta string) error { return c.e.toolArgs(c.id, delta, c.sc) }

// ArgsJSON emits v, the call's whole arguments, as one TOOL_CALL_ARGS,
// encoded by the package's value rule (see Values in the package
// documentation: a json.RawMessage is sent as the JSON it holds, a Go value
// is encoded). An encoding failure is a SERIALIZATION [*Error].
func (c *ToolCall) ArgsJSON(v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return c.e.refuse(serializationError(err))
	}
	return c.Args(string(b))
}

// End emits TOOL_CALL_END: the arguments are complete. Idempotent.
func (c *ToolCall) End() error {
	if !c.ended.CompareAndSwap(false, true) {
		return nil
	}
	ev := agui.NewToolCallEnd(c.id)
	ev.SubagentRunID = c.sc.tag()
	return c.e.emit(ev, c.sc)
}

// Result ends the call if it is still open, then emits TOOL_CALL_RESULT with
// content, in a new tool message.
func (c *ToolCall) Result(content agui.Content) error {
	if err := c.End(); err != nil {
		return err
	}
	ev := agui.NewToolCallResult(agui.NewID(), c.id, content)
	ev.SubagentRunID = c.sc.tag()
	return c.e.emit(ev, c.sc)
}

// ResultJSON is Result with v's JSON as the text content, encoded by the
// package's value rule (see Values in the package documentation). An
// encoding failure is a SERIALIZATION [*Error] and nothing is sent.
func (c *ToolCall) ResultJSON(v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return c.e.refuse(serializationError(err))
	}
	return c.Result(agui.TextContent(string(b)))
}

// EncryptedValue attaches an opaque encrypted value to the call
// (REASONING_ENCRYPTED_VALUE, subtype tool-call).
func (c *ToolCall) EncryptedValue(value string) error {
	ev := agui.NewReasoningEncryptedValue(agui.ReasoningEncryptedValueSubtypeToolCall, c.id, value)
	ev.SubagentRunID = c.sc.tag()
	return c.e.emit(ev, c.sc)
}

// ---- reasoning ----

// Reasoning is an open reasoning span (REASONING_START … REASONING_END), which
// holds reasoning messages.
type Reasoning struct {
	e     *emitter
	id    string
	sc    *scope
	ended atomic.Bool
}

// StartReasoning emits REASONING_START and returns the open span.
func (em *Emitter) StartReasoning(opts ...ReasoningOption) (*Reasoning, error) {
	id := reasoningID(opts)
	ev := agui.NewReasoningStart(id)
	ev.SubagentRunID = em.sc.tag()
	if err := em.e.emit(ev, em.sc); err != nil {
		return nil, err
	}
	return &Reasoning{e: em.e, id: id, sc: em.sc}, nil
}

// ID returns the span's id.
func (r *Reasoning) ID() string { return r.id }

// StartMessage emits REASONING_MESSAGE_START and returns the open reasoning
// message.
func (r *Reasoning) StartMessage(opts ...ReasoningOption) (*ReasoningMessage, error) {
	id := reasoningID(opts)
	ev := agui.NewReasoningMessageStart(id)
	ev.SubagentRunID = r.sc.tag()
	if err := r.e.emit(ev, r.sc); err != nil {
		return nil, err
	}
	return &ReasoningMessage{e: r.e, id: id, sc: r.sc}, nil
}

// Think emits a whole reasoning message: start, the text, end.
func (r *Reasoning) Think(text string) error {
	m, err := r.StartMessage()
	if err != nil {
		return err
	}
	if err := m.Append(text); err != nil {
		return err
	}
	return m.End()
}

// EncryptedValue attaches an opaque encrypted value to the reasoning
// (REASONING_ENCRYPTED_VALUE, subtype message, naming the span's id).
func (r *Reasoning) EncryptedValue(value string) error {
	ev := agui.NewReasoningEncryptedValue(agui.ReasoningEncryptedValueSubtypeMessage, r.id, value)
	ev.SubagentRunID = r.sc.tag()
	return r.e.emit(ev, r.sc)
}

// End emits REASONING_END. Idempotent.
func (r *Reasoning) End() error {
	if !r.ended.CompareAndSwap(false, true) {
		return nil
	}
	ev := agui.NewReasoningEnd(r.id)
	ev.SubagentRunID = r.sc.tag()
	return r.e.emit(ev, r.sc)
}

// ReasoningMessage is an open visible reasoning message.
type ReasoningMessage struct {
	e     *emitter
	id    string
	sc    *scope
	ended atomic.Bool
}

// ID returns the message's id.
func (m *ReasoningMessage) ID() string { return m.id }

// Append emits REASONING_MESSAGE_CONTENT with delta.
func (m *ReasoningMessage) Append(delta string) error {
	return m.e.reasoningContent(m.id, delta, m.sc)
}

// End emits REASONING_MESSAGE_END. Idempotent.
func (m *ReasoningMessage) End() error {
	if !m.ended.CompareAndSwap(false, true) {
		return nil
	}
	ev := agui.NewReasoningMessageEnd(m.id)
	ev.SubagentRunID = m.sc.tag()
	return m.e.emit(ev, m.sc)
}

// EncryptedValue attaches an opaque encrypted value to the reasoning message
// (REASONING_ENCRYPTED_VALUE, subtype message).
func (m *ReasoningMessage) EncryptedValue(value string) error {
	ev := agui.NewReasoningEncryptedValue(agui.ReasoningEncryptedValueSubtypeMessage, m.id, value)
	ev.SubagentRunID = m.sc.tag()
	return m.e.emit(ev, m.sc)
}

// EncryptedValue emits REASONING_ENCRYPTED_VALUE for any entity: subtype says
// whether entityID names a message or a tool call.
func (em *Emitter) EncryptedValue(subtype agui.ReasoningEncryptedValueSubtype, entityID, value string) error {
	ev := agui.NewReasoningEncryptedValue(subtype, entityID, value)
	ev.SubagentRunID = em.sc.tag()
	return em.e.emit(ev, em.sc)
}

// ---- steps ----

// Step is an open named step.
type Step struct {
	e     *emitter
	name  string
	sc    *scope
	ended atomic.Bool
}

// StartStep emits STEP_STARTED for name and returns the open step.
func (em *Emitter) StartStep(name string) (*Step, error) {
	ev := agui.NewStepStarted(name)
	ev.SubagentRunID = em.sc.tag()
	if err := em.e.emit(ev, em.sc); err != nil {
		return nil, err
	}
	return &Step{e: em.e, name: name, sc: em.sc}, nil
}

// End emits STEP_FINISHED. Idempotent.
func (s *Step) End() error {
	if !s.ended.CompareAndSwap(false, true) {
		return nil
	}
	ev := agui.NewStepFinished(s.name)
	ev.SubagentRunID = s.sc.tag()
	return s.e.emit(ev, s.sc)
}

// ---- custom ----

// Custom emits a CUSTOM event named name whose value is v, encoded by the
// package's value rule (see Values in the package documentation).
func (em *Emitter) Custom(name string, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return em.e.refuse(serializationError(err))
	}
	ev := agui.NewCustom(name, b)
	ev.SubagentRunID = em.sc.tag()
	return em.e.emit(ev, em.sc)
}

// ---- subagents ----

// Subagent is an open subagent invocation. Its embedded [Emitter] attributes
// every event to it, so the subagent's messages, tool calls and steps are
// emitted exactly like the run's own:
//
//	sub, err := rc.StartSubagent("researcher")
//	…
//	defer sub.Finish(nil)
//	err = sub.Say("Looking into it.")
//
// Subagents nest: a subagent's StartSubagent records it as the parent.
//
// Finish, Suspend and Fail end the invocation. After that the handle is
// spent: every emit through it, and through every handle it created (its
// messages, tool calls, reasoning, steps, activities and nested subagents,
// whatever their state), fails with a PROTOCOL [*Error] wrapping
// [ErrSubagentEnded] and sends nothing, so no event is ever attributed to a
// subagent after it ended. This holds for emits racing with the ending on
// other goroutines too. Such a refusal, unlike any other failed emit, does
// not fail the run: ending a subagent is how an agent stops the subagent's
// remaining work while the run goes on.
type Subagent struct {
	Emitter
}

// scope is one subagent invocation as its handles see it: its id (the
// subagentRunId its events carry), whether it ended, and the invocation it
// was started from (nil for one the run started).
type scope struct {
	id     string
	parent *scope
	ended  atomic.Bool
}

// tag returns the subagentRunId events emitted in sc carry: nil for the run's
// own (a nil sc).
func (sc *scope) tag() *string {
	if sc == nil {
		return nil
	}
	return &sc.id
}

// live returns nil while neither sc nor any invocation it nests in has ended,
// and the PROTOCOL error naming the one that ended otherwise.
func (sc *scope) live() error {
	for s := sc; s != nil; s = s.parent {
		if s.ended.Load() {
			return subagentEndedError(s.id)
		}
	}
	return nil
}

// StartSubagent emits SUBAGENT_STARTED for a subagent called name and returns
// the open invocation.
func (em *Emitter) StartSubagent(name string, opts ...SubagentOption) (*Subagent, error) {
	var o subagentOptions
	for _, opt := range opts {
		if opt != nil {
			opt.applyToSubagent(&o)
		}
	}
	o.id = idOrNew(o.id)
	ev := agui.NewSubagentStarted(o.id, name)
	ev.Description = o.description
	ev.ParentSubagentRunID = em.sc.tag()
	ev.ParentToolCallID = o.parentToolCallID
	ev.ParentMessageID = o.parentMessageID
	if err := em.e.emit(ev, em.sc); err != nil {
		return nil, err
	}
	return &Subagent{Emitter: Emitter{e: em.e, sc: &scope{id: o.id, parent: em.sc}}}, nil
}

// ID returns the subagent run's id (its subagentRunId).
func (s *Subagent) ID() string { return s.sc.id }

// Finish emits SUBAGENT_FINISHED with a success outcome and, unless result is
// nil, the result, encoded by the package's value rule (see Values in the
// package documentation). Finish, Suspend and Fail end
// the invocation: only the first of them emits, later calls return nil, and
// the handle is spent (see [Subagent]). A result that cannot be encoded fails
// with SERIALIZATION, ends nothing and, like any failed emit, fails the run.
func (s *Subagent) Finish(result any) error {
	if s.sc.ended.Load() {
		return nil
	}
	ev := agui.NewSubagentFinished(s.sc.id)
	ev.Outcome = &agui.SubagentFinishedSuccessOutcome{}
	if result != nil {
		b, err := marshalJSON(result)
		if err != nil {
			return s.e.refuse(serializationError(err))
		}
		if string(b) != "null" {
			ev.Result = b
		}
	}
	return s.end(ev)
}

// Suspend emits SUBAGENT_FINISHED with a suspended outcome: the subagent waits
// on the named interrupts (which the run's [Interrupted] outcome carries).
func (s *Subagent) Suspend(interruptIDs ...string) error {
	ev := agui.NewSubagentFinished(s.sc.id)
	ev.Outcome = &agui.SubagentFinishedSuspendedOutcome{InterruptIDs: interruptIDs}
	return s.end(ev)
}

// Fail emits SUBAGENT_ERROR with err's message (and its code, when err is an
// [*Error]), summarised as a RUN_ERROR's is: URLs and addresses replaced
// unless [WithErrorDetail]. The run goes on.
func (s *Subagent) Fail(err error) error {
	msg := "subagent failed"
	if err != nil {
		msg = err.Error()
		if !s.e.detail {
			msg = redact(msg)
		}
	}
	ev := agui.NewSubagentError(s.sc.id, msg)
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		code := string(e.Code)
		ev.Code = &code
	}
	return s.end(ev)
}

// end marks the invocation ended, then emits its last event, ev, in the scope
// of its parent. The mark comes first, so any emit through the subagent that
// is checked after ev was sent (the emitter's mutex orders them) fails.
func (s *Subagent) end(ev agui.Event) error {
	if !s.sc.ended.CompareAndSwap(false, true) {
		return nil
	}
	return s.e.emit(ev, s.sc.parent)
}

// ---- activities ----

// Activity is an activity message: structured progress shown in the UI. The
// handle remembers the content the client has, so Update can send a patch.
type Activity struct {
	e            *emitter
	id           string
	activityType string
	sc           *scope

	mu      sync.Mutex
	content any // decoded content as the client has it
}

// StartActivity emits ACTIVITY_SNAPSHOT creating an activity of activityType
// with content (encoded by the package's value rule; it must be a JSON
// object).
func (em *Emitter) StartActivity(activityType string, content any, opts ...ActivityOption) (*Activity, error) {
	var id string
	for _, opt := range opts {
		if opt != nil {
			opt.applyToActivity(&id)
		}
	}
	a := &Activity{e: em.e, id: idOrNew(id), activityType: activityType, sc: em.sc}
	raw, tree, err := activityContent(content)
	if err != nil {
		return nil, em.e.refuse(err)
	}
	if err := a.snapshot(raw, tree); err != nil {
		return nil, err
	}
	return a, nil
}

// ID returns the activity message's id.
func (a *Activity) ID() string { return a.id }

// Snapshot emits ACTIVITY_SNAPSHOT replacing the activity's content.
func (a *Activity) Snapshot(content any) error {
	raw, tree, err := activityContent(content)
	if err != nil {
		return a.e.refuse(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.snapshot(raw, tree)
}

func (a *Activity) snapshot(raw json.RawMessage, tree any) error {
	ev := agui.NewActivitySnapshot(a.id, a.activityType, raw)
	ev.SubagentRunID = a.sc.tag()
	if err := a.e.emit(ev, a.sc); err != nil {
		return err
	}
	a.content = tree
	return nil
}

// Update sends the activity's new content as ACTIVITY_DELTA, an RFC 6902
// patch from the content the client has, or as ACTIVITY_SNAPSHOT when that is
// smaller. Nothing is sent when the content did not change.
func (a *Activity) Update(content any) error {
	raw, tree, err := activityContent(content)
	if err != nil {
		return a.e.refuse(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	patch, err := jsonpatch.DiffValues(a.content, tree)
	if err != nil {
		return a.e.refuse(serializationError(err))
	}
	if len(patch) == 0 {
		return nil
	}
	if size, err := jsonpatch.Size(patch); err != nil || size >= len(raw) {
		return a.snapshot(raw, tree)
	}
	ev := agui.NewActivityDelta(a.id, a.activityType, patch)
	ev.SubagentRunID = a.sc.tag()
	if err := a.e.emit(ev, a.sc); err != nil {
		return err
	}
	a.content = tree
	return nil
}

var errNotObject = errors.New("agui/server: activity content must be a JSON object")

func activityContent(v any) (json.RawMessage, any, error) {
	raw, tree, err := encodeTree(v)
	if err != nil {
		return nil, nil, serializationError(err)
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, nil, serializationError(errNotObject)
	}
	return raw, tree, nil
}
