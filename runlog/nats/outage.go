package natslog

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// hdrWriter names the writer that appended a message: a random id per
// writer. When a publish is answered with "wrong last sequence", the run's
// last message tells whether an earlier try of this very publish landed
// (its acknowledgement lost with the connection) or another replica
// appended: only the first is the writer's own.
const hdrWriter = "Agui-Writer"

// defaultMaxOutage is Options.MaxOutage's default.
const defaultMaxOutage = time.Minute

// publishWaiting appends msg, which expects the run's last message at stream
// sequence expect, and returns its stream sequence. A failure that says
// nothing about the run (no answer, no responders, the connection away) is
// tried again, the same message with the same expectation, until giveUp;
// then it fails with runlog.ErrUnavailable. Trying again is safe: a try
// that lands makes every later try of the same message fail its
// expectation, and the run's last message tells that refusal from another
// replica's append (see refusal). ctx ends the waiting early (with
// ErrUnavailable).
func (l *Log) publishWaiting(ctx context.Context, msg *nats.Msg, expect uint64, giveUp time.Time) (uint64, error) {
	return l.publishRetrying(ctx, msg, jetstream.WithExpectLastSequencePerSubject(expect), giveUp, func(err error) (uint64, bool, error) {
		last, lerr := l.lastOf(ctx, msg.Subject)
		switch {
		case lerr != nil:
			return 0, true, lerr // the log cannot say now: try again
		case sameMessage(last, msg.Header):
			return last.Sequence, false, nil
		case last == nil && expect == 0, last != nil && last.Sequence == expect:
			// The log's last message is the one expected, yet the append
			// was refused: an earlier try of this very message, given up
			// on, is still on its way (a replicated stream checks an
			// expectation against what it has proposed, not only what it
			// has stored). Once it lands, trying again finds it.
			return 0, true, err
		}
		return 0, false, refusal(last, msg.Header, err)
	})
}

// publishRetrying publishes msg under the expectation expect, trying again
// while the failure says nothing about the run (no answer, no responders,
// the connection away), until giveUp or the end of ctx: then it fails with
// runlog.ErrUnavailable. A refusal of the expectation goes to refused,
// which tells what it was: msg itself, landed after all (its stream
// sequence), a failure, or again when it cannot tell yet.
func (l *Log) publishRetrying(ctx context.Context, msg *nats.Msg, expect jetstream.PublishOpt, giveUp time.Time,
	refused func(err error) (seq uint64, again bool, rerr error)) (uint64, error) {
	backoff := 50 * time.Millisecond
	for {
		pctx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
		ack, err := l.js.PublishMsg(pctx, msg, expect)
		cancel()
		switch {
		case err == nil:
			return ack.Sequence, nil
		case wrongLast(err):
			seq, again, rerr := refused(err)
			if !again {
				return seq, rerr
			}
			err = rerr
		case permanent(err):
			return 0, err
		}
		if l.nc.IsClosed() || ctx.Err() != nil || !time.Now().Before(giveUp) {
			return 0, fmt.Errorf("%w: the log did not acknowledge an append: %w", runlog.ErrUnavailable, err)
		}
		l.pause(ctx, backoff, giveUp)
		backoff = min(2*backoff, time.Second)
	}
}

// pause waits d, and while the connection is away until it is back (or
// until giveUp): a message published meanwhile would only wait in nats.go's
// reconnect buffer beside the earlier tries.
func (l *Log) pause(ctx context.Context, d time.Duration, giveUp time.Time) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if l.nc.IsConnected() || l.nc.IsClosed() || !time.Now().Before(giveUp) {
			return
		}
		t.Reset(50 * time.Millisecond)
	}
}

// lastOf returns the last message on subject (nil: none).
func (l *Log) lastOf(ctx context.Context, subject string) (*jetstream.RawStreamMsg, error) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
	defer cancel()
	last, err := l.stream.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	return last, err
}

// sameMessage reports whether last is the very message with header h: the
// writer header names the writer and one message of it (see
// writer.message), so that an event abandoned after an outage and the end
// appended in its place, both numbered alike, are told apart.
func sameMessage(last *jetstream.RawStreamMsg, h nats.Header) bool {
	return last != nil && last.Header.Get(hdrWriter) == h.Get(hdrWriter)
}

