package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/threads"
	"github.com/agui-go/sdk/internal/protover"
)

// threadCursor is where a reader of a connect stream left off, as the SSE
// id of the last frame it got says: "s<n>" after the replayed run of a
// thread whose runs had ended n times, "r<seq>:<runId>" after event seq of
// the run followed live (the run id query-escaped).
type threadCursor struct {
	kind  byte // 0: none, 's' or 'r'
	ended int
	seq   uint64
	run   string
}

func (c threadCursor) String() string {
	switch c.kind {
	case 's':
		return "s" + strconv.Itoa(c.ended)
	case 'r':
		return "r" + strconv.FormatUint(c.seq, 10) + ":" + url.QueryEscape(c.run)
	}
	return ""
}

// parseThreadCursor reads a Last-Event-ID of a connect stream ("" is none).
func parseThreadCursor(s string) (threadCursor, error) {
	bad := fmt.Errorf("Last-Event-ID %q is not a position in a thread's stream", s)
	switch {
	case s == "":
		return threadCursor{}, nil
	case s[0] == 's':
		n, err := strconv.ParseUint(s[1:], 10, 31)
		if err != nil {
			return threadCursor{}, bad
		}
		return threadCursor{kind: 's', ended: int(n)}, nil
	case s[0] == 'r':
		seqText, run, ok := strings.Cut(s[1:], ":")
		seq, err := strconv.ParseUint(seqText, 10, 64)
		if !ok || err != nil {
			return threadCursor{}, bad
		}
		if run, err = url.QueryUnescape(run); err != nil || run == "" {
			return threadCursor{}, bad
		}
		return threadCursor{kind: 'r', seq: seq, run: run}, nil
	}
	return threadCursor{}, bad
}

// serveConnect answers GET …/threads/{threadId}/events.
func (t *threadRuns) serveConnect(w http.ResponseWriter, r *http.Request, threadID string) {
	cfg := t.cfg
	if h := strings.TrimSpace(strings.Join(r.Header.Values("Accept"), ",")); h != "" && !admits(h, "text", "event-stream") {
		cfg.reject(w, r, agui.HTTPCodeNotAcceptable, "a thread's stream is served as "+MediaTypeSSE+" only; the Accept header does not admit it", "threadId", threadID)
		return
	}
	cur, err := parseThreadCursor(strings.TrimSpace(r.Header.Get(headerLastEventID)))
	if err != nil {
		cfg.reject(w, r, agui.HTTPCodeInvalidCursor, err.Error(), "threadId", threadID)
		return
	}
	served, err := cfg.readerVersion(r)
	if err != nil {
		cfg.reject(w, r, agui.HTTPCodeUnsupportedProtocolVersion, err.Error(), "threadId", threadID)
		return
	}
	rec, ok := t.get(w, r, threadID)
	if !ok {
		return
	}
	if n := int64(cfg.maxRuns); n > 0 {
		defer t.d.slots.Add(-1)
		if t.d.slots.Add(1) > n {
			cfg.rejectOverloaded(w, r, n)
			return
		}
	}
	snapshot, follow, from := t.plan(r.Context(), &rec, cur)
	var end ConnectEnd // how the stream ended, for the observer
	if o := cfg.run.observer; o != nil && o.Connect != nil {
		if observed := o.Connect(r.Context(), ConnectInfo{ThreadID: threadID, Replayed: snapshot, LiveRunID: follow, Request: r}); observed != nil {
			defer func() { observed(end) }()
		}
	}

	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	startStream(w, encodingSSE)
	out := newStreamWriter(w, cfg, cfg.keepAlive, new(sync.Mutex), new(queue), cancel)
	defer out.close()
	if snapshot {
		if err := t.writeReplay(r, out, &rec, served); err != nil {
			end.Cause = readerCause(r)
			return
		}
	}
	if follow == "" {
		end.Ended = true
		return
	}
	t.d.attach(follow)
	rctx, stop := t.d.readContext(r, follow)
	defer stop()
	rctx, rcancel := context.WithCancelCause(rctx)
	defer rcancel(nil)
	stopOnCut := context.AfterFunc(ctx, func() { rcancel(context.Cause(ctx)) })
	defer stopOnCut()
	ended := t.followRun(rctx, r, out, threadID, follow, from, served.Downgrade)
	cause := readerCause(r)
	t.d.detach(follow, ended, cause)
	end.Ended = ended
	if !ended {
		end.Cause = cause
	}
}

