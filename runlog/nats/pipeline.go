package natslog

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// pipe is the writer's queue when Options.Window is set: Append queues the
// event and returns, up to window events ahead of the log, and one goroutine
// publishes what is queued asynchronously, each message expecting the run's
// fence (see fence) rather than the run's previous message. The server
// stores them in the order they were sent, one connection's messages in
// order, so the run's order holds without waiting for an acknowledgement
// per event; and a replica that takes the run moves the fence first, after
// which none of the owner's messages lands: exactly one end.
//
// One failure can break the order: a message lost with a connection (in
// the socket when it broke) while later ones, still in nats.go's buffer,
// are sent again on the next connection and land. The pipe repairs it:
// when a publish fails it waits for every acknowledgement outstanding, then
// publishes again, in order and one at a time, every message from the one
// that failed on. A message that had landed is then in the log twice, and
// one after a hole out of place; readers take each number once, in order
// (see Read), so they see the run as it was appended.
type pipe struct {
	w      *writer
	window int
	// fence is the stream sequence of the run's fence message, which every
	// event expects to be the last on fenceSubject.
	fence        uint64
	fenceSubject string

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []queued // appended, not yet published
	queuedN int      // events in queue
	pending int      // events published, not yet acknowledged
	closing bool
	fenced  bool // fenceOff done (only the writer's goroutine)
	// repaired is set once a publish went unanswered or failed (see
	// unsettled).
	repaired bool
	err      error // the first failure; sticky
	done     chan struct{}
}

func newPipe(w *writer, window int, fence uint64) *pipe {
	p := &pipe{w: w, window: window, fence: fence, fenceSubject: w.l.fenceSubject(w.runID), done: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	go p.run()
	return p
}

// append queues one event (blocking while window events are not yet in the
// log) and, for the terminal event, waits until everything is in.
func (p *pipe) append(data []byte, terminal bool) (uint64, error) {
	w := p.w
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.queuedN+p.pending >= p.window && p.err == nil {
		p.cond.Wait()
	}
	if p.err != nil {
		return 0, p.err
	}
	if terminal {
		// The end is not pipelined: once everything before it is in,
		// the fence is moved and the end appended after the run's last
		// message (fenceOff), so that no copy of an earlier message, one
		// nats.go still holds, lands after it.
		for (p.queuedN > 0 || p.pending > 0) && p.err == nil {
			p.cond.Wait()
		}
		if p.err != nil {
			return 0, p.err
		}
		p.mu.Unlock()
		seq, err := w.endFenced(data, time.Now().Add(w.l.opts.MaxOutage))
		p.mu.Lock()
		if err != nil {
			p.err = err
			p.cond.Broadcast()
		}
		return seq, err
	}
	// Into the last message queued when it has room (see pack): it has
	// not gone yet, and goes with this event.
	if k := len(p.queue); k > 0 {
		q := &p.queue[k-1]
		if buf, ok := pack(q.msg.Data, q.n, data); ok {
			q.msg.Data = buf
			q.n++
			p.queuedN++
			w.seq++
			return w.seq, nil // the sender is awake already: it has a queue
		}
	}
	msg := w.message(w.seq+1, append([]byte(nil), data...), false) // sent later: the caller may reuse data
	p.queue = append(p.queue, queued{msg, 1})
	p.queuedN++
	w.seq++
	p.cond.Broadcast()
	return w.seq, nil
}

// queued is a message in the pipe's queue and the number of events it
// holds.
type queued struct {
	msg *nats.Msg
	n   int
}

// fenceOff moves the run's fence, so that none of the pipe's messages can
// land any more: a copy nats.go still holds of one (in its reconnect
// buffer) is refused. Another replica's fence is ErrLeaseLost.
func (p *pipe) fenceOff(giveUp time.Time) error {
	if p.fenced {
		return nil
	}
	msg := nats.NewMsg(p.fenceSubject)
	msg.Header.Set(hdrWriter, p.w.id+".fence")
	msg.Data = []byte(p.w.owner)
	_, err := p.w.l.publishFenced(msg, p.fence, p.fenceSubject, giveUp)
	if errIsLost(err) {
		// Moved, but perhaps by an earlier try of this very message, sent
		// from nats.go's reconnect buffer once the connection was back.
		if last, lerr := p.w.l.lastOf(context.Background(), p.fenceSubject); lerr == nil && sameMessage(last, msg.Header) {
			err = nil
		}
	}
	if err == nil {
		p.fenced = true
	}
	return err
}

// failed reports the pipe's failure, if any.
func (p *pipe) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// close sends what is queued and stops the sending goroutine.
func (p *pipe) close() {
	p.mu.Lock()
	p.closing = true
	p.cond.Broadcast()
	p.mu.Unlock()
	<-p.done
}

// errNoAck is a publish whose acknowledgement did not come in time.
var errNoAck = errors.New("natslog: no acknowledgement in time")

// flight is a published message and its acknowledgement to come.
type flight struct {
	msg *nats.Msg
	ack jetstream.PubAckFuture
}

// run publishes what is queued and takes the acknowledgements in order,
// until close.
func (p *pipe) run() {
	defer close(p.done)
	var out []flight // published, oldest first (only this goroutine)
	for {
		p.mu.Lock()
		for len(p.queue) == 0 && len(out) == 0 && !p.closing && p.err == nil {
			p.cond.Wait()
		}
		if p.err != nil || len(p.queue) == 0 && len(out) == 0 {
			p.mu.Unlock()
			return // failed, or closing with nothing left
		}
		batch := p.queue
		p.queue = nil
		p.pending += p.queuedN
		p.queuedN = 0
		for _, q := range batch {
			if q.n > 1 {
				q.msg.Header[hdrCount] = []string{strconv.Itoa(q.n)}
			}
		}
		p.mu.Unlock()

		var unsent []*nats.Msg
		for i, q := range batch {
			msg := q.msg
			// No retries of nats.go's own (on "no responders" it sends the
			// message again later, after whatever this pipe sent since):
			// a failure is repaired here, in order.
			ack, err := p.w.l.js.PublishMsgAsync(msg, jetstream.WithExpectLastSequenceForSubject(p.fence, p.fenceSubject), jetstream.WithRetryAttempts(0))
			if err != nil {
				for _, q := range batch[i:] { // repaired below, with whatever is out
					unsent = append(unsent, q.msg)
				}
				break
			}
			out = append(out, flight{msg, ack})
		}
		var failure error
		out, failure = p.take(out)
		if failure == nil && len(unsent) == 0 {
			continue
		}
		p.mu.Lock()
		p.repaired = true
		p.mu.Unlock()
		if err := p.repair(out, unsent, failure); err != nil {
			p.fail(err)
			return
		}
		out = nil
	}
}

// take takes the acknowledgements of out in order, waiting for the oldest
// (at most the request timeout: a message nats.go holds while reconnecting
// has been seen to wait for its answer for as long as the outage lasted,
// past MaxOutage), then those already in; it returns what is left and the
// failure that stopped it.
func (p *pipe) take(out []flight) ([]flight, error) {
	t := time.NewTimer(p.w.l.opts.RequestTimeout)
	defer t.Stop()
	for first := true; len(out) > 0; first = false {
		f := out[0]
		var ack *jetstream.PubAck
		var err error
		if first {
			select {
			case ack = <-f.ack.Ok():
			case err = <-f.ack.Err():
			case <-t.C:
				err = errNoAck // its answer, if any, is not waited for
			}
		} else {
			select {
			case ack = <-f.ack.Ok():
			case err = <-f.ack.Err():
			default:
				return out, nil // none in yet: go publish what queued meanwhile
			}
		}
		if err != nil {
			return out, err
		}
		out = out[1:]
		p.landed(f.msg, ack.Sequence)
	}
	return out, nil
}

// unsettled reports whether a publish of the pipe went unanswered or
// failed: copies of its messages may have landed past the last one
// acknowledged.
func (p *pipe) unsettled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.repaired || p.err != nil
}

