package server

import (
	"context"
	"errors"
	"sync"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/verify"
)

// emitter is the one place events pass through on their way out of a run. It
// serialises emission from any number of goroutines with one mutex; under it,
// each event is checked against the run's liveness, encoded into a reused
// buffer, observed by the verifier and handed to the sink, so the verifier
// sees exactly the order the consumer receives.
//
// Emission after the run's context is done fails with CANCELLED; after the
// sink failed (the consumer left) with DISCONNECTED; after the terminal event
// with PROTOCOL_VIOLATION (or PROTOCOL when verification is compiled out).
type emitter struct {
	mu sync.Mutex

	ctx         context.Context // the run's context
	cancel      context.CancelCauseFunc
	parent      context.Context // the context the run was started under
	parentCause func() error    // the cause to report when parent is done
	// done and parentDone are ctx.Done() and parent.Done(), kept so that the
	// per-event liveness check is two non-blocking receives; parentDone is
	// nil for a parent that can never be cancelled.
	done, parentDone <-chan struct{}

	verifier verify.Server
	sink     sink
	// stream is sink when it is an HTTP stream's writer, called directly on
	// the emit path rather than through the interface
	// (BenchmarkEmitTextDelta).
	stream *streamWriter
	// retain is true when the sink keeps events after deliver returns (a
	// channel to another goroutine, a recording). Otherwise the streaming hot
	// paths reuse one event value per type and allocate nothing.
	retain         bool
	prefix, suffix string // framing around each event's JSON in out
	// queue's out holds the encoded frames; the sink decides when to reset
	// it. For an HTTP stream it is the stream writer's queue.
	queue
	frame int // where the frame being delivered starts in out
	// pooled is set when out comes from bufferPool (an HTTP stream): the
	// writer gives it back when it has written it, and send takes one when
	// out holds none.
	pooled bool
	// maxEvent, when positive, is the largest encoded event send accepts:
	// the frame limit of the stream's reader.
	maxEvent int

	// encode, when set, frames an event in place of prefix, JSON and suffix
	// (the protobuf binding's length-prefixed message).
	encode func(dst []byte, ev agui.Event) ([]byte, error)

	ended bool // the terminal event was sent (or the run was abandoned)
	// finishing is set once finish has begun: what is sent from then on is
	// the terminal event, which never waits for room in the stream.
	finishing bool
	broken    error // non-nil once the sink failed: the cause of DISCONNECTED
	// detail is WithErrorDetail: the terminal RUN_ERROR carries the
	// failure's whole message, not its redacted summary.
	detail bool
	// downgrade, when set, translates each event for a consumer of an older
	// protocol version before it is encoded (see serveVersion).
	downgrade func(agui.Event) agui.Event

	// failed is the first error an emit of the run returned, other than
	// one refused because its subagent ended (that ends the subagent, not
	// the run). Once it is set every emit returns it and sends nothing, and
	// the terminal event reports it, whatever the agent returns: an agent
	// that ignores an emit's error still ends with the failure, as a
	// bufio.Writer's Flush reports the first failed Write.
	failed *Error

	// reused holds the events the streaming hot paths reuse; only touched
	// under mu and only when !retain. It is allocated by the first delta,
	// so a run that streams none (an idle one above all) does not carry it.
	reused *reusedEvents

	// history is the conversation the run starts from (the input's), until
	// the verifier has been seeded with it (see seedHistory).
	history []agui.Message

	// trace is the run's observer (WithObserver), nil without one: the
	// emit path pays a nil check for it. terminal is the terminal event
	// delivered, kept for the observer's End.
	trace    *RunTrace
	terminal agui.Event
}

// reusedEvents are the events the streaming hot paths build in place.
type reusedEvents struct {
	text      agui.TextMessageContent
	args      agui.ToolCallArgs
	reasoning agui.ReasoningMessageContent
}

// reuse returns the reused events, allocating them the first time.
// Called with mu held.
func (e *emitter) reuse() *reusedEvents {
	if e.reused == nil {
		e.reused = new(reusedEvents)
	}
	return e.reused
}

// seedHistory gives the verifier the conversation the run starts from,
// once, before it observes anything after RUN_STARTED: what the seed records
// (owners of earlier messages, tool calls from history) matters only to
// later events, and RUN_STARTED of a stream's only run is verified the same
// with or without it. Seeding late means an idle run holds no record of its
// history beyond the input itself. Called with mu held.
func (e *emitter) seedHistory() {
	if e.history != nil {
		e.verifier.Seed(e.history)
		e.history = nil
	}
}

