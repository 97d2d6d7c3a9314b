package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/chunks"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/server/threads"
)

// ThreadConfig configures threads ([WithThreads]). Like [DurableConfig] it
// is one struct because its settings travel together; each field's zero
// value is its default.
type ThreadConfig struct {
	// Store keeps each thread's record. Nil means a [threads.Memory] with
	// its default bounds.
	Store threads.Store
	// Authorize is asked before every read of a thread, with the thread's
	// id and an empty run id; nil denies them all (pass [AllowAll] to allow
	// them all). A thread id is no credential: a server that serves more
	// than one user checks here that the thread is the caller's.
	Authorize Authorize
	// PageSize is how many runs GET {path}/threads/{threadId} lists when
	// the request names no limit (default 20; a limit may ask for up to
	// 100).
	PageSize int
	// Remember gives each run the thread's stored conversation, so that a
	// thin client may send only its new messages: the agent's input holds
	// the stored messages, in the thread's order, each replaced by the
	// client's message of the same id when it sent one, then the client's
	// messages the thread does not have, in the client's order (the
	// reconciliation MESSAGES_SNAPSHOT makes, by id). An input without
	// state gets the thread's. A client that sends the whole history gets
	// what it sent. A stored message cannot be taken back by leaving it out.
	// The thread is read only for a request Authorize allows (403
	// otherwise): its history is no less private on a POST than on a GET.
	Remember bool
}

const (
	defaultRunsPage = 20
	maxRunsPage     = 100
	// recordBatch is how many events a run emits between two nudges of its
	// thread's recorder: the emit path pays a remainder and a compare per
	// event and one channel send per batch, and the recorder never lags
	// the run by more than this many events (far fewer than any run log
	// keeps, so it reads them before retention drops them).
	recordBatch = 256
)

// WithThreads keeps a record of every thread the handler runs and serves
// it, so that a reloaded page gets its conversation back. It needs
// [WithDurableRuns] (NewHandler panics without it): a thread's live run is
// followed from the run log.
//
// As each run streams, the handler folds its events into the thread's
// conversation with package agui/conversation, the reducer a client runs,
// reading them from the run log off the emit path; the input's messages
// and state become the thread's when the run starts. The record is what
// the run's events made of the conversation, never the raw events: a
// thread's record is as large as its conversation, not its streams. Two
// routes appear under the agent's path ([Mount] registers them):
//
//   - GET {path}/threads/{threadId} answers JSON: the thread's messages,
//     state, open interrupts, live run id and runs, newest first, a page at
//     a time (?limit=, and ?cursor= from the previous page's nextCursor).
//   - GET {path}/threads/{threadId}/events (connect) answers an AG-UI SSE
//     stream any 1.0 client reads: one replayed run (RUN_STARTED,
//     MESSAGES_SNAPSHOT, STATE_SNAPSHOT, RUN_FINISHED with the interrupt
//     outcome when the thread waits on one) holding the thread as it stood
//     when its live run started (or after its last run), then, if a run is
//     live, that run from the run log to its terminal event. The replayed
//     run's last frame and every frame of the live run carry an SSE id;
//     with it in Last-Event-ID the stream resumes where its reader left off
//     without replaying what it saw (a cursor the thread has moved past
//     gets the thread afresh).
//
// Both ask cfg.Authorize first (403), then answer 404 for a thread the
// store does not know, 410 for one it forgot, 400 for a malformed cursor or
// limit, with the JSON error body of every rejection. A thread over the
// store's bounds keeps its newest messages and says so
// (threads.Record.DroppedMessages, "droppedMessages" in the JSON, and a
// CUSTOM event named [ThreadTruncatedEvent] in the replayed run); recording
// never fails a run.
func WithThreads(cfg ThreadConfig) HandlerOption {
	return handlerOption(func(c *handlerConfig) {
		t := cfg
		if t.Store == nil {
			t.Store = threads.NewMemory(threads.MemoryOptions{})
		}
		if t.PageSize <= 0 {
			t.PageSize = defaultRunsPage
		}
		t.PageSize = min(t.PageSize, maxRunsPage)
		c.threads = &t
	})
}