// writerOf is the writer part of a writer header ("<writer>.<message>").
func writerOf(h nats.Header) string {
	v := h.Get(hdrWriter)
	if i := strings.LastIndexByte(v, '.'); i >= 0 {
		return v[:i]
	}
	return v
}

// refusal is the error of an append, with header h, refused because the
// run's last message was not the one the writer expected:
//   - another writer's message: another replica took the run (ErrLeaseLost);
//   - the writer's own, numbered as far as h or one short: an append the
//     writer gave up on landed after all, once the connection came back
//     (aheadError: the writer goes on after it);
//   - the writer's own, numbered lower, or none at all: the log lost
//     messages it had acknowledged, a single nats-server killed before it
//     wrote them to disk (it writes asynchronously unless configured to
//     sync every write) (lostAcked).
func refusal(last *jetstream.RawStreamMsg, h nats.Header, err error) error {
	ours := last != nil && writerOf(last.Header) == writerOf(h)
	switch {
	case ours && high(last.Header)+1 >= seqOf(h):
		return &aheadError{seq: high(last.Header), streamSeq: last.Sequence, terminal: last.Header.Get(hdrTerminal) != ""}
	case ours:
		return &lostAcked{from: high(last.Header) + 1, streamSeq: last.Sequence}
	case last == nil && seqOf(h) > 1:
		return &lostAcked{from: 1}
	}
	return fmt.Errorf("%w: %w", runlog.ErrLeaseLost, err)
}

// aheadError is the failure of an append refused because an earlier append
// of the same writer, given up on, landed meanwhile: the run's last message
// is that one (number seq at stream sequence streamSeq; terminal when it
// was the run's end).
type aheadError struct {
	seq, streamSeq uint64
	terminal       bool
}

func (e *aheadError) Error() string {
	return fmt.Sprintf("natslog: an append given up on landed after all (message %d)", e.seq)
}

// Unwrap makes the failure an ErrUnavailable: the log failed the run.
func (e *aheadError) Unwrap() error { return runlog.ErrUnavailable }

// lostAcked is the failure of a writer whose log lost messages it had
// acknowledged, from message number from on; streamSeq is the stream
// sequence of the run's last message that is still there (0: none).
type lostAcked struct{ from, streamSeq uint64 }

func (e *lostAcked) Error() string {
	return fmt.Sprintf("natslog: the log lost the run's messages from number %d on, which it had acknowledged", e.from)
}

// Unwrap makes the failure an ErrUnavailable: the log failed the run.
func (e *lostAcked) Unwrap() error { return runlog.ErrUnavailable }

// unavailableEvent is the terminal event of a run its owner stopped because
// the log failed it (err): it stayed unreachable, or it lost events.
func (l *Log) unavailableEvent(err error) []byte {
	msg := fmt.Sprintf("the run log was unreachable for longer than %v; the run was stopped", l.opts.MaxOutage)
	var lost *lostAcked
	if errors.As(err, &lost) {
		msg = fmt.Sprintf("the run log lost events from %d on after acknowledging them (a NATS server stopped before it wrote them to disk); the run was stopped", lost.from)
	}
	return runlog.ErrorEvent(runlog.CodeRunLogUnavailable, msg)
}

// wrongLast reports whether JetStream refused a publish because the
// subject's last message was not the one expected.
func wrongLast(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && wrongLastCode(apiErr.ErrorCode)
}

// wrongLastCode reports whether a JetStream error code says "wrong last
// sequence": a replicated stream answers with a code of its own.
func wrongLastCode(c jetstream.ErrorCode) bool {
	return c == jetstream.JSErrCodeStreamWrongLastSequence || c == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}

// permanent reports whether a publish failed for a reason that trying again
// cannot mend: the server refused the message itself (too large, say),
// rather than being unreachable or between leaders (its 503s).
func permanent(err error) bool {
	if errors.Is(err, nats.ErrMaxPayload) || errors.Is(err, nats.ErrBadSubject) {
		return true
	}
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.Code != http.StatusServiceUnavailable
}
