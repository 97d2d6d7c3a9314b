package natslog

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// ends returns a run's first and last messages still in the stream (both
// nil when it has none).
func (l *Log) ends(ctx context.Context, runID string) (first, last *jetstream.RawStreamMsg, err error) {
	last, err = l.last(ctx, runID)
	if err != nil || last == nil {
		return nil, nil, err
	}
	first, err = l.stream.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(l.evSubject(runID)))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		// Retention dropped the whole run between the two requests.
		return nil, nil, nil
	}
	return first, last, err
}

// maxProbes bounds seek's search; it needs about log2 of the stream's
// length, so 64 is never reached by a stream that behaves.
const maxProbes = 64

// seek returns the stream sequence of the run's message number want, which
// lies between first and last (inclusive). Every run has a subject of its
// own and numbers its messages without gaps, but runs share the stream, so
// the stream sequences of one run have holes where other runs appended.
// Message number n therefore sits at least (n - its number) stream
// sequences after a message numbered lower, and at least (its number - n)
// before one numbered higher: each probe (a direct get of the run's first
// message at or after a stream sequence) narrows the range from both sides,
// and a run that had the stream to itself is found by the first probe.
func (l *Log) seek(ctx context.Context, runID string, first, last *jetstream.RawStreamMsg, want uint64) (uint64, error) {
	q0, qn := seqOf(first.Header), seqOf(last.Header)
	if want < q0 || want > qn {
		return 0, fmt.Errorf("natslog: run %q: message %d is outside %d..%d", runID, want, q0, qn)
	}
	lo, hi := first.Sequence+(want-q0), last.Sequence-(qn-want)
	subject := l.evSubject(runID)
	for range maxProbes {
		if lo > hi {
			break
		}
		probe := lo + (hi-lo)/2
		l.probes.Add(1)
		msg, err := l.stream.GetMsg(ctx, probe, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return 0, fmt.Errorf("%w: run %q lost messages while it was read", runlog.ErrExpired, runID)
		}
		if err != nil {
			return 0, err
		}
		switch q := seqOf(msg.Header); {
		case q == want:
			return msg.Sequence, nil
		case q < want:
			lo = max(lo, msg.Sequence+(want-q))
		default:
			// msg is the first of the run at or after probe, so the one
			// wanted is before probe.
			hi = min(hi, probe-1, msg.Sequence-(q-want))
		}
	}
	return 0, fmt.Errorf("natslog: run %q: message %d not found between stream sequences %d and %d", runID, want, first.Sequence, last.Sequence)
}
