package verify

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/chunks"
)

// This file is the engine both profiles share. It knows the lifecycle
// actions of tables_gen.go (open, continue, close, fail, answer, upsert,
// mutate, annotate, seed) and applies them to whatever entity kind an event
// names; it never switches on an event type. The profiles differ in a few
// judgements, each marked where it is made:
//
//   - runs: the server profile sees one run; the client profile accepts
//     several in one stream, a stream that opens with RUN_ERROR and a late
//     RUN_ERROR after RUN_FINISHED, as the reference client does;
//   - attribution: the server profile reads an absent subagentRunId as the
//     parent agent, so every event must agree with its entity's owner; the
//     client profile, like the reference, lets an absent tag agree with any
//     owner;
//   - the server profile also checks tool results (unknown-id, out-of-order),
//     the runId of RUN_FINISHED, and that a parent subagent is still open.

// phase is where the stream stands with respect to runs.
type phase uint8

const (
	// phaseIdle: nothing observed yet. The stream must begin with RUN_STARTED
	// (or RUN_ERROR: a run that failed before it started).
	phaseIdle phase = iota
	// phaseRunning: RUN_STARTED observed; its run has not ended.
	phaseRunning
	// phaseFinished: the run ended with RUN_FINISHED. The client profile
	// still accepts a late RUN_ERROR or a new RUN_STARTED.
	phaseFinished
	// phaseErrored: the run ended with RUN_ERROR. The client profile still
	// accepts a new RUN_STARTED.
	phaseErrored
)

// who is an owner: a subagent, or the parent agent (sub == false).
type who struct {
	id  string
	sub bool
}

func (w who) String() string {
	if !w.sub {
		return "the parent agent"
	}
	return "subagent " + strconv.Quote(w.id)
}

// item is what the engine knows about one id of one entity kind: its owner,
// retained for the run after the entity closes, and whether it is open.
// Reasoning spans keep their state in the reasoning message's records (slot
// 1), because the two share one owner per id.
type item struct {
	owner who
	open  [2]bool
}

// home returns the entity kind whose records hold kind's state, and the
// open-flag slot it uses there.
func home(kind entity) (entity, int) {
	if kind == entityReasoningSpan {
		return entityReasoningMessage, 1
	}
	return kind, 0
}

type stepKey struct {
	owner who
	name  string
}

// finishOrder is the order in which RUN_FINISHED reports open entities, the
// reference's; kinds not listed are checked after these.
var finishOrder = [...]entity{entityStep, entityMessage, entityReasoningMessage, entityReasoningSpan, entityToolCall, entitySubagent}

type engine struct {
	server bool // the profile: set by Server, clear for Client
	err    *Error
	n      int // index of the next event
	phase  phase
	runID  string

	items [entityCount]map[string]item
	// hot caches the record last read by a continuation, so that a stream of
	// deltas to one entity costs no hashing. Every write to items goes
	// through put, which keeps it current.
	hot struct {
		kind entity
		id   string
		it   item
	}
	steps map[stepKey]struct{}
	subs  map[string]bool // subagent id -> still active
	openN [entityCount]int32

	exp chunks.Expander
	buf []agui.Event
}

func (e *engine) observe(ev agui.Event) error {
	if e.err != nil {
		return e.err
	}
	if ev == nil {
		return e.fail(NotOpen, "", "", "a nil event is not an event")
	}
	var f facts
	factsOf(ev, &f)
	if f.action == actionContinue && e.phase == phaseRunning && !e.exp.Open() && e.continues(&f) {
		// The steady state: a delta to the entity the last delta named.
		e.n++
		return nil
	}
	var err *Error
	if f.action == actionChunk || e.exp.Open() {
		err = e.expand(ev)
	} else {
		err = e.apply(ev, &f)
	}
	e.n++
	if err != nil {
		return err
	}
	return nil
}

// continues reports whether f continues the entity in the hot cache, open
// and with an agreeing owner; anything else takes the general path.
func (e *engine) continues(f *facts) bool {
	h, slot := home(f.entity)
	return e.hot.kind == h && e.hot.id == f.id && e.hot.it.open[slot] && e.agrees(f, e.hot.it.owner)
}

