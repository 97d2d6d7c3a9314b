// Package chunks expands the three chunk events of AG-UI 1.0
// (TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and REASONING_MESSAGE_CHUNK) into the
// start/content/end events they abbreviate, as a consuming client must do
// before verification and before application code sees the stream.
//
// The expansion follows the reference client (@ag-ui/client 1.0.0,
// transformChunks) event for event:
//
//   - Chunks are assembled per lane. A lane is the chunk's subagentRunId; an
//     untagged chunk belongs to the parent agent's lane. A lane holds at most
//     one open chunk stream (a text message, a tool call or a reasoning
//     message).
//   - A chunk naming an id that is open in some lane continues it there; an id
//     open nowhere opens a new stream in the lane its tag names, after closing
//     whatever that lane held. An id-less chunk continues its tag's lane; an
//     id-less, untagged chunk continues the parent's stream of its kind, else
//     the only lane with one, and is ambiguous when several lanes have one.
//   - A chunk that opens emits *_START (a text message's role defaults to
//     "assistant"; the chunk's metadata is copied, its rawEvent is not). A
//     chunk with a delta or a rawEvent emits *_CONTENT (TOOL_CALL_ARGS),
//     carrying the chunk's metadata and rawEvent and its tag, else the
//     opener's. A continuation with neither that still carries metadata emits
//     a zero-delta content event, so the metadata reaches the message.
//   - Other events close lanes before they pass: explicit lifecycle events,
//     tool results, state events, CUSTOM and steps close their own lane;
//     RUN_STARTED, RUN_FINISHED, RUN_ERROR and MESSAGES_SNAPSHOT close every
//     lane, in the order the lanes opened; SUBAGENT_FINISHED and
//     SUBAGENT_ERROR close that subagent's lane; RAW, ACTIVITY_*,
//     REASONING_ENCRYPTED_VALUE and SUBAGENT_STARTED close nothing. The
//     synthetic *_END carries only the id and the opener's subagentRunId.
//   - A stream that ends with a lane open emits no *_END (the reference
//     discards it too); [Expander.Open] tells whether that happened.
//
// The fatal cases are reported as [*Error]: a first chunk without its id (or
// a first TOOL_CALL_CHUNK without toolCallName), a continuation restating
// role, name, toolCallName or parentMessageId with another value, a tag that
// disagrees with the lane holding the id, and an ambiguous id-less chunk.
package chunks

import (
	"errors"
	"iter"
	"strconv"

	"github.com/agui-go/sdk/agui"
)

// Kind classifies a chunk expansion failure.
type Kind uint8

const (
	// MissingID: the chunk would open a stream but names no id
	// ("First TEXT_MESSAGE_CHUNK must have a messageId" in the reference).
	MissingID Kind = iota + 1
	// MissingName: a TOOL_CALL_CHUNK would open a tool call but names no
	// toolCallName.
	MissingName
	// Conflict: a continuation restates a field of its opener (role or name of
	// a text message; toolCallName or parentMessageId of a tool call) with a
	// different value.
	Conflict
	// OwnerMismatch: the chunk names an id open in another subagent's lane.
	OwnerMismatch
	// Ambiguous: an id-less, untagged chunk while several subagent lanes have
	// an open stream of its kind.
	Ambiguous
)

var kindNames = [...]string{MissingID: "missing-id", MissingName: "missing-name", Conflict: "conflict", OwnerMismatch: "owner-mismatch", Ambiguous: "ambiguous"}

// String returns the kind's kebab-case name, such as "missing-id".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ErrChunk is matched (errors.Is) by every *Error.
var ErrChunk = errors.New("chunks: chunk stream cannot be expanded")

// Error reports a chunk the expansion cannot turn into valid events.
type Error struct {
	Kind  Kind
	Event agui.EventType // the chunk's type
	ID    string         // the entity id involved; "" when the chunk names none
	// Field, Got and Want describe a Conflict: the restated field
	// ("role", "name", "toolCallName" or "parentMessageId"), the chunk's value
	// and the opener's. Want is "" with WantAbsent set when the opener had none.
	Field      string
	Got, Want  string
	WantAbsent bool
	// Owner is the lane holding the id (OwnerMismatch), Tag the chunk's
	// subagentRunId; OwnerParent says the lane is the parent agent's.
	Owner       string
	OwnerParent bool
	Tag         string
	// Lanes is how many lanes hold an open stream (Ambiguous).
	Lanes int
}