// sink receives verified events, one at a time, with the emitter's mutex held.
type sink interface {
	// deliver hands ev to the consumer; e.out[e.frame:] holds its framed
	// encoding. A non-nil error means the consumer is gone for good; it
	// becomes the cause of the DISCONNECTED error and of the run's
	// cancellation.
	deliver(e *emitter, ev agui.Event) error
}

var (
	errNilEvent    = errors.New("agui/server: nil event")
	errDriverOwned = errors.New("agui/server: RUN_STARTED, RUN_FINISHED and RUN_ERROR are emitted by the driver; return an Outcome or an error instead")
)

// cancelCause returns the cause of the run's cancellation, or nil while the run
// is live. Cancellation of the parent context is applied here synchronously,
// so an emit right after the parent was cancelled already fails.
func (e *emitter) cancelCause() error {
	select {
	case <-e.done:
		return context.Cause(e.ctx)
	default:
	}
	if e.parentDone == nil {
		return nil
	}
	select {
	case <-e.parentDone:
		e.cancel(e.parentCause())
		return context.Cause(e.ctx)
	default:
		return nil
	}
}

// check says whether ev, emitted through a handle of subagent scope sc (nil
// for the run's own), may be emitted now. Called with mu held, which is what
// orders a subagent's ending against emits through it: its flag is set before
// its SUBAGENT_FINISHED (or SUBAGENT_ERROR) is sent, so every emit checked
// after that event sees it.
func (e *emitter) check(ev agui.Event, sc *scope) error {
	e.seedHistory()
	if e.failed != nil {
		return e.failed
	}
	if e.broken != nil {
		return disconnectedError(e.broken)
	}
	if e.ended {
		if err := e.verifier.Observe(ev); err != nil {
			return violationError(err)
		}
		return protocolError(ErrRunEnded)
	}
	if cause := e.cancelCause(); cause != nil {
		return cancelledError(cause)
	}
	if sc != nil {
		return sc.live()
	}
	return nil
}

// emit is Emitter.Emit: any event but the three the driver owns, emitted
// through a handle of subagent scope sc (nil for the run's own).
func (e *emitter) emit(ev agui.Event, sc *scope) error {
	if ev == nil {
		return e.refuse(protocolError(errNilEvent))
	}
	if t := ev.Type(); t == agui.EventTypeRunStarted || t == agui.EventTypeRunFinished || t == agui.EventTypeRunError {
		return e.refuse(protocolError(errDriverOwned))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.checkSend(ev, sc, false)
}

// checkSend checks and sends ev, emitted through a handle of scope sc, and
// records a failure as the run's first (see failed). Called with mu held.
// asIs (the deltas of the hot paths) sends ev without the downgrade (see
// sendAsIs).
func (e *emitter) checkSend(ev agui.Event, sc *scope, asIs bool) error {
	err := e.check(ev, sc)
	switch {
	case err != nil:
	case asIs:
		err = e.sendAsIs(ev, true)
	default:
		err = e.send(ev, true)
	}
	if err != nil {
		return e.note(err)
	}
	return nil
}

// note records err, the error of an emit, as the run's failure if it is the
// first, and returns what the emit returns: the first failure. A refusal
// because a subagent ended is returned as it is and recorded nowhere: it
// ends that subagent's handles, not the run. Called with mu held.
func (e *emitter) note(err error) error {
	if e.failed != nil {
		return e.failed
	}
	var se *Error
	if !errors.As(err, &se) {
		se = AgentError(err)
	}
	if errors.Is(se, ErrSubagentEnded) {
		return se
	}
	e.failed = se
	return se
}

// refuse is note for a failure found before the event reached the emitter
// (a value that does not encode, say). A run that was cancelled before it
// records the cancellation instead, which came first; either way the emit
// returns the run's first failure.
func (e *emitter) refuse(err error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failed == nil && !e.ended {
		if cause := e.cancelCause(); cause != nil {
			err = cancelledError(cause)
		}
	}
	return e.note(err)
}

// firstFailure returns the run's first failed emit's error, or nil.
func (e *emitter) firstFailure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failed == nil {
		return nil
	}
	return e.failed
}

// send encodes, verifies and delivers ev. With verified false a rejection by
// the verifier is ignored (used for the terminal RUN_ERROR, which must go out
// even after an earlier violation made the verifier reject everything).
// Called with mu held.
func (e *emitter) send(ev agui.Event, verified bool) error {
	if e.downgrade != nil {
		ev = e.downgrade(ev)
	}
	return e.sendAsIs(ev, verified)
}