// expand runs ev through chunk expansion and verifies what comes out.
func (e *engine) expand(ev agui.Event) *Error {
	out, cerr := e.exp.Expand(e.buf[:0], ev)
	if cerr != nil {
		return e.chunkFailure(ev, cerr)
	}
	var err *Error
	for _, x := range out {
		var f facts
		factsOf(x, &f)
		if err = e.apply(x, &f); err != nil {
			if x != ev {
				err.Via = ev.Type()
			}
			break
		}
	}
	clear(out)
	e.buf = out[:0]
	return err
}

func (e *engine) chunkFailure(ev agui.Event, cerr error) *Error {
	ce, ok := cerr.(*chunks.Error)
	if !ok {
		err := e.fail(NotOpen, ev.Type(), "", cerr.Error())
		err.Err = cerr
		return err
	}
	rule := NotOpen
	switch ce.Kind {
	case chunks.Conflict:
		// Restating an open stream's role, name or tool with another value
		// is an attempt to open a different entity under an open id.
		rule = DuplicateStart
	case chunks.OwnerMismatch, chunks.Ambiguous:
		rule = OwnerMismatch
	}
	err := e.fail(rule, ev.Type(), ce.ID, ce.Reason())
	err.Err = ce
	return err
}

// finish reports a stream that ended inside a run.
func (e *engine) finish() error {
	if e.err != nil {
		return e.err
	}
	switch {
	case e.phase == phaseRunning:
		err := e.fail(0, "", e.runID, "the stream ended inside run "+strconv.Quote(e.runID)+", before RUN_FINISHED or RUN_ERROR")
		err.Err = ErrTruncated
		return err
	case e.phase == phaseIdle && e.server:
		err := e.fail(0, "", "", "the stream ended before any run started")
		err.Err = ErrTruncated
		return err
	}
	return nil
}

// fail records a failure; it is sticky.
func (e *engine) fail(rule Rule, t agui.EventType, id, detail string) *Error {
	e.err = &Error{Rule: rule, Event: t, ID: id, Index: e.n, Detail: detail, Open: e.openSet()}
	return e.err
}

// agrees reports whether an event attributed as f may act on an entity
// owned by owner.
func (e *engine) agrees(f *facts, owner who) bool {
	if e.server {
		return f.tagged == owner.sub && f.tag == owner.id
	}
	return !f.tagged || (owner.sub && owner.id == f.tag)
}

func attribution(f *facts) who { return who{f.tag, f.tagged} }

// put stores a record, keeping the hot cache current.
func (e *engine) put(m map[string]item, kind entity, id string, it item) {
	m[id] = it
	if e.hot.kind == kind && e.hot.id == id {
		e.hot.it = it
	}
}

func (e *engine) records(kind entity) map[string]item {
	m := e.items[kind]
	if m == nil {
		m = make(map[string]item)
		e.items[kind] = m
	}
	return m
}

// apply verifies one event that is not a chunk and updates the state.
func (e *engine) apply(ev agui.Event, f *facts) *Error {
	if e.phase != phaseRunning {
		if err := e.gate(ev, f); err != nil || e.phase != phaseRunning || f.entity == entityRun {
			return err
		}
	}
	switch f.action {
	case actionContinue:
		return e.proceed(ev, f, false)
	case actionClose:
		return e.proceed(ev, f, true)
	case actionOpen:
		return e.open(ev, f)
	case actionFail:
		if f.entity == entityRun {
			e.phase = phaseErrored
			return nil
		}
		return e.proceed(ev, f, true)
	case actionAnswer:
		return e.answer(ev, f)
	case actionUpsert:
		m := e.records(f.entity)
		it, known := m[f.id]
		if !known || !keepsOwner(ev) {
			it.owner = attribution(f)
			e.put(m, f.entity, f.id, it)
		}
	case actionMutate:
		if it, known := e.items[f.entity][f.id]; known && !e.agrees(f, it.owner) {
			return e.mismatch(ev, f, f.entity, it.owner)
		}
	case actionAnnotate:
		kinds, label := annotated(ev)
		for _, k := range kinds {
			if k == entityNone {
				break
			}
			h, _ := home(k)
			if it, known := e.items[h][f.id]; known {
				if !e.agrees(f, it.owner) {
					return e.mismatch(ev, f, label, it.owner)
				}
				break
			}
		}
	case actionSeed:
		msgs, auth := historyOf(ev)
		e.seed(msgs, auth)
	}
	return nil
}