// Error describes the failure in one sentence, prefixed with "chunks: "
// and the chunk's type.
func (e *Error) Error() string {
	return "chunks: " + string(e.Event) + " " + e.Reason()
}

// Reason is the sentence of Error without the prefix, such as
// `cannot open tool call "c1" without a toolCallName`.
func (e *Error) Reason() string {
	what := noun(e.Event)
	switch e.Kind {
	case MissingID:
		return "cannot open a " + what + " without a " + idField(e.Event) + ", and no " + what + " chunk stream is open for it to continue"
	case MissingName:
		return "cannot open tool call " + strconv.Quote(e.ID) + " without a toolCallName"
	case Conflict:
		want := "none"
		if !e.WantAbsent {
			want = strconv.Quote(e.Want)
		}
		return "restates " + e.Field + " " + strconv.Quote(e.Got) + " for " + what + " " + strconv.Quote(e.ID) + ", whose opener established " + want
	case OwnerMismatch:
		return "for " + what + " " + strconv.Quote(e.ID) + " is attributed to subagent " + strconv.Quote(e.Tag) + ", but the " + what + " is open in the lane of " + laneName(e.Owner, e.OwnerParent)
	case Ambiguous:
		return "names neither a " + idField(e.Event) + " nor a subagentRunId, and " + strconv.Itoa(e.Lanes) + " subagent lanes have an open " + what + "; attribute the chunk"
	}
	return e.Kind.String()
}

// Is reports whether target is ErrChunk.
func (e *Error) Is(target error) bool { return target == ErrChunk }

func laneName(owner string, parent bool) string {
	if parent {
		return "the parent agent"
	}
	return "subagent " + strconv.Quote(owner)
}

func noun(t agui.EventType) string {
	switch t { //agui:nonexhaustive only the chunk types name an entity here
	case agui.EventTypeToolCallChunk:
		return "tool call"
	case agui.EventTypeReasoningMessageChunk:
		return "reasoning message"
	}
	return "text message"
}

func idField(t agui.EventType) string {
	if t == agui.EventTypeToolCallChunk {
		return "toolCallId"
	}
	return "messageId"
}

// streamKind is what a lane is assembling.
type streamKind uint8

const (
	kindText streamKind = iota + 1
	kindTool
	kindReasoning
)

// laneKey names a lane: a subagent (tagged) or the parent agent.
type laneKey struct {
	tag    string
	tagged bool
}

// lane is one pending chunk stream.
type lane struct {
	key  laneKey
	kind streamKind
	id   string
	// text: the role and name the opener established.
	role agui.TextMessageRole
	name *string
	// tool: the name and parent message the opener established.
	toolName      string
	parentMessage *string
	// the opener's subagentRunId (nil = absent).
	tag *string
}

// Expander expands chunk events. The zero value is ready; an Expander is
// for one stream and not safe for concurrent use.
type Expander struct {
	lanes []lane // in the order they opened
}

// Open reports whether a lane holds an open chunk stream. At the end of a
// stream the reference client drops such a stream without closing it; a
// caller that wants to know can ask here.
func (x *Expander) Open() bool { return len(x.lanes) > 0 }

// Reset forgets every open chunk stream, as the reference does when a stream
// ends.
func (x *Expander) Reset() { x.lanes = x.lanes[:0] }

// PassesThrough reports whether Expand would return ev alone and change
// nothing: ev is no chunk and no lane is open for it to close. A consumer
// can then hand ev on directly, without a slice to collect it in.
func (x *Expander) PassesThrough(ev agui.Event) bool {
	if len(x.lanes) > 0 {
		return false
	}
	switch ev.(type) { //agui:nonexhaustive only chunks expand
	case *agui.TextMessageChunk, *agui.ToolCallChunk, *agui.ReasoningMessageChunk:
		return false
	}
	return true
}