// landed records that msg is in the log, at stream sequence at.
func (p *pipe) landed(msg *nats.Msg, at uint64) {
	p.mu.Lock()
	p.pending -= int(countOf(msg.Header))
	p.w.inLog, p.w.streamSeq = high(msg.Header), at
	if msg.Header.Get(hdrTerminal) != "" {
		p.w.endedInLog = true
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}

func (p *pipe) fail(err error) {
	p.mu.Lock()
	p.err, p.queue, p.queuedN = err, nil, 0
	p.cond.Broadcast()
	p.mu.Unlock()
}

// repair handles a failed publish: out are the messages published and not
// acknowledged (the failed one first), unsent those that could not be sent,
// and failure the first failure (nil when it was a send). Another replica's
// fence fails the run with ErrLeaseLost. Otherwise it waits for every
// acknowledgement outstanding, so that none arrives later, then publishes
// every message again in order, each acknowledged before the next, trying
// for up to Options.MaxOutage (then ErrUnavailable).
func (p *pipe) repair(out []flight, unsent []*nats.Msg, failure error) error {
	if wrongLast(failure) {
		return fmt.Errorf("%w: another replica took the run: %w", runlog.ErrLeaseLost, failure)
	}
	if failure != nil && permanent(failure) {
		return failure
	}
	var again []*nats.Msg
	wait := time.NewTimer(p.w.l.opts.RequestTimeout) // for all the answers out, at most
	defer wait.Stop()
	for i, f := range out {
		if f.ack != nil && (i > 0 || failure == nil) { // the failed one's answer is in already
			select {
			case <-f.ack.Ok():
			case err := <-f.ack.Err():
				if wrongLast(err) {
					return fmt.Errorf("%w: another replica took the run: %w", runlog.ErrLeaseLost, err)
				}
			case <-wait.C:
				// Unanswered: sent again below all the same. A copy that
				// lands later is one more duplicate, and none lands after
				// the run's end (fenceOff).
				for j := i; j < len(out); j++ {
					out[j].ack = nil
				}
			}
		}
		again = append(again, f.msg)
	}
	again = append(again, unsent...)
	giveUp := time.Now().Add(p.w.l.opts.MaxOutage)
	for _, msg := range again {
		at, err := p.w.l.publishFenced(msg, p.fence, p.fenceSubject, giveUp)
		if err != nil {
			return err
		}
		p.landed(msg, at)
	}
	return nil
}

// publishFenced publishes msg expecting the fence, acknowledged, trying
// again through an outage until giveUp (ErrUnavailable); a moved fence is
// ErrLeaseLost.
func (l *Log) publishFenced(msg *nats.Msg, fence uint64, fenceSubject string, giveUp time.Time) (uint64, error) {
	return l.publishRetrying(context.Background(), msg, jetstream.WithExpectLastSequenceForSubject(fence, fenceSubject), giveUp, func(err error) (uint64, bool, error) {
		return 0, false, fmt.Errorf("%w: another replica took the run: %w", runlog.ErrLeaseLost, err)
	})
}

// errIsLost reports whether err says another replica took the run.
func errIsLost(err error) bool { return errors.Is(err, runlog.ErrLeaseLost) }