// gate handles an event while no run is active: RUN_STARTED begins one,
// RUN_ERROR may end the stream's only run or (client) report a late
// failure, and anything else is rejected. It leaves the phase at
// phaseRunning when the event should be applied further.
func (e *engine) gate(ev agui.Event, f *facts) *Error {
	runStart := f.entity == entityRun && f.action == actionOpen
	runFail := f.entity == entityRun && f.action == actionFail
	switch e.phase {
	case phaseIdle:
		switch {
		case runStart:
			e.begin(ev, f, false)
			return nil
		case runFail:
			e.phase = phaseErrored
			return nil
		}
		return e.fail(NotStarted, ev.Type(), "", "no run has started")
	case phaseFinished:
		if !e.server {
			switch {
			case runFail: // a late failure of the finished run
				e.phase = phaseErrored
				return nil
			case runStart:
				e.begin(ev, f, true)
				return nil
			}
		}
		return e.fail(RunEnded, ev.Type(), e.runID, e.runName()+" already finished with RUN_FINISHED")
	case phaseErrored:
		if !e.server && runStart {
			e.begin(ev, f, true)
			return nil
		}
		return e.fail(RunEnded, ev.Type(), e.runID, e.runName()+" already ended with RUN_ERROR")
	}
	return nil
}

// runName names the current run in a message.
func (e *engine) runName() string {
	if e.phase == phaseErrored && e.runID == "" {
		return "the run"
	}
	return "run " + strconv.Quote(e.runID)
}

// begin starts a run, forgetting the previous run's state when there was
// one, and seeds owners from the input it echoes.
func (e *engine) begin(ev agui.Event, f *facts, reset bool) {
	if reset {
		for i := range e.items {
			clear(e.items[i])
		}
		e.hot.kind, e.hot.id, e.hot.it = entityNone, "", item{}
		clear(e.steps)
		clear(e.subs)
		e.openN = [entityCount]int32{}
	}
	e.phase = phaseRunning
	e.runID = f.id
	msgs, auth := historyOf(ev)
	e.seed(msgs, auth)
}

// seed records the owners of replayed messages and of the tool calls they
// carry. An authoritative seed (a snapshot) replaces recorded owners; a
// plain one (history) records only ids not yet known.
func (e *engine) seed(msgs []agui.Message, authoritative bool) {
	for _, msg := range msgs {
		id, tag, kind, calls := messageFacts(msg)
		if kind == entityNone {
			continue
		}
		owner := who{}
		if tag != nil {
			owner = who{*tag, true}
		}
		m := e.records(kind)
		if it, known := m[id]; authoritative || !known {
			it.owner = owner
			e.put(m, kind, id, it)
		}
		if len(calls) > 0 {
			tc := e.records(entityToolCall)
			for _, c := range calls {
				if it, known := tc[c.ID]; authoritative || !known {
					it.owner = owner
					e.put(tc, entityToolCall, c.ID, it)
				}
			}
		}
	}
}

