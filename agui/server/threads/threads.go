// Package threads holds the thread store behind the server's thread routes
// (server.WithThreads): for each thread, the record a reloaded page needs to
// get its conversation back. The runs of the thread in order, the
// conversation as package agui/conversation materialises it (messages with
// their streamed deltas folded in, never the raw deltas), the last state,
// the open interrupts and the run that is live now, if any.
//
// The server writes the record; an agent author writes no code for it. The
// record is what the reducer makes of the runs' events, the same reducer a
// client runs, so a server and its clients agree on what a thread holds.
//
// [Memory] is the bounded in-process store and the default. A store of
// another backend implements [Store] in a package of its own, as the run
// logs do (package runlog), so that this one depends on nothing but the
// protocol types.
package threads

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/agui-go/sdk/agui"
)

// Errors of a store. Callers tell them apart with errors.Is.
var (
	// ErrNotFound: the store never had this thread, or forgot it so long
	// ago that it cannot tell (HTTP 404).
	ErrNotFound = errors.New("threads: unknown thread")
	// ErrExpired: the thread existed but its record is gone: its TTL
	// passed, or it was the least recently used one when the store was
	// full (HTTP 410).
	ErrExpired = errors.New("threads: thread expired")
)

// Outcome of a run in a thread's record: the names of the
// conversation.Status values, plus running for the live run.
const (
	OutcomeRunning     = "running"
	OutcomeSucceeded   = "succeeded"
	OutcomeInterrupted = "interrupted"
	OutcomeCancelled   = "cancelled"
	OutcomeFailed      = "failed"
	// OutcomeIncomplete: the run ended but the store could not read all of
	// its events (its run log dropped some before they were recorded); what
	// was read is in the conversation.
	OutcomeIncomplete = "incomplete"
)

// Run is one run of a thread.
type Run struct {
	RunID string `json:"runId"`
	// Started and Ended are when the server started it and when its
	// terminal event was recorded (zero while it runs).
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	// Outcome is one of the Outcome… constants.
	Outcome string `json:"outcome"`
	// Error and Code are the RUN_ERROR's message and code, for a run that
	// ended in one: a failed run (RUN_LOST for one whose replica went away
	// before it ended, and another replica, or the run log, ended it and
	// recorded it here), or a cancelled one that ended with code CANCELLED.
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
	// Usage is the terminal event's token usage, when it reported one.
	Usage []agui.TokenUsage `json:"usage,omitempty"`
}

// Record is what a store keeps of one thread.
//
// A record handed out by a store is the caller's: its slices are copies,
// but the messages, interrupts and raw JSON they hold may be shared with the
// store and are read-only.
type Record struct {
	ThreadID string
	// Messages is the conversation after the last run that ended, in
	// order, as the reducer (package agui/conversation) left it.
	Messages []agui.Message
	// State is the state after the last run that ended ({} before any).
	State json.RawMessage
	// Interrupts are the open interrupts: those of the last run that ended
	// when it ended on an interrupt, else none.
	Interrupts []agui.Interrupt
	// Runs are the thread's runs, oldest first.
	Runs []Run
	// LiveRunID is the run going on now ("" when none). Its events are in
	// the run log, not yet in Messages.
	LiveRunID string
	// DroppedMessages and DroppedRuns count what the store's bounds dropped
	// from this thread, oldest first: the marker that a thread over its
	// bound kept its newest messages (and runs) only. Both are 0 for a
	// thread that was never trimmed.
	DroppedMessages int
	DroppedRuns     int
	// Ended counts the thread's runs that ended, dropped ones included: it
	// grows by one with each, so two reads of a record with the same Ended
	// and no live run saw the same conversation.
	Ended int
	// Updated is when the record last changed.
	Updated time.Time
}

// Clone returns a copy of r whose slices are its own (their elements are
// shared, read-only).
func (r Record) Clone() Record {
	r.Messages = slices.Clone(r.Messages)
	r.State = slices.Clone(r.State)
	r.Interrupts = slices.Clone(r.Interrupts)
	r.Runs = slices.Clone(r.Runs)
	return r
}

// Run returns the run with this id, and whether the record holds it.
func (r *Record) Run(runID string) (*Run, bool) {
	for i := len(r.Runs) - 1; i >= 0; i-- {
		if r.Runs[i].RunID == runID {
			return &r.Runs[i], true
		}
	}
	return nil, false
}

// Store keeps thread records. It is safe for concurrent use, and shared by
// every handler (and, for a shared backend, every replica) serving the same
// agent.
type Store interface {
	// Get returns the thread's record: ErrNotFound or ErrExpired when there
	// is none.
	Get(ctx context.Context, threadID string) (Record, error)
	// Update changes the thread's record with fn, atomically with respect
	// to other updates of the thread: fn gets the record as it stands (a
	// new one, ThreadID set, when the store has none, expired or not) and
	// changes it in place. The store then applies its bounds ([Bounds]).
	// An error is the backend's; bounds never fail an update.
	//
	// A shared backend may call fn more than once: when another replica
	// changed the record first, fn is called again on the record as that
	// update left it. So fn only changes the record it is given, and
	// derives every change from it.
	Update(ctx context.Context, threadID string, fn func(*Record)) error
}
