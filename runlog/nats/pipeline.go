package natslog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// Headers of JetStream's atomic batch publish (nats-server 2.12+).
const (
	hdrBatchID     = "Nats-Batch-Id"
	hdrBatchSeq    = "Nats-Batch-Sequence"
	hdrBatchCommit = "Nats-Batch-Commit"
)

// maxBatch stays under the server's default limit on an atomic batch (1000
// messages).
const maxBatch = 500

// batchTimeout bounds the wait for a batch's acknowledgement.
const batchTimeout = 5 * time.Second

// pipe is the writer's queue when Options.Window is set. Append queues the
// event and returns; one goroutine sends what is queued as an atomic batch
// whose first message expects the run's last message to be the previous
// batch's last, which is the check a synchronous append makes, applied to
// the batch as a whole: it lands entirely after the run's previous event,
// or not at all (another replica appended meanwhile: ErrLeaseLost). While
// one batch is on its way the next one fills, so the emitter pays an
// acknowledgement per batch rather than per event.
type pipe struct {
	w      *writer
	window int

	mu       sync.Mutex
	cond     *sync.Cond
	queue    []*nats.Msg
	inflight bool
	closing  bool
	err      error // the first failure; sticky
	done     chan struct{}
}

func newPipe(w *writer, window int) *pipe {
	p := &pipe{w: w, window: window, done: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	go p.flush()
	return p
}

// append queues one event (blocking while the window is full) and, for the
// terminal event, waits until everything queued is in the log.
func (p *pipe) append(data []byte, terminal bool) (uint64, error) {
	w := p.w
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) >= p.window && p.err == nil {
		p.cond.Wait()
	}
	if p.err != nil {
		return 0, p.err
	}
	msg := w.message(w.seq+1, append([]byte(nil), data...), terminal) // sent later: the caller may reuse data
	p.queue = append(p.queue, msg)
	w.seq++
	seq := w.seq
	if terminal {
		w.ended = true
	}
	p.cond.Broadcast()
	if terminal {
		for (len(p.queue) > 0 || p.inflight) && p.err == nil {
			p.cond.Wait()
		}
		if p.err != nil {
			return 0, p.err
		}
	}
	return seq, nil
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

// flush sends batches until close.
func (p *pipe) flush() {
	defer close(p.done)
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for len(p.queue) == 0 && !p.closing {
			p.cond.Wait()
		}
		if len(p.queue) == 0 || p.err != nil {
			return // closing with nothing left, or nothing more can be sent
		}
		n := min(len(p.queue), maxBatch)
		batch := p.queue[:n:n]
		p.queue = append([]*nats.Msg(nil), p.queue[n:]...)
		p.inflight = true
		expect := p.w.streamSeq
		p.mu.Unlock()
		last, err := p.send(batch, expect)
		p.mu.Lock()
		p.inflight = false
		if err != nil {
			p.err, p.queue = err, nil
		} else {
			end := batch[len(batch)-1].Header
			p.w.streamSeq, p.w.inLog = last, seqOf(end)
			p.w.endedInLog = end.Get(hdrTerminal) != ""
		}
		p.cond.Broadcast()
		if err != nil {
			return
		}
	}
}

// batchAck is the server's answer to a batch's commit: a publish
// acknowledgement, or an error.
type batchAck struct {
	Seq   uint64 `json:"seq"`
	Count int    `json:"count"`
	Error *struct {
		Code        int    `json:"code"`
		ErrCode     uint16 `json:"err_code"`
		Description string `json:"description"`
	} `json:"error"`
}

// Error codes of a batch that stored nothing and may be sent again: the
// server refused to open it (too many batches in flight on the stream; the
// commit then finds it incomplete).
const (
	errCodeBatchIncomplete      = 10176
	errCodeBatchTooManyInflight = 10210
)

