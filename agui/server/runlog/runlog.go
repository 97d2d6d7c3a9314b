// Package runlog holds the run log behind durable runs: a per-run,
// append-only log of encoded events numbered 1, 2, 3, … that outlives the
// connection that started the run, so that a client can reattach, resume
// after the last event it saw, and cancel a run wherever it executes.
//
// A [Log] is shared by every replica that serves the same agent. The replica
// that runs a run holds its [Writer] (the lease); any replica can read the run
// ([Log.Read]), ask about it ([Log.Info]) or cancel it ([Log.Cancel]). Every
// run's log ends with exactly one terminal event, after which nothing is
// appended.
//
// [Memory] is the in-process implementation; other backends (NATS JetStream)
// live in modules of their own so that this one depends on nothing.
package runlog

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"iter"
	"time"
)

// Errors of the log. Callers tell them apart with errors.Is.
var (
	// ErrNotFound: the log never had this run, or forgot it so long ago
	// that it cannot tell (HTTP 404).
	ErrNotFound = errors.New("runlog: unknown run")
	// ErrExpired: the run existed but its log is gone, or the part asked
	// for was dropped by retention (HTTP 410).
	ErrExpired = errors.New("runlog: run log expired")
	// ErrEnded: the run already has its terminal event; nothing may be
	// appended and there is nothing to cancel (HTTP 409).
	ErrEnded = errors.New("runlog: run already ended")
	// ErrExists: a run with this id was already started (HTTP 409).
	ErrExists = errors.New("runlog: run already exists")
	// ErrFuture: a read asked to start after a sequence the run has not
	// reached and, the run being over, never will (HTTP 400).
	ErrFuture = errors.New("runlog: sequence beyond the end of the run")
	// ErrLeaseLost: the writer no longer owns the run (another replica
	// declared it lost).
	ErrLeaseLost = errors.New("runlog: lease lost")
	// ErrUnavailable: the backend could not be reached for longer than a
	// run or a reader waits out an outage (HTTP 503). A writer that fails
	// with it ends its run with RUN_ERROR code RUN_LOG_UNAVAILABLE once the
	// backend is back; a reader that fails with it may be tried again.
	ErrUnavailable = errors.New("runlog: run log unavailable")
)

// Info describes a run.
type Info struct {
	ThreadID string
	RunID    string
	// Owner names the replica that runs it (its lease holder).
	Owner string
	// First is the oldest sequence still kept (retention drops older
	// ones; 1 while nothing was dropped) and Last the sequence of the last
	// event appended (0: none yet).
	First, Last uint64
	// Ended is set once the terminal event is in the log.
	Ended bool
	// Started and EndedAt are when the run was registered and ended.
	Started, EndedAt time.Time
}

// Entry is one event of a run's log: its sequence and its encoding (the
// event's JSON). Data belongs to the reader: it stays valid after the
// iteration that yielded it.
type Entry struct {
	Seq      uint64
	Data     []byte
	Terminal bool
}

// Log is a shared store of run logs.
type Log interface {
	// Start registers a new live run owned by info.Owner and returns its
	// writer, which holds the run's lease until it is closed. A run id
	// already known fails with ErrExists.
	Start(ctx context.Context, info Info) (Writer, error)
	// Info describes a run: ErrNotFound or ErrExpired when there is none.
	Info(ctx context.Context, runID string) (Info, error)
	// Read yields the run's entries with a sequence greater than after, in
	// order, then follows the run live until its terminal entry (or until
	// ctx ends, which ends the sequence with ctx's error). It fails at once
	// with ErrNotFound or ErrExpired for a run it does not have, ErrExpired
	// when retention already dropped entries after `after`, and ErrFuture
	// when after is beyond the end of a run that ended. An entry's Data is
	// valid until the sequence goes on: a reader that keeps it copies it.
	Read(ctx context.Context, runID string, after uint64) iter.Seq2[Entry, error]
	// Cancel asks the owner of a live run to cancel it with reason; it
	// returns once the request is on its way (the owner sees it through
	// its Writer's Cancelled channel). ErrEnded for a run that ended.
	Cancel(ctx context.Context, runID, reason string) error
}

// Writer appends one live run's events. Its methods are called from one
// goroutine at a time (the run's emitter serialises them).
type Writer interface {
	// Append adds one encoded event and returns its sequence. data is
	// copied: the caller may reuse it. terminal marks the run's last
	// event; anything appended after it fails with ErrEnded.
	Append(data []byte, terminal bool) (uint64, error)
	// Cancelled is closed when someone asked, through the log, for the run
	// to be cancelled; CancelReason then says why.
	Cancelled() <-chan struct{}
	CancelReason() string
	// Close releases the lease. A writer closed before its terminal event
	// leaves the run to be declared lost by the backend.
	Close() error
}

// RemoteReaders is implemented by a [Writer] whose log is shared by
// replicas and can tell how many readers follow the run through the other
// replicas ([Log.Read] there). The server counts the readers it serves
// itself; with these it does not cancel a detached run (DurableConfig.Detach in
// package server) that a client follows elsewhere.
type RemoteReaders interface {
	RemoteReaders() int
}

// Visible is implemented by a [Writer] whose Append returns only once every
// reader can read the event ([Memory]'s appends are in the log when they
// return; a backend that acknowledges appends later does not implement
// it, or reports false). The server then streams a run to the client that
// started it straight from the appends, instead of reading each event back.
type Visible interface {
	AppendsVisible() bool
}

// NewRunID returns a fresh run id with 128 bits from crypto/rand, for
// servers that mint run ids: knowing one id tells nothing about another.
func NewRunID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b[:])
}