// remember gives input the stored conversation of its thread
// (ThreadConfig.Remember) and reports whether the request may go on; when
// not, it has answered it (403 unauthorised, 503 a store that failed). A
// thread the store does not know, or has forgotten, gives nothing: the
// client's messages are the whole conversation.
func (t *threadRuns) remember(w http.ResponseWriter, r *http.Request, input *agui.RunAgentInput) bool {
	if input.ThreadID == "" {
		return true
	}
	if t.auth == nil {
		t.cfg.reject(w, r, agui.HTTPCodeForbidden, "threads need an authorization hook; none is configured", "threadId", input.ThreadID)
		return false
	}
	if err := t.auth(r, input.ThreadID, ""); err != nil {
		t.cfg.reject(w, r, agui.HTTPCodeForbidden, err.Error(), "threadId", input.ThreadID, "runId", input.RunID)
		return false
	}
	rec, err := t.store.Get(r.Context(), input.ThreadID)
	switch {
	case errors.Is(err, threads.ErrNotFound), errors.Is(err, threads.ErrExpired):
		return true
	case err != nil:
		w.Header().Set("Retry-After", "1")
		t.cfg.reject(w, r, agui.HTTPCodeRunLogFailed, "the thread store failed: "+err.Error(), "threadId", input.ThreadID, "runId", input.RunID)
		return false
	}
	input.Messages = reconcile(rec.Messages, input.Messages)
	if input.State == nil && rec.State != nil {
		input.State = slices.Clone(rec.State)
	}
	return true
}

// reconcile is the conversation a run of a remembering thread gets: the
// stored messages in order, each replaced by the client's of the same id,
// then the client's new ones in its order. Messages without an id are the
// client's alone and keep their place among its new ones.
func reconcile(stored, sent []agui.Message) []agui.Message {
	if len(stored) == 0 {
		return sent
	}
	byID := make(map[string]int, len(sent))
	for i, m := range sent {
		if id := m.MessageID(); id != "" {
			byID[id] = i
		}
	}
	out := make([]agui.Message, 0, len(stored)+len(sent))
	used := make([]bool, len(sent))
	for _, m := range stored {
		if i, ok := byID[m.MessageID()]; ok {
			out = append(out, sent[i])
			used[i] = true
			continue
		}
		out = append(out, m)
	}
	for i, m := range sent {
		if !used[i] {
			out = append(out, m)
		}
	}
	return out
}

// ThreadTruncatedEvent is the name of the CUSTOM event a connect stream's
// replayed run carries, after its snapshots, when the thread's store dropped
// its oldest messages (or runs): its value is
// {"droppedMessages":n,"droppedRuns":m}. A 1.0 client passes it to the
// application; one that ignores it shows the newest messages, as kept.
const ThreadTruncatedEvent = "ag-ui-go.thread.truncated"

// threadRuns is a handler's threads: its store and its routes. The
// recording of each run is a threadRecorder.
type threadRuns struct {
	store threads.Store
	auth  Authorize
	page  int
	d     *durableRuns
	cfg   *handlerConfig
	// remembers: ThreadConfig.Remember
	remembers bool

	mu   sync.Mutex
	recs map[string]*threadRecorder // by run id: the runs of this replica being recorded
}

func newThreadRuns(c ThreadConfig, d *durableRuns, cfg *handlerConfig) *threadRuns {
	return &threadRuns{store: c.Store, auth: c.Authorize, page: c.PageSize, d: d, cfg: cfg, remembers: c.Remember, recs: map[string]*threadRecorder{}}
}

// recorded waits until run runID's end is in its thread's record, when the
// run is this replica's and still being recorded, or until ctx ends. A
// stream that got a run's terminal event ends after it, so that its client,
// asking for the thread next, finds the run there.
func (t *threadRuns) recorded(ctx context.Context, runID string) {
	t.mu.Lock()
	rec := t.recs[runID]
	t.mu.Unlock()
	if rec == nil {
		return
	}
	select {
	case <-rec.done:
	case <-ctx.Done():
	}
}