// Expand appends to dst what ev becomes and returns the extended slice: for
// a chunk, the synthesized events; for any other event, the synthetic ends
// of the lanes it closes followed by ev itself. Synthesized events are newly
// allocated; ev is passed on unchanged. On error nothing is appended and the
// Expander is left as it was before the call, except that a lane the chunk
// would have closed to open a new stream may already be closed.
func (x *Expander) Expand(dst []agui.Event, ev agui.Event) ([]agui.Event, error) {
	switch e := ev.(type) {
	case *agui.TextMessageChunk:
		return x.text(dst, e)
	case *agui.ToolCallChunk:
		return x.tool(dst, e)
	case *agui.ReasoningMessageChunk:
		return x.reasoning(dst, e)

	// Explicit events of a producer close its own lane.
	case *agui.TextMessageStart:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.TextMessageContent:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.TextMessageEnd:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.ToolCallStart:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.ToolCallArgs:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.ToolCallEnd:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.ToolCallResult:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.StateSnapshot:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.StateDelta:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.Custom:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.StepStarted:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.StepFinished:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.ReasoningStart:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.ReasoningMessageStart:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.ReasoningMessageContent:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.ReasoningMessageEnd:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))
	case *agui.ReasoningEnd:
		dst = x.closeLane(dst, keyOf(e.SubagentRunID))

	// Run-level events close every lane.
	case *agui.RunStarted, *agui.RunFinished, *agui.RunError, *agui.MessagesSnapshot:
		dst = x.closeAll(dst)

	// A subagent's end closes its lane.
	case *agui.SubagentFinished:
		dst = x.closeLane(dst, laneKey{e.SubagentRunID, true})
	case *agui.SubagentError:
		dst = x.closeLane(dst, laneKey{e.SubagentRunID, true})

	// These pass through without closing anything.
	case *agui.Raw, *agui.ActivitySnapshot, *agui.ActivityDelta, *agui.ReasoningEncryptedValue, *agui.SubagentStarted:
	}
	return append(dst, ev), nil
}

// All expands a stream. An error, from seq or from the expansion, is
// terminal: it is yielded once, never together with an event, and nothing
// follows it.
func All(seq iter.Seq2[agui.Event, error]) iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		var x Expander
		var buf []agui.Event
		for ev, err := range seq {
			if err != nil {
				yield(nil, err)
				return
			}
			buf, err = x.Expand(buf[:0], ev)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, out := range buf {
				if !yield(out, nil) {
					return
				}
			}
		}
	}
}

func keyOf(tag *string) laneKey {
	if tag == nil {
		return laneKey{}
	}
	return laneKey{*tag, true}
}

func (x *Expander) find(k laneKey) int {
	for i := range x.lanes {
		if x.lanes[i].key == k {
			return i
		}
	}
	return -1
}

// closeLane appends the synthetic end of k's open stream, if any, and
// removes the lane.
func (x *Expander) closeLane(dst []agui.Event, k laneKey) []agui.Event {
	i := x.find(k)
	if i < 0 {
		return dst
	}
	dst = append(dst, x.lanes[i].end())
	x.lanes = append(x.lanes[:i], x.lanes[i+1:]...)
	return dst
}

func (x *Expander) closeAll(dst []agui.Event) []agui.Event {
	for i := range x.lanes {
		dst = append(dst, x.lanes[i].end())
	}
	x.lanes = x.lanes[:0]
	return dst
}

func (l *lane) end() agui.Event {
	switch l.kind {
	case kindTool:
		return &agui.ToolCallEnd{ToolCallID: l.id, Attribution: agui.Attribution{SubagentRunID: l.tag}}
	case kindReasoning:
		return &agui.ReasoningMessageEnd{MessageID: l.id, Attribution: agui.Attribution{SubagentRunID: l.tag}}
	}
	return &agui.TextMessageEnd{MessageID: l.id, Attribution: agui.Attribution{SubagentRunID: l.tag}}
}