// send publishes batch as one atomic batch and returns the stream sequence
// of its last message. A batch the server had no room for stored nothing
// (atomic: all or nothing), so it is sent again, under a new id and with the
// same expectation, after a short backoff, until batchTimeout. A batch
// whose commit went unanswered (the connection away, a cluster between
// leaders) may or may not be in: the run's last message tells, and one
// that is not is sent again, for up to Options.MaxOutage.
func (p *pipe) send(batch []*nats.Msg, expect uint64) (uint64, error) {
	l := p.w.l
	giveUp := time.Now().Add(l.opts.MaxOutage)
	for {
		seq, err := p.sendUntilRoom(batch, expect)
		var unanswered *unansweredError
		if !errors.As(err, &unanswered) && !errors.Is(err, errWrongLast) {
			return seq, err
		}
		// Unanswered, or refused because the run's last message is not the
		// one expected: an earlier send of this batch may be in the log.
		seq, landed, lerr := p.landed(batch, expect)
		switch {
		case lerr == nil && landed:
			return seq, nil
		case errIsLost(lerr), errors.Is(lerr, runlog.ErrUnavailable):
			return 0, lerr // another replica's append, or the log failed the run (see refusal)
		}
		if unanswered == nil {
			unanswered = &unansweredError{err}
		}
		if l.nc.IsClosed() || !time.Now().Before(giveUp) {
			return 0, fmt.Errorf("%w: the log did not acknowledge a batch of %d: %w", runlog.ErrUnavailable, len(batch), unanswered.err)
		}
		l.pause(context.Background(), 250*time.Millisecond, giveUp)
	}
}

// errWrongLast is a batch refused because the run's last message was not
// the one it expected.
var errWrongLast = errors.New("natslog: wrong last message")

// unansweredError is a batch that went out without an answer: it may be in
// the log or not.
type unansweredError struct{ err error }

func (e *unansweredError) Error() string { return e.err.Error() }

// sendUntilRoom is one send of batch, sent again while the server has no
// room for it, until batchTimeout.
func (p *pipe) sendUntilRoom(batch []*nats.Msg, expect uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	backoff := time.Millisecond
	for {
		ack, err := p.sendOnce(ctx, batch, expect)
		if err != nil {
			return 0, &unansweredError{err}
		}
		switch {
		case ack.Error == nil && ack.Count == len(batch):
			return ack.Seq, nil
		case ack.Error == nil:
			return 0, fmt.Errorf("natslog: batch of %d acknowledged as %d", len(batch), ack.Count)
		case wrongLastCode(jetstream.ErrorCode(ack.Error.ErrCode)):
			return 0, fmt.Errorf("%w: batch of %d refused: %s", errWrongLast, len(batch), ack.Error.Description)
		case ack.Error.ErrCode != errCodeBatchIncomplete && ack.Error.ErrCode != errCodeBatchTooManyInflight:
			return 0, fmt.Errorf("natslog: batch of %d refused: %s (code %d)", len(batch), ack.Error.Description, ack.Error.ErrCode)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, fmt.Errorf("natslog: batch of %d refused until %v: %s (code %d)", len(batch), batchTimeout, ack.Error.Description, ack.Error.ErrCode)
		case <-t.C:
		}
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

// sendOnce publishes batch under a fresh id and returns the server's answer
// to its commit.
func (p *pipe) sendOnce(ctx context.Context, batch []*nats.Msg, expect uint64) (batchAck, error) {
	nc := p.w.l.nc
	id := runlog.NewRunID()
	for i, msg := range batch {
		msg.Header.Set(hdrBatchID, id)
		msg.Header.Set(hdrBatchSeq, strconv.Itoa(i+1))
		if i == 0 {
			msg.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(expect, 10))
		}
		if i < len(batch)-1 {
			if err := nc.PublishMsg(msg); err != nil {
				return batchAck{}, fmt.Errorf("natslog: batch: %w", err)
			}
		}
	}
	commit := batch[len(batch)-1]
	commit.Header.Set(hdrBatchCommit, "1")
	resp, err := nc.RequestMsgWithContext(ctx, commit)
	if err != nil {
		return batchAck{}, fmt.Errorf("natslog: batch commit: %w", err)
	}
	var ack batchAck
	if err := json.Unmarshal(resp.Data, &ack); err != nil {
		return batchAck{}, fmt.Errorf("natslog: batch commit: %w", err)
	}
	return ack, nil
}

// landed reports whether an unanswered batch is in the log (then with the
// stream sequence of its last message): the run's last message is the
// batch's last; still the one before the batch, it is not; anything else was
// appended by another replica (ErrLeaseLost).
func (p *pipe) landed(batch []*nats.Msg, expect uint64) (uint64, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	last, err := p.w.l.stream.GetLastMsgForSubject(ctx, p.w.subject)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		last, err = nil, nil
		if expect == 0 {
			return 0, false, nil
		}
	case err != nil:
		return 0, false, err
	case last.Sequence == expect:
		return 0, false, nil
	}
	end := batch[len(batch)-1].Header
	if sameMessage(last, end) {
		return last.Sequence, true, nil
	}
	return 0, false, refusal(last, batch[0].Header, errors.New("another replica appended to the run"))
}

// errIsLost reports whether err says another replica took the run.
func errIsLost(err error) bool { return errors.Is(err, runlog.ErrLeaseLost) }