func (e *engine) open(ev agui.Event, f *facts) *Error {
	switch f.entity {
	case entityRun:
		return e.fail(DuplicateRunStarted, ev.Type(), f.id, "run "+strconv.Quote(f.id)+" cannot start while run "+strconv.Quote(e.runID)+" is active")
	case entitySubagent:
		if active, known := e.subs[f.id]; known {
			if active {
				return e.fail(DuplicateStart, ev.Type(), f.id, "subagent "+strconv.Quote(f.id)+" is already active")
			}
			return e.fail(DuplicateStart, ev.Type(), f.id, "subagent "+strconv.Quote(f.id)+" already ran in this run; a subagent run id names one invocation")
		}
		if _, pid, ok := parentOf(ev); ok {
			active, known := e.subs[pid]
			if e.server && !active {
				return e.fail(NotOpen, ev.Type(), pid, "parent subagent "+strconv.Quote(pid)+" is not active")
			}
			if !known {
				return e.fail(NotOpen, ev.Type(), pid, "parent subagent "+strconv.Quote(pid)+" was never started in this run")
			}
		}
		if e.subs == nil {
			e.subs = make(map[string]bool)
		}
		e.subs[f.id] = true
		e.openN[entitySubagent]++
		return nil
	case entityStep:
		k := stepKey{attribution(f), f.id}
		if _, open := e.steps[k]; open {
			return e.fail(DuplicateStart, ev.Type(), f.id, "step "+stepName(k)+" is already open")
		}
		if e.steps == nil {
			e.steps = make(map[stepKey]struct{})
		}
		e.steps[k] = struct{}{}
		e.openN[entityStep]++
		return nil
	}

	h, slot := home(f.entity)
	m := e.records(h)
	it, known := m[f.id]
	if it.open[slot] {
		return e.fail(DuplicateStart, ev.Type(), f.id, entityNouns[f.entity]+" "+strconv.Quote(f.id)+" is already open")
	}
	// An opener nested in a parent entity inherits the parent's owner and
	// must agree with it.
	var inherited who
	hasInherited := false
	if pk, pid, ok := parentOf(ev); ok {
		if p, pknown := e.items[pk][pid]; pknown {
			if !e.agrees(f, p.owner) {
				return e.fail(OwnerMismatch, ev.Type(), f.id, entityNouns[f.entity]+" "+strconv.Quote(f.id)+" is attributed to "+attribution(f).String()+", but its parent "+entityNouns[pk]+" "+strconv.Quote(pid)+" belongs to "+p.owner.String())
			}
			inherited, hasInherited = p.owner, true
		}
	}
	if known {
		// Reopening: the first owner stays.
		if !e.agrees(f, it.owner) {
			return e.mismatch(ev, f, f.entity, it.owner)
		}
		if !f.tagged && hasInherited && inherited != it.owner {
			return e.fail(OwnerMismatch, ev.Type(), f.id, entityNouns[f.entity]+" "+strconv.Quote(f.id)+" belongs to "+it.owner.String()+", but its parent is owned by "+inherited.String())
		}
	} else {
		switch {
		case f.tagged:
			it.owner = attribution(f)
		case hasInherited:
			it.owner = inherited
		}
	}
	it.open[slot] = true
	e.put(m, h, f.id, it)
	e.openN[f.entity]++
	return nil
}

// proceed handles a continuation (content) or a terminator of an entity.
func (e *engine) proceed(ev agui.Event, f *facts, closing bool) *Error {
	switch f.entity {
	case entityRun: // RUN_FINISHED
		if e.server && f.id != e.runID {
			return e.fail(NotOpen, ev.Type(), f.id, "run "+strconv.Quote(f.id)+" is not open; the open run is "+strconv.Quote(e.runID))
		}
		for _, k := range finishOrder {
			if e.openN[k] > 0 {
				return e.openAtFinish(ev, k)
			}
		}
		for k := entityRun + 1; k < entityCount; k++ {
			if e.openN[k] > 0 {
				return e.openAtFinish(ev, k)
			}
		}
		e.phase = phaseFinished
		return nil
	case entitySubagent:
		if !e.subs[f.id] {
			return e.fail(NotOpen, ev.Type(), f.id, "subagent "+strconv.Quote(f.id)+" is not active")
		}
		e.subs[f.id] = false
		e.openN[entitySubagent]--
		return nil
	case entityStep:
		k := stepKey{attribution(f), f.id}
		if _, open := e.steps[k]; !open {
			for other := range e.steps {
				if other.name == f.id {
					return e.fail(OwnerMismatch, ev.Type(), f.id, "step "+strconv.Quote(f.id)+" is open under "+other.owner.String()+", not "+k.owner.String()+"; whoever started a step finishes it")
				}
			}
			return e.fail(NotOpen, ev.Type(), f.id, "step "+stepName(k)+" is not open")
		}
		if closing {
			delete(e.steps, k)
			e.openN[entityStep]--
		}
		return nil
	}
	h, slot := home(f.entity)
	var it item
	if e.hot.kind == h && e.hot.id == f.id {
		it = e.hot.it
	} else {
		it = e.items[h][f.id]
		e.hot.kind, e.hot.id, e.hot.it = h, f.id, it
	}
	if !it.open[slot] {
		return e.fail(NotOpen, ev.Type(), f.id, entityNouns[f.entity]+" "+strconv.Quote(f.id)+" is not open")
	}
	if !e.agrees(f, it.owner) {
		return e.mismatch(ev, f, f.entity, it.owner)
	}
	if closing {
		it.open[slot] = false
		e.put(e.items[h], h, f.id, it)
		e.openN[f.entity]--
	}
	return nil
}