// local reports whether run runID is this replica's and still being
// recorded.
func (t *threadRuns) local(runID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.recs[runID] != nil
}

// threadRecorder records one run in its thread. It follows the run log
// behind the run, nudged every recordBatch events and told when the
// terminal event is in, so that decoding and reducing happen on its own
// goroutine, not on the emit path.
type threadRecorder struct {
	t      *threadRuns
	input  *agui.RunAgentInput
	base   threads.Record // the record as the run started
	kick   chan struct{}  // capacity 1
	ended  chan struct{}  // closed once the log has the terminal event
	done   chan struct{}  // closed once the record holds the run's end
	conv   *conversation.Conversation
	x      chunks.Expander
	after  uint64
	broken bool // some events could not be read or decoded
	// adopted: the recorder records a run of another replica, which went
	// away before it recorded the run's end (adopt).
	adopted bool
}

// begin records that the run of input starts: the input's messages and
// state become the thread's, and the run is its live run. It starts the
// recorder's goroutine, which ends with the run (end). A store that fails
// leaves the run unrecorded (nil), with a log line: threads never fail a
// run.
func (t *threadRuns) begin(ctx context.Context, input *agui.RunAgentInput) *threadRecorder {
	var base threads.Record
	err := t.store.Update(ctx, input.ThreadID, func(r *threads.Record) {
		c := conversation.New(r.Messages, r.State)
		c.Apply(&agui.RunStarted{ThreadID: input.ThreadID, RunID: input.RunID, Input: input})
		r.Messages = c.Messages()
		if input.State != nil {
			r.State = slices.Clone(input.State)
		}
		r.LiveRunID = input.RunID
		r.Runs = append(r.Runs, threads.Run{RunID: input.RunID, Started: time.Now(), Outcome: threads.OutcomeRunning})
	})
	if err == nil {
		// The record as the store bounded it: the run's conversation
		// starts from what the thread keeps, so what the bounds dropped
		// is not written back (and counted) again when the run ends.
		base, err = t.store.Get(ctx, input.ThreadID)
	}
	if err != nil {
		t.cfg.run.logger.Warn("agui/server: the thread store failed; the run is not recorded",
			"thread_id", input.ThreadID, "run_id", input.RunID, "error", err)
		return nil
	}
	rec := &threadRecorder{
		t: t, input: input, base: base,
		kick: make(chan struct{}, 1), ended: make(chan struct{}), done: make(chan struct{}),
		conv: conversation.New(base.Messages, base.State),
	}
	t.mu.Lock()
	t.recs[input.RunID] = rec
	t.mu.Unlock()
	go rec.follow()
	return rec
}

// nudge tells the recorder there are events to read, without waiting.
func (rec *threadRecorder) nudge() {
	select {
	case rec.kick <- struct{}{}:
	default:
	}
}

// end tells the recorder the log has the terminal event and waits until
// the record holds the run's end.
func (rec *threadRecorder) end() {
	close(rec.ended)
	<-rec.done
}

func (rec *threadRecorder) follow() {
	defer func() {
		rec.t.mu.Lock()
		delete(rec.t.recs, rec.input.RunID)
		rec.t.mu.Unlock()
		close(rec.done)
	}()
	log := rec.t.d.log
	ctx := context.Background()
	caughtUp := func() {
		if info, err := log.Info(ctx, rec.input.RunID); err == nil {
			rec.read(ctx, info.Last)
		} else {
			rec.broken = true
		}
	}
wait:
	for {
		select {
		case <-rec.kick:
			caughtUp()
		case <-rec.ended:
			break wait
		}
	}
	// Up to the last event the log has, not "to the terminal event": an
	// append that failed leaves a run without one, and the recorder must
	// not wait for it.
	caughtUp()
	rec.finish(ctx)
}