// resolve decides which lane a chunk of kind k belongs to, following the
// reference's resolveLane.
func (x *Expander) resolve(t agui.EventType, k streamKind, id, tag *string) (laneKey, error) {
	if id != nil {
		for i := range x.lanes {
			l := &x.lanes[i]
			if l.kind == k && l.id == *id {
				if tag != nil && (!l.key.tagged || l.key.tag != *tag) {
					return laneKey{}, &Error{Kind: OwnerMismatch, Event: t, ID: *id, Owner: l.key.tag, OwnerParent: !l.key.tagged, Tag: *tag}
				}
				return l.key, nil
			}
		}
		return keyOf(tag), nil
	}
	if tag != nil {
		return laneKey{*tag, true}, nil
	}
	if i := x.find(laneKey{}); i >= 0 && x.lanes[i].kind == k {
		return laneKey{}, nil
	}
	n, only := 0, -1
	for i := range x.lanes {
		if x.lanes[i].kind == k {
			n++
			only = i
		}
	}
	switch {
	case n == 1:
		return x.lanes[only].key, nil
	case n > 1:
		return laneKey{}, &Error{Kind: Ambiguous, Event: t, Lanes: n}
	}
	return laneKey{}, nil
}

// continuing returns the lane's stream when the chunk continues it: the lane
// holds a stream of kind k and the chunk names no id or the same id.
func (x *Expander) continuing(key laneKey, k streamKind, id *string) *lane {
	i := x.find(key)
	if i < 0 {
		return nil
	}
	l := &x.lanes[i]
	if l.kind != k || (id != nil && *id != l.id) {
		return nil
	}
	return l
}

// open closes key's lane and starts a new stream in it.
func (x *Expander) open(dst []agui.Event, l lane) []agui.Event {
	dst = x.closeLane(dst, l.key)
	x.lanes = append(x.lanes, l)
	return dst
}

func conflict(t agui.EventType, id, field string, got *string, want *string) error {
	if got == nil || (want != nil && *got == *want) {
		return nil
	}
	e := &Error{Kind: Conflict, Event: t, ID: id, Field: field, Got: *got}
	if want == nil {
		e.WantAbsent = true
	} else {
		e.Want = *want
	}
	return e
}

// contentTag is the tag a synthesized content event carries: the chunk's,
// else the opener's.
func contentTag(chunk, opener *string) *string {
	if chunk != nil {
		return chunk
	}
	return opener
}

func (x *Expander) text(dst []agui.Event, c *agui.TextMessageChunk) ([]agui.Event, error) {
	t := agui.EventTypeTextMessageChunk
	key, err := x.resolve(t, kindText, c.MessageID, c.SubagentRunID)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	l := x.continuing(key, kindText, c.MessageID)
	if l != nil {
		var role *string
		if c.Role != nil {
			role = (*string)(c.Role)
		}
		est := string(l.role)
		if err := conflict(t, l.id, "role", role, &est); err != nil {
			return dst, err
		}
		if err := conflict(t, l.id, "name", c.Name, l.name); err != nil {
			return dst, err
		}
	} else {
		if c.MessageID == nil {
			x.closeLane(nil, key)
			return dst, &Error{Kind: MissingID, Event: t}
		}
		role := agui.TextMessageRoleAssistant
		if c.Role != nil {
			role = *c.Role
		}
		dst = x.open(dst, lane{key: key, kind: kindText, id: *c.MessageID, role: role, name: c.Name, tag: c.SubagentRunID})
		l = &x.lanes[len(x.lanes)-1]
		start = len(dst)
		r := role
		dst = append(dst, &agui.TextMessageStart{
			EventBase:   agui.EventBase{Metadata: c.Metadata},
			MessageID:   l.id,
			Role:        &r,
			Name:        c.Name,
			Attribution: agui.Attribution{SubagentRunID: c.SubagentRunID},
		})
	}
	if c.Delta != nil || c.RawEvent != nil || (len(dst) == start && c.Metadata != nil) {
		var delta string
		if c.Delta != nil {
			delta = *c.Delta
		}
		dst = append(dst, &agui.TextMessageContent{
			EventBase:   agui.EventBase{Metadata: c.Metadata, RawEvent: c.RawEvent},
			MessageID:   l.id,
			Delta:       delta,
			Attribution: agui.Attribution{SubagentRunID: contentTag(c.SubagentRunID, l.tag)},
		})
	}
	return dst, nil
}

