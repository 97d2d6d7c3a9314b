package conversation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui"
)

// InputOptions are the per-run parts of the next RunAgentInput; the rest
// (thread, messages, state) comes from the conversation.
type InputOptions struct {
	ThreadID       string // default: the conversation's thread, else a new UUID v4
	RunID          string // default: a new UUID v4
	ParentRunID    *string
	Tools          []agui.Tool     // default []
	Context        []agui.Context  // default []
	ForwardedProps json.RawMessage // default {}
	// Resume answers the pending interrupts. When there are any, it must
	// answer every one of them, once each, and nothing else.
	Resume []agui.ResumeEntry
	// Now is the time interrupt expiry is judged at (default time.Now()).
	Now time.Time
}

// NextInput builds the RunAgentInput of the next run on this conversation,
// as the reference's prepareRunAgentInput does (E.4): the thread id, a run
// id, protocolVersion "1.0", a copy of the state, the messages without
// activity messages (those are the UI's, not the agent's), tools, context
// and forwardedProps defaulting to empty, and resume when given.
//
// Version shims for older peers (maxProtocolVersion) are the client's: it
// removes protocolVersion, flattens content or strips subagent attribution
// on the returned input as the era requires.
//
// The resume entries are checked first (E.5), and the input is refused,
// before anything is sent, with a *ResumeError when: interrupts are pending
// on another thread; an entry answers no pending interrupt (a stale resume)
// or answers one twice; a pending interrupt has no entry; or a pending
// interrupt expired and its entry does not cancel it.
//
// NextInput marks the run boundary for NewMessages.
func (c *Conversation) NextInput(opts InputOptions) (*agui.RunAgentInput, error) {
	c.init()
	thread := opts.ThreadID
	if thread == "" {
		thread = c.thread
	}
	if thread == "" {
		thread = agui.NewID()
	}
	if err := c.checkResume(thread, opts.Resume, opts.Now); err != nil {
		return nil, err
	}
	c.thread = thread
	in := &agui.RunAgentInput{
		ThreadID:        thread,
		RunID:           opts.RunID,
		ProtocolVersion: new(agui.ProtocolVersion),
		ParentRunID:     opts.ParentRunID,
		State:           bytes.Clone(c.state),
		Tools:           opts.Tools,
		Context:         opts.Context,
		ForwardedProps:  opts.ForwardedProps,
	}
	if in.RunID == "" {
		in.RunID = agui.NewID()
	}
	if in.Tools == nil {
		in.Tools = []agui.Tool{}
	}
	if in.Context == nil {
		in.Context = []agui.Context{}
	}
	if in.ForwardedProps == nil {
		in.ForwardedProps = json.RawMessage(`{}`)
	}
	if opts.Resume != nil {
		in.Resume = slices.Clone(opts.Resume)
	}
	c.flush()
	in.Messages = make([]agui.Message, 0, len(c.entries))
	for _, e := range c.entries {
		if roleOf(e.msg) != agui.RoleActivity {
			in.Messages = append(in.Messages, cloneMessage(e.msg))
		}
	}
	c.before = c.ids()
	return in, nil
}

// ResumeErrorKind says why a resume was refused.
type ResumeErrorKind uint8

const (
	// Unanswered: pending interrupts have no resume entry.
	Unanswered ResumeErrorKind = iota + 1
	// Stale: entries name interrupts that are not pending (answered
	// already, never raised, or no interrupt is pending at all).
	Stale
	// Duplicate: an interrupt is answered more than once.
	Duplicate
	// Expired: a pending interrupt expired and its entry is not a
	// cancellation.
	Expired
	// CrossThread: the pending interrupts belong to another thread.
	CrossThread
)

// ErrResume is matched (errors.Is) by every *ResumeError.
var ErrResume = errors.New("conversation: resume refused")

// ResumeError refuses a resume before the run is sent.
type ResumeError struct {
	Kind ResumeErrorKind
	// IDs are the interrupts concerned, in the order of the pending list
	// (Unanswered, Expired) or of the entries (Stale, Duplicate).
	IDs []string
	// PendingThread is the thread the pending interrupts belong to;
	// Thread the one asked for (CrossThread).
	PendingThread, Thread string
	// ExpiresAt, for Expired: the first expired interrupt's expiresAt.
	ExpiresAt string
}

func (e *ResumeError) Error() string {
	switch e.Kind {
	case Unanswered:
		return fmt.Sprintf("Thread has %d pending interrupt(s) not addressed by resume: %s", len(e.IDs), strings.Join(e.IDs, ", "))
	case Stale:
		return "resume entries reference unknown interrupt ids: " + strings.Join(e.IDs, ", ")
	case Duplicate:
		return "resume answers interrupts more than once: " + strings.Join(e.IDs, ", ")
	case Expired:
		return fmt.Sprintf("Interrupt %s expired at %s and can no longer be answered. Cancel it to continue the thread.", e.IDs[0], e.ExpiresAt)
	case CrossThread:
		return fmt.Sprintf("the pending interrupts belong to thread %q, not %q", e.PendingThread, e.Thread)
	}
	return ErrResume.Error()
}

// Is makes errors.Is(err, ErrResume) hold.
func (e *ResumeError) Is(target error) bool { return target == ErrResume }

func (c *Conversation) checkResume(thread string, resume []agui.ResumeEntry, now time.Time) error {
	pending := c.interrupts
	if len(pending) > 0 && thread != c.intThread {
		return &ResumeError{Kind: CrossThread, PendingThread: c.intThread, Thread: thread}
	}
	isPending := func(id string) bool {
		return slices.ContainsFunc(pending, func(in agui.Interrupt) bool { return in.ID == id })
	}
	var stale, dup []string
	answers := make(map[string]agui.ResumeEntry, len(resume))
	for _, r := range resume {
		if !isPending(r.InterruptID) {
			stale = append(stale, r.InterruptID)
		} else if _, seen := answers[r.InterruptID]; seen {
			dup = append(dup, r.InterruptID)
		}
		answers[r.InterruptID] = r
	}
	if stale != nil {
		return &ResumeError{Kind: Stale, IDs: stale}
	}
	if dup != nil {
		return &ResumeError{Kind: Duplicate, IDs: dup}
	}
	var missing []string
	for _, in := range pending {
		if _, ok := answers[in.ID]; !ok {
			missing = append(missing, in.ID)
		}
	}
	if missing != nil {
		return &ResumeError{Kind: Unanswered, IDs: missing}
	}
	if now.IsZero() {
		now = time.Now()
	}
	for _, in := range pending {
		if in.ExpiresAt == nil || answers[in.ID].Status == agui.ResumeStatusCancelled {
			continue
		}
		if at, ok := parseExpiry(*in.ExpiresAt); ok && !at.After(now) {
			return &ResumeError{Kind: Expired, IDs: []string{in.ID}, ExpiresAt: *in.ExpiresAt}
		}
	}
	return nil
}

// parseExpiry reads expiresAt, conventionally ISO 8601. A value that does
// not parse never expires (JavaScript's Date gives NaN, and NaN <= now is
// false).
func parseExpiry(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