// read folds the run's events after rec.after into the conversation, up to
// event last, which the log holds: it never waits for an event.
func (rec *threadRecorder) read(ctx context.Context, last uint64) {
	if last <= rec.after {
		return
	}
	var evs []agui.Event
	for e, err := range rec.t.d.log.Read(ctx, rec.input.RunID, rec.after) {
		if err != nil {
			if errors.Is(err, runlog.ErrExpired) {
				// Retention dropped events the recorder had not read:
				// the rest is read, and the run marked incomplete.
				rec.broken = true
				if info, ierr := rec.t.d.log.Info(ctx, rec.input.RunID); ierr == nil && info.First > rec.after+1 {
					rec.after = info.First - 1
					rec.read(ctx, last)
					return
				}
			}
			rec.broken = true
			return
		}
		rec.after = e.Seq
		ev, err := agui.DecodeEvent(e.Data)
		if err != nil {
			rec.broken = true
			evs = evs[:0] // an entry that does not decode adds nothing
		} else if evs, err = rec.x.Expand(evs[:0], ev); err != nil {
			rec.broken = true
		}
		for _, ev := range evs {
			rec.conv.Apply(ev)
		}
		if e.Terminal || e.Seq >= last {
			return
		}
	}
}

// finish writes the run's end into the thread's record.
func (rec *threadRecorder) finish(ctx context.Context) {
	c := rec.conv
	o := c.Outcome()
	run := threads.Run{Ended: time.Now(), Usage: o.Usage}
	switch o.Status {
	case conversation.Succeeded:
		run.Outcome = threads.OutcomeSucceeded
	case conversation.Interrupted:
		run.Outcome = threads.OutcomeInterrupted
	case conversation.Cancelled:
		run.Outcome = threads.OutcomeCancelled
	default:
		run.Outcome = threads.OutcomeFailed
		if o.Error != nil {
			run.Error = o.Error.Message
			if o.Error.Code != nil {
				run.Code = *o.Error.Code
			}
		}
		// A run stopped while it had a message open ends in RUN_ERROR
		// CANCELLED (RUN_FINISHED cancelled cannot close the message): it
		// was stopped on purpose, not failed. Its code and message stay.
		if run.Code == string(agui.CodeCancelled) {
			run.Outcome = threads.OutcomeCancelled
		}
	}
	if rec.broken {
		run.Outcome = threads.OutcomeIncomplete
	}
	msgs, state, interrupts := c.Messages(), c.State(), c.Interrupts()
	id := rec.input.RunID
	err := rec.t.store.Update(ctx, rec.input.ThreadID, func(r *threads.Record) {
		// mine: no other run of the thread started since this one.
		mine := r.LiveRunID == id
		p, listed := r.Run(id)
		if listed && p.Outcome != threads.OutcomeRunning || !listed && !mine && rec.adopted {
			// Its end is recorded already: another replica saw it
			// first (adopt), or this one, when it adopts.
			return
		}
		if mine && r.Ended == rec.base.Ended {
			r.Messages = msgs
		} else {
			// Another run of the thread started or ended meanwhile: its
			// messages stay, this run's are merged in by id.
			r.Messages = mergeByID(r.Messages, msgs)
		}
		if mine {
			// A run that started later has the newer state; it records
			// it when it ends.
			r.State, r.Interrupts = state, interrupts
			r.LiveRunID = ""
		}
		if listed {
			run.RunID, run.Started = id, p.Started
			*p = run
		} else {
			run.RunID = id
			r.Runs = append(r.Runs, run)
		}
		r.Ended++
	})
	if err != nil {
		rec.t.cfg.run.logger.Warn("agui/server: the thread store failed; the run's end is not recorded",
			"thread_id", rec.input.ThreadID, "run_id", id, "error", err)
	}
}

// settle makes sure the record of run runID's thread holds the run's end,
// once a reader of this replica got its terminal event: it waits for the
// run's recorder when the run is this replica's, and records the end
// itself (adopt) when it is not. A stream that got a run's terminal event
// ends after it, so that its client, asking for the thread next, finds the
// run there, on any replica.
func (t *threadRuns) settle(ctx context.Context, threadID, runID string) {
	t.mu.Lock()
	rec := t.recs[runID]
	t.mu.Unlock()
	if rec != nil {
		select {
		case <-rec.done:
		case <-ctx.Done():
		}
		return
	}
	t.adopt(ctx, threadID, runID)
}