func (x *Expander) tool(dst []agui.Event, c *agui.ToolCallChunk) ([]agui.Event, error) {
	t := agui.EventTypeToolCallChunk
	key, err := x.resolve(t, kindTool, c.ToolCallID, c.SubagentRunID)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	l := x.continuing(key, kindTool, c.ToolCallID)
	if l != nil {
		if err := conflict(t, l.id, "toolCallName", c.ToolCallName, &l.toolName); err != nil {
			return dst, err
		}
		if err := conflict(t, l.id, "parentMessageId", c.ParentMessageID, l.parentMessage); err != nil {
			return dst, err
		}
	} else {
		if c.ToolCallID == nil {
			x.closeLane(nil, key)
			return dst, &Error{Kind: MissingID, Event: t}
		}
		if c.ToolCallName == nil {
			x.closeLane(nil, key)
			return dst, &Error{Kind: MissingName, Event: t, ID: *c.ToolCallID}
		}
		dst = x.open(dst, lane{key: key, kind: kindTool, id: *c.ToolCallID, toolName: *c.ToolCallName, parentMessage: c.ParentMessageID, tag: c.SubagentRunID})
		l = &x.lanes[len(x.lanes)-1]
		start = len(dst)
		dst = append(dst, &agui.ToolCallStart{
			EventBase:       agui.EventBase{Metadata: c.Metadata},
			ToolCallID:      l.id,
			ToolCallName:    l.toolName,
			ParentMessageID: c.ParentMessageID,
			Attribution:     agui.Attribution{SubagentRunID: c.SubagentRunID},
		})
	}
	if c.Delta != nil || c.RawEvent != nil || (len(dst) == start && c.Metadata != nil) {
		var delta string
		if c.Delta != nil {
			delta = *c.Delta
		}
		dst = append(dst, &agui.ToolCallArgs{
			EventBase:   agui.EventBase{Metadata: c.Metadata, RawEvent: c.RawEvent},
			ToolCallID:  l.id,
			Delta:       delta,
			Attribution: agui.Attribution{SubagentRunID: contentTag(c.SubagentRunID, l.tag)},
		})
	}
	return dst, nil
}

func (x *Expander) reasoning(dst []agui.Event, c *agui.ReasoningMessageChunk) ([]agui.Event, error) {
	t := agui.EventTypeReasoningMessageChunk
	key, err := x.resolve(t, kindReasoning, c.MessageID, c.SubagentRunID)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	l := x.continuing(key, kindReasoning, c.MessageID)
	if l == nil {
		if c.MessageID == nil {
			x.closeLane(nil, key)
			return dst, &Error{Kind: MissingID, Event: t}
		}
		dst = x.open(dst, lane{key: key, kind: kindReasoning, id: *c.MessageID, tag: c.SubagentRunID})
		l = &x.lanes[len(x.lanes)-1]
		start = len(dst)
		dst = append(dst, &agui.ReasoningMessageStart{
			EventBase:   agui.EventBase{Metadata: c.Metadata},
			MessageID:   l.id,
			Attribution: agui.Attribution{SubagentRunID: c.SubagentRunID},
		})
	}
	if c.Delta != nil || c.RawEvent != nil || (len(dst) == start && c.Metadata != nil) {
		var delta string
		if c.Delta != nil {
			delta = *c.Delta
		}
		dst = append(dst, &agui.ReasoningMessageContent{
			EventBase:   agui.EventBase{Metadata: c.Metadata, RawEvent: c.RawEvent},
			MessageID:   l.id,
			Delta:       delta,
			Attribution: agui.Attribution{SubagentRunID: contentTag(c.SubagentRunID, l.tag)},
		})
	}
	return dst, nil
}