// plan decides what a connect stream holds: whether the replayed run comes
// first, and which run it follows (if any) after which event. A cursor the
// thread has moved past (its run ended and the log forgot it, or runs
// ended since) gets the thread afresh: a MESSAGES_SNAPSHOT reconciles with
// what the reader holds by message id, so nothing is shown twice.
func (t *threadRuns) plan(ctx context.Context, rec *threads.Record, cur threadCursor) (snapshot bool, follow string, from uint64) {
	switch cur.kind {
	case 's':
		if cur.ended == rec.Ended {
			return false, rec.LiveRunID, 0
		}
	case 'r':
		if cur.run == rec.LiveRunID {
			if info, err := t.d.log.Info(ctx, cur.run); err == nil && cur.seq+1 >= info.First && cur.seq <= info.Last {
				return false, cur.run, cur.seq
			}
		}
		// The run the reader followed ended since; if nothing else did,
		// the rest of it is all the reader missed.
		if n := len(rec.Runs); rec.LiveRunID == "" && n > 0 && rec.Runs[n-1].RunID == cur.run {
			if info, err := t.d.log.Info(ctx, cur.run); err == nil && cur.seq+1 >= info.First && cur.seq <= info.Last {
				if cur.seq == info.Last {
					return false, "", 0
				}
				return false, cur.run, cur.seq
			}
		}
	}
	return true, rec.LiveRunID, 0
}

// writeReplay writes the replayed run of a record: the thread so far, in
// the version served (its RUN_STARTED declares it; a 1.0 reader's messages
// lose what 1.1 added, logged as the emitter logs it).
func (t *threadRuns) writeReplay(r *http.Request, out *streamWriter, rec *threads.Record, served protover.Served) error {
	runID := ""
	for i := len(rec.Runs) - 1; i >= 0 && runID == ""; i-- {
		if rec.Runs[i].RunID != rec.LiveRunID {
			runID = rec.Runs[i].RunID
		}
	}
	if runID == "" {
		runID = "replay-" + agui.NewID()
	}
	msgs := nonNil(rec.Messages)
	if served.Downgrade {
		var lost []string
		if msgs, lost = protover.StripMessages(msgs, "/messages"); lost != nil {
			t.cfg.run.logger.WarnContext(r.Context(), "agui/server: the reader speaks protocol 1.0; dropped what 1.1 added",
				"threadId", rec.ThreadID, "type", string(agui.EventTypeMessagesSnapshot), "dropped", strings.Join(lost, ","))
		}
	}
	started := agui.NewRunStarted(rec.ThreadID, runID)
	started.ProtocolVersion = new(declares(served))
	evs := []agui.Event{
		started,
		agui.NewMessagesSnapshot(msgs),
		agui.NewStateSnapshot(stateOf(rec.State)),
	}
	if rec.DroppedMessages > 0 || rec.DroppedRuns > 0 {
		v, _ := json.Marshal(map[string]int{"droppedMessages": rec.DroppedMessages, "droppedRuns": rec.DroppedRuns})
		evs = append(evs, agui.NewCustom(ThreadTruncatedEvent, v))
	}
	fin := agui.NewRunFinished(rec.ThreadID, runID)
	if len(rec.Interrupts) > 0 {
		fin.Outcome = &agui.RunFinishedInterruptOutcome{Interrupts: rec.Interrupts}
	} else {
		fin.Outcome = &agui.RunFinishedSuccessOutcome{}
	}
	evs = append(evs, fin)
	var frame []byte
	for i, ev := range evs {
		frame = frame[:0]
		if i == len(evs)-1 {
			frame = append(frame, "id: "...)
			frame = append(frame, threadCursor{kind: 's', ended: rec.Ended}.String()...)
			frame = append(frame, '\n')
		}
		frame = append(frame, "data: "...)
		var err error
		if frame, err = ev.AppendJSON(frame); err != nil {
			return err
		}
		frame = append(frame, "\n\n"...)
		if err := out.add(0, frame, false); err != nil {
			return err
		}
	}
	return nil
}

func nonNil(msgs []agui.Message) []agui.Message {
	if msgs == nil {
		return []agui.Message{}
	}
	return msgs
}

func stateOf(s json.RawMessage) json.RawMessage {
	if s == nil {
		return json.RawMessage(`{}`)
	}
	return s
}

// followRun writes run runID's events after from, each with its cursor as
// its SSE id, until its terminal event (reported as ended) or until the
// reader leaves.
//
// With down, each event is served as downgradeLogged makes it.
func (t *threadRuns) followRun(ctx context.Context, r *http.Request, out *streamWriter, threadID, runID string, from uint64, down bool) (ended bool) {
	var frame []byte
	after := from
	for e, err := range t.d.log.Read(ctx, runID, from) {
		if err != nil {
			// A run whose log is gone before anything of it was written
			// leaves the stream as it is: the replayed run is whole. One
			// that fails midway ends with RUN_LOG_UNAVAILABLE.
			if ctx.Err() == nil && after > 0 && !errors.Is(err, context.Canceled) {
				endUnfollowed(out, encodingSSE, runID, after, err, t.cfg)
			}
			return false
		}
		after = e.Seq
		data := e.Data
		if down {
			if data, err = t.d.downgrade(r, runID, e.Seq, data); err != nil {
				return false
			}
		}
		frame = append(frame[:0], "id: "...)
		frame = append(frame, threadCursor{kind: 'r', seq: e.Seq, run: runID}.String()...)
		frame = append(frame, "\ndata: "...)
		frame = append(frame, data...)
		frame = append(frame, "\n\n"...)
		if out.add(0, frame, e.Terminal) != nil {
			return false
		}
		if e.Terminal {
			t.settle(ctx, threadID, runID)
			return true
		}
	}
	return false
}