// adopt records the end of run runID in its thread, from the run log, when
// the log holds the run's terminal event but the thread still lists the run
// as running: the replica that ran it went away before it recorded the end
// (its log ended the run with RUN_LOST), or has yet to. Whichever replica
// sees the end first records it; the others find it recorded and change
// nothing. It reports whether the record may have changed.
func (t *threadRuns) adopt(ctx context.Context, threadID, runID string) bool {
	info, err := t.d.log.Info(ctx, runID)
	if err != nil || !info.Ended || info.ThreadID != "" && info.ThreadID != threadID {
		return false
	}
	base, err := t.store.Get(ctx, threadID)
	if err != nil {
		return false
	}
	if p, ok := base.Run(runID); base.LiveRunID != runID && (!ok || p.Outcome != threads.OutcomeRunning) {
		return false
	}
	rec := &threadRecorder{
		t: t, input: &agui.RunAgentInput{ThreadID: threadID, RunID: runID}, base: base, adopted: true,
		conv: conversation.New(base.Messages, base.State),
	}
	rec.read(ctx, info.Last)
	rec.finish(ctx)
	return true
}

// mergeByID is have with each of msgs replacing the message of its id, or
// appended when have has none.
func mergeByID(have, msgs []agui.Message) []agui.Message {
	at := make(map[string]int, len(have))
	for i, m := range have {
		if _, dup := at[m.MessageID()]; !dup {
			at[m.MessageID()] = i
		}
	}
	for _, m := range msgs {
		if i, ok := at[m.MessageID()]; ok {
			have[i] = m
		} else {
			at[m.MessageID()] = len(have)
			have = append(have, m)
		}
	}
	return have
}

// The thread routes, by their last segment.
const (
	routeThread  = ""       // GET …/threads/{threadId}
	routeConnect = "events" // GET …/threads/{threadId}/events
)

// threadRoute reads the thread route an escaped request path names: one
// whose last segments are "threads" and a thread id, and "events" for
// connect.
func threadRoute(path string) (threadID, route string, ok bool) {
	rest, last := cutSegment(path)
	id, route := last, routeThread
	if last == routeConnect {
		if r2, id2 := cutSegment(rest); id2 != "" {
			if _, seg := cutSegment(r2); seg == "threads" {
				rest, id, route = r2, id2, routeConnect
			}
		}
	}
	// Otherwise …/threads/events is the thread named "events".
	if _, seg := cutSegment(rest); seg != "threads" || id == "" {
		return "", "", false
	}
	id, err := url.PathUnescape(id)
	if err != nil {
		return "", "", false
	}
	return id, route, true
}

// serve answers the thread routes.
func (t *threadRuns) serve(w http.ResponseWriter, r *http.Request, threadID, route string) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		t.cfg.reject(w, r, agui.HTTPCodeMethodNotAllowed, "method "+r.Method+" is not allowed here; use GET", "threadId", threadID)
		return
	}
	if t.auth == nil {
		t.cfg.reject(w, r, agui.HTTPCodeForbidden, "thread routes need an authorization hook; none is configured", "threadId", threadID)
		return
	}
	if err := t.auth(r, threadID, ""); err != nil {
		t.cfg.reject(w, r, agui.HTTPCodeForbidden, err.Error(), "threadId", threadID)
		return
	}
	if route == routeConnect {
		t.serveConnect(w, r, threadID)
		return
	}
	before, limit, err := pageOf(r, t.page)
	if err != nil {
		t.cfg.reject(w, r, agui.HTTPCodeInvalidCursor, err.Error(), "threadId", threadID)
		return
	}
	rec, ok := t.get(w, r, threadID)
	if !ok {
		return
	}
	body, err := threadJSON(&rec, before, limit)
	if err != nil {
		t.cfg.reject(w, r, agui.HTTPCodeInvalidCursor, err.Error(), "threadId", threadID)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n'))
}