// sendAsIs is send for an event that no consumer's version changes: the
// deltas of the hot paths, which carry nothing protocol 1.1 added
// (TestDeltasCarryNothingToStrip), skip the downgrade.
func (e *emitter) sendAsIs(ev agui.Event, verified bool) error {
	if e.pooled {
		e.acquire()
	}
	start := len(e.out)
	var out []byte
	var err error
	if e.encode != nil {
		out, err = e.encode(e.out, ev)
	} else {
		e.out = append(e.out, e.prefix...)
		out, err = ev.AppendJSON(e.out)
	}
	if err != nil {
		e.out = e.out[:start]
		return serializationError(err)
	}
	if n := len(out) - start - len(e.prefix); e.maxEvent > 0 && n > e.maxEvent {
		e.out = out[:start]
		return tooLargeError(n, e.maxEvent)
	}
	e.out = out
	if err := e.verifier.Observe(ev); err != nil && verified {
		e.out = e.out[:start]
		if t := e.trace; t != nil && t.Rejected != nil {
			t.Rejected(ev, err)
		}
		return violationError(err)
	}
	e.out = append(e.out, e.suffix...)
	e.frame = start
	size := len(e.out) - start // deliver may reset out
	if e.stream != nil {
		err = e.stream.deliver(e, ev)
	} else {
		err = e.sink.deliver(e, ev)
	}
	if err != nil {
		e.fail(err)
		return disconnectedError(err)
	}
	if t := e.trace; t != nil && t.Event != nil {
		t.Event(ev, size)
	}
	return nil
}

// fail records that the consumer is gone and, unless the run already ended,
// cancels the run with the same cause. Called with mu held.
func (e *emitter) fail(cause error) {
	if e.broken != nil {
		return
	}
	e.broken = cause
	if t := e.trace; t != nil && t.Disconnect != nil && !e.ended {
		t.Disconnect(cause)
	}
	if !e.ended {
		e.cancel(cause)
	}
}

// disconnect is fail for a consumer that noticed it is leaving.
func (e *emitter) disconnect(cause error) {
	e.mu.Lock()
	e.fail(cause)
	e.mu.Unlock()
}

// The three streaming hot paths. Each builds its event in place when the sink
// does not retain events, so a delta costs no allocation.

func (e *emitter) textContent(id, delta string, sc *scope) error {
	tag := sc.tag()
	e.mu.Lock()
	defer e.mu.Unlock()
	var ev *agui.TextMessageContent
	if e.retain {
		ev = &agui.TextMessageContent{MessageID: id, Delta: delta, Attribution: agui.Attribution{SubagentRunID: tag}}
	} else {
		// Only this method writes the reused event, and nothing mutates
		// an event it is given, so setting the three members suffices.
		ev = &e.reuse().text
		ev.MessageID, ev.Delta, ev.SubagentRunID = id, delta, tag
	}
	return e.checkSend(ev, sc, true)
}

func (e *emitter) toolArgs(id, delta string, sc *scope) error {
	tag := sc.tag()
	e.mu.Lock()
	defer e.mu.Unlock()
	var ev *agui.ToolCallArgs
	if e.retain {
		ev = &agui.ToolCallArgs{ToolCallID: id, Delta: delta, Attribution: agui.Attribution{SubagentRunID: tag}}
	} else {
		// Only this method writes the reused event, and nothing mutates
		// an event it is given, so setting the three members suffices.
		ev = &e.reuse().args
		ev.ToolCallID, ev.Delta, ev.SubagentRunID = id, delta, tag
	}
	return e.checkSend(ev, sc, true)
}

func (e *emitter) reasoningContent(id, delta string, sc *scope) error {
	tag := sc.tag()
	e.mu.Lock()
	defer e.mu.Unlock()
	var ev *agui.ReasoningMessageContent
	if e.retain {
		ev = &agui.ReasoningMessageContent{MessageID: id, Delta: delta, Attribution: agui.Attribution{SubagentRunID: tag}}
	} else {
		// Only this method writes the reused event, and nothing mutates
		// an event it is given, so setting the three members suffices.
		ev = &e.reuse().reasoning
		ev.MessageID, ev.Delta, ev.SubagentRunID = id, delta, tag
	}
	return e.checkSend(ev, sc, true)
}

