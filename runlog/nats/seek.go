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
// length at worst, so 64 is never reached by a stream that behaves.
const maxProbes = 64

// seek returns the stream sequence of the run's message that holds event
// number want, which lies between first and last (inclusive). Every run has
// a subject of its own and numbers its events without gaps, but runs share
// the stream, so the stream sequences of one run have holes where other
// runs appended, and a message may hold several events (see pack). Each
// probe is a direct get of the run's first message at or after a stream
// sequence, which narrows the range the message wanted lies in; the probes
// guess its place from the numbers at both ends of the range, every other
// one halving it, so that a run that had the stream to itself (one event a
// message) is found by the first probe, and any run within twice log2 of
// the stream's length.
func (l *Log) seek(ctx context.Context, runID string, first, last *jetstream.RawStreamMsg, want uint64) (uint64, error) {
	if want < seqOf(first.Header) || want > high(last.Header) {
		return 0, fmt.Errorf("natslog: run %q: event %d is outside %d..%d", runID, want, seqOf(first.Header), high(last.Header))
	}
	switch {
	case want <= high(first.Header):
		return first.Sequence, nil
	case want >= seqOf(last.Header):
		return last.Sequence, nil
	}
	// The message wanted lies after stream sequence lo, whose message ends
	// with event loN < want, and before hi, from which on the run's
	// messages start past want (at hiN or later).
	lo, loN := first.Sequence, high(first.Header)
	hi, hiN := last.Sequence, seqOf(last.Header)
	subject := l.evSubject(runID)
	for i := range maxProbes {
		if hi-lo < 2 {
			break
		}
		probe := lo + (hi-lo)/2
		if i%2 == 0 {
			// Where want would be if the run's events were spread evenly,
			// one a message, from loN+1 at lo+1 to hiN-1 at hi-1.
			probe = lo + 1
			if span := hiN - loN - 2; span > 0 {
				probe += (hi - lo - 2) * (want - loN - 1) / span
			}
		}
		probe = min(max(probe, lo+1), hi-1)
		l.probes.Add(1)
		msg, err := l.stream.GetMsg(ctx, probe, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return 0, fmt.Errorf("%w: run %q lost messages while it was read", runlog.ErrExpired, runID)
		}
		if err != nil {
			return 0, err
		}
		switch q := seqOf(msg.Header); {
		case q <= want && want <= high(msg.Header):
			return msg.Sequence, nil
		case q < want:
			lo, loN = msg.Sequence, high(msg.Header)
		default:
			// msg is the run's first message at or after probe, so the one
			// wanted is before probe.
			hi, hiN = probe, q
		}
	}
	return 0, fmt.Errorf("natslog: run %q: event %d not found between stream sequences %d and %d", runID, want, first.Sequence, last.Sequence)
}