// get reads a thread's record, or answers the request with why not.
func (t *threadRuns) get(w http.ResponseWriter, r *http.Request, threadID string) (threads.Record, bool) {
	rec, err := t.store.Get(r.Context(), threadID)
	if err == nil && rec.LiveRunID != "" && !t.local(rec.LiveRunID) && t.adopt(r.Context(), threadID, rec.LiveRunID) {
		// Its live run ended on a replica that did not record the end.
		rec, err = t.store.Get(r.Context(), threadID)
	}
	switch {
	case err == nil:
		return rec, true
	case errors.Is(err, threads.ErrNotFound):
		t.cfg.reject(w, r, agui.HTTPCodeRunNotFound, "no thread "+strconv.Quote(threadID), "threadId", threadID)
	case errors.Is(err, threads.ErrExpired):
		t.cfg.reject(w, r, agui.HTTPCodeRunExpired, "thread "+strconv.Quote(threadID)+" has expired", "threadId", threadID)
	default:
		w.Header().Set("Retry-After", "1")
		t.cfg.reject(w, r, agui.HTTPCodeRunLogFailed, "the thread store failed: "+err.Error(), "threadId", threadID)
	}
	return threads.Record{}, false
}

// pageOf reads ?cursor= (where the page starts: the runs before this
// position, newest first; none: from the newest) and ?limit=.
func pageOf(r *http.Request, page int) (before int, limit int, err error) {
	q := r.URL.Query()
	before, limit = -1, page
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > maxRunsPage {
			return 0, 0, errors.New("limit " + strconv.Quote(v[0]) + " is not a number from 1 to " + strconv.Itoa(maxRunsPage))
		}
		limit = n
	}
	if v, ok := q["cursor"]; ok {
		n, err := strconv.ParseUint(v[0], 10, 31)
		if err != nil {
			return 0, 0, errors.New("cursor " + strconv.Quote(v[0]) + " is not a cursor of this thread's runs")
		}
		before = int(n)
	}
	return before, limit, nil
}

// threadBody is the JSON of GET {path}/threads/{threadId}.
type threadBody struct {
	ThreadID        string            `json:"threadId"`
	Messages        []json.RawMessage `json:"messages"`
	State           json.RawMessage   `json:"state"`
	Interrupts      []agui.Interrupt  `json:"interrupts"`
	LiveRunID       string            `json:"liveRunId,omitempty"`
	Runs            []threads.Run     `json:"runs"`
	NextCursor      string            `json:"nextCursor,omitempty"`
	DroppedMessages int               `json:"droppedMessages,omitempty"`
	DroppedRuns     int               `json:"droppedRuns,omitempty"`
	Updated         time.Time         `json:"updated"`
}

// threadJSON encodes a record with the page of its runs before position
// before (-1: from the newest). A position counts the thread's runs from its
// first, dropped ones included, so that a cursor stays valid while runs are
// added and old ones dropped.
func threadJSON(rec *threads.Record, before, limit int) ([]byte, error) {
	total := rec.DroppedRuns + len(rec.Runs)
	if before < 0 {
		before = total
	}
	if before > total {
		return nil, errors.New("cursor " + strconv.Itoa(before) + " is beyond this thread's runs")
	}
	b := threadBody{
		ThreadID: rec.ThreadID, State: rec.State, Interrupts: rec.Interrupts, LiveRunID: rec.LiveRunID,
		Messages: make([]json.RawMessage, 0, len(rec.Messages)), Runs: []threads.Run{},
		DroppedMessages: rec.DroppedMessages, DroppedRuns: rec.DroppedRuns, Updated: rec.Updated,
	}
	if b.State == nil {
		b.State = json.RawMessage(`{}`)
	}
	if b.Interrupts == nil {
		b.Interrupts = []agui.Interrupt{}
	}
	for _, m := range rec.Messages {
		data, err := m.AppendJSON(nil)
		if err != nil {
			return nil, err
		}
		b.Messages = append(b.Messages, data)
	}
	for pos := before - 1; pos >= rec.DroppedRuns && len(b.Runs) < limit; pos-- {
		b.Runs = append(b.Runs, rec.Runs[pos-rec.DroppedRuns])
		if len(b.Runs) == limit && pos > rec.DroppedRuns {
			b.NextCursor = strconv.Itoa(pos)
		}
	}
	return json.Marshal(b)
}