// answer handles a tool result: it names a tool call and mints a message.
func (e *engine) answer(ev agui.Event, f *facts) *Error {
	if e.server {
		h, slot := home(f.entity)
		it, known := e.items[h][f.id]
		switch {
		case !known:
			return e.fail(UnknownID, ev.Type(), f.id, entityNouns[f.entity]+" "+strconv.Quote(f.id)+" was never started in this run")
		case it.open[slot]:
			return e.fail(OutOfOrder, ev.Type(), f.id, entityNouns[f.entity]+" "+strconv.Quote(f.id)+" is still open; the result must follow its end")
		}
	}
	// The minted entity belongs to the result's own attribution; the newest
	// mint wins.
	if k, id, ok := mintOf(ev); ok {
		h, _ := home(k)
		m := e.records(h)
		it := m[id]
		it.owner = attribution(f)
		e.put(m, h, id, it)
	}
	return nil
}

func (e *engine) mismatch(ev agui.Event, f *facts, kind entity, owner who) *Error {
	return e.fail(OwnerMismatch, ev.Type(), f.id, entityNouns[kind]+" "+strconv.Quote(f.id)+" belongs to "+owner.String()+", not "+attribution(f).String())
}

func (e *engine) openAtFinish(ev agui.Event, k entity) *Error {
	open := e.openEntries(k)
	what := entityNouns[k] + " " + listOpen(open, ", ") + " is"
	if len(open) > 1 {
		what = entityPlurals[k] + " " + listOpen(open, ", ") + " are"
	}
	id := ""
	if len(open) > 0 {
		id = open[0].id
	}
	return e.fail(OpenAtFinish, ev.Type(), id, what+" still open")
}

func stepName(k stepKey) string {
	if !k.owner.sub {
		return quoteID(k.name)
	}
	return quoteID(k.name) + " (subagent " + quoteID(k.owner.id) + ")"
}

// maxListed is how many open ids a message lists before it only counts the
// rest, and maxShownID how many bytes of one id it shows: a stream with 3×10^5
// open tool calls, or one huge id, must not make an error message (and the
// RUN_ERROR that carries it) larger than any frame a reader accepts.
const (
	maxListed  = 5
	maxShownID = 64
)

// listOpen joins the first maxListed entries with sep and counts the rest:
// `"a", "b", "c", "d", "e" and 7 more`.
func listOpen(open []openEntry, sep string) string {
	var b strings.Builder
	for i, o := range open[:min(len(open), maxListed)] {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(o.shown)
	}
	if more := len(open) - maxListed; more > 0 {
		b.WriteString(" and " + strconv.Itoa(more) + " more")
	}
	return b.String()
}

// quoteID quotes id for a list, cut to maxShownID bytes (on a rune boundary)
// with an ellipsis when it is longer.
func quoteID(id string) string {
	if len(id) <= maxShownID {
		return strconv.Quote(id)
	}
	cut := maxShownID
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return strconv.Quote(id[:cut]) + "…(" + strconv.Itoa(len(id)) + " bytes)"
}

type openEntry struct {
	id    string // the raw id
	shown string // quoted, with a step's owner
}

// openEntries lists the open ids of one entity kind, sorted.
func (e *engine) openEntries(k entity) []openEntry {
	var out []openEntry
	switch k {
	case entityRun:
		return nil
	case entityStep:
		for s := range e.steps {
			out = append(out, openEntry{s.name, stepName(s)})
		}
	case entitySubagent:
		for id, active := range e.subs {
			if active {
				out = append(out, openEntry{id, quoteID(id)})
			}
		}
	default:
		h, slot := home(k)
		for id, it := range e.items[h] {
			if it.open[slot] {
				out = append(out, openEntry{id, quoteID(id)})
			}
		}
	}
	slices.SortFunc(out, func(a, b openEntry) int { return strings.Compare(a.shown, b.shown) })
	return out
}

// openSet renders everything open, such as `messages={"m1"}, steps={"plan"}`.
func (e *engine) openSet() string {
	var b strings.Builder
	for k := entityRun + 1; k < entityCount; k++ {
		if e.openN[k] <= 0 {
			continue
		}
		open := e.openEntries(k)
		if len(open) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(entityPlurals[k])
		b.WriteString("={")
		b.WriteString(listOpen(open, ","))
		b.WriteString("}")
	}
	return b.String()
}