// start emits RUN_STARTED. It does not consult cancellation: a run cancelled
// before it began still reports itself, then ends with RUN_ERROR CANCELLED.
func (e *emitter) start(ev *agui.RunStarted) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.broken != nil {
		return disconnectedError(e.broken)
	}
	err := e.send(ev, true)
	if err != nil && ev.Input != nil && e.broken == nil {
		// An input built in code may hold raw JSON that does not encode, and
		// an echo of a body near the size limit makes a frame over the
		// frame limit; the echo is optional, so start without it rather
		// than not at all.
		ev.Input = nil
		err = e.send(ev, true)
	}
	return err
}

// finish sends the run's terminal event: RUN_FINISHED for outcome when runErr
// is nil and the run is live and the verifier accepts it; RUN_ERROR otherwise.
// It reports whether the run ended normally and, if not, why.
func (e *emitter) finish(threadID, runID string, outcome Outcome, runErr error) (normal bool, cause error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seedHistory()
	if e.ended {
		return false, ErrRunEnded
	}
	e.finishing = true
	if e.broken != nil {
		e.ended = true
		return false, e.broken
	}
	usage := UsageOf(runErr)
	if e.failed != nil {
		// The first failed emit is the run's failure, whatever the agent
		// returned after it.
		runErr = e.failed
	}
	var rerr *Error
	switch c := e.cancelCause(); {
	case c != nil && errors.Is(c, ErrCancelRequested) && cleanUnwind(e.ctx, runErr):
		// A Stop through the cancel route is not a failure: an agent that
		// returned without leaving anything open ends with the protocol's
		// cancelled outcome. If the verifier refuses it (something is still
		// open), the run ends as any cancelled run, with RUN_ERROR.
		fin, _ := Cancelled().WithUsage(usage...).runFinished(threadID, runID)
		if err := e.send(fin, true); err == nil {
			e.ended = true
			e.keepTerminal(fin)
			return false, cancelledError(c)
		}
		if e.broken != nil {
			e.ended = true
			return false, e.broken
		}
		rerr = cancelledError(c)
	case runErr != nil:
		rerr = asRunError(e.ctx, runErr)
	case c != nil:
		rerr = cancelledError(c)
	default:
		fin, err := outcome.runFinished(threadID, runID)
		if err == nil {
			err = e.send(fin, true)
		}
		if err == nil {
			e.ended = true
			e.keepTerminal(fin)
			return true, nil
		}
		if e.broken != nil {
			e.ended = true
			return false, e.broken
		}
		rerr = asRunError(e.ctx, err)
	}
	msg := rerr.Message
	if !e.detail {
		msg = redact(msg)
	}
	msg = capMessage(msg)
	if msg == "" {
		msg = "run failed"
	}
	ev := agui.NewRunError(msg)
	ev.Usage = usage
	code := string(rerr.Code)
	if code != "" {
		ev.Code = &code
	}
	if e.send(ev, false) == nil { // a failure here can only be the consumer leaving
		e.keepTerminal(ev)
	}
	e.ended = true
	return false, rerr
}

// keepTerminal keeps the terminal event ev, which was delivered, for the
// observer. Called with mu held.
func (e *emitter) keepTerminal(ev agui.Event) {
	if e.trace != nil {
		e.terminal = ev
	}
}

// chanSink hands events to a consumer on another goroutine through an
// unbuffered channel: the agent blocks until the consumer takes each event,
// which is the backpressure of Run and Runner.Events.
type chanSink struct {
	ch   chan agui.Event
	gone chan struct{} // closed when the consumer stops pulling
}

func (s *chanSink) deliver(e *emitter, ev agui.Event) error {
	e.out = e.out[:0]
	select {
	case s.ch <- ev:
		return nil
	case <-s.gone:
		return ErrConsumerStopped
	}
}

// funcSink calls a function for every event, on the emitting goroutine.
type funcSink struct {
	send func(ev agui.Event, data []byte) error
	err  error // the first error send returned
}

func (s *funcSink) deliver(e *emitter, ev agui.Event) error {
	data := e.out[e.frame:]
	err := s.send(ev, data)
	e.out = e.out[:0]
	if err != nil && s.err == nil {
		s.err = err
	}
	return err
}

// recordSink keeps every event, without bound; it backs NewRunContext, which
// is meant for tests.
type recordSink struct {
	events []agui.Event
}

func (s *recordSink) deliver(e *emitter, ev agui.Event) error {
	e.out = e.out[:0]
	s.events = append(s.events, ev)
	return nil
}
