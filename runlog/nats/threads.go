package natslog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/threads"
)

// ThreadsOptions configure a [Threads] store. A zero field takes its
// default.
type ThreadsOptions struct {
	// Bucket names the key-value bucket that holds the threads. Default
	// "AGUI_THREADS". Replicas that share threads use the same bucket.
	Bucket string
	// Bounds bound each thread's record exactly as they bound a
	// threads.Memory store's (threads.Bounds.Trim: the oldest messages and
	// runs go first, Record.DroppedMessages and DroppedRuns count them);
	// zero fields take the memory store's defaults. A record is also kept
	// within the connection's maximum payload (1 MB by default in
	// nats-server): one that would pass it drops more of its oldest
	// messages, then runs, counted the same way.
	Bounds threads.Bounds
	// TTL is how long a thread nobody reads or writes is kept: past it, Get
	// answers threads.ErrExpired. A thread with a live run is not expired
	// by it. A read renews it, as the memory store's do, writing the
	// record back when its last use is more than a tenth of the TTL ago.
	// Default 24 hours.
	TTL time.Duration
	// Remember is how long an expired thread's record outlives its TTL so
	// that it answers ErrExpired (HTTP 410) rather than ErrNotFound (404);
	// the bucket's max age is TTL+Remember, which bounds what it holds
	// (and what a thread with a live run that is never written again
	// outlives). Default: TTL.
	Remember time.Duration
	// Memory keeps the bucket in memory instead of on disk.
	Memory bool
	// Replicas is how many servers of a JetStream cluster keep a copy of
	// the bucket: 0 keeps the count of a bucket that already exists and
	// creates a missing one with 1 (as Options.Replicas).
	Replicas int
	// RequestTimeout bounds each JetStream request a call with a context
	// without deadline makes. Default 5s.
	RequestTimeout time.Duration
	// Now is the clock of the TTL and of Record.Updated (time.Now by
	// default); tests move it.
	Now func() time.Time
}

// ErrThreadCorrupt: the bucket holds an entry for the thread that does not
// decode as its record (written by something else, or by an incompatible
// version). Get and Update fail with it, wrapped with the thread's id; an
// operator deletes the key to start the thread afresh.
var ErrThreadCorrupt = errors.New("natslog: thread record does not decode")

// Threads is a [threads.Store] on a JetStream key-value bucket, for
// replicas that share threads: each thread's record is one key (the
// SHA-256 of the thread id, as run ids are keyed), its value the record's
// JSON; an update reads the record, changes it and writes it back only if
// nobody wrote it meanwhile (the key's revision), else reads it again and
// starts over, so concurrent updates from any number of replicas are never
// lost.
type Threads struct {
	kv    *bucket
	opts  ThreadsOptions
	limit int // the largest value the connection may publish
}

var _ threads.Store = (*Threads)(nil)

const (
	defaultThreadsBucket = "AGUI_THREADS"
	defaultThreadsTTL    = 24 * time.Hour
	// threadRecordVersion is the encoding of a record in the bucket.
	threadRecordVersion = 1
	// payloadMargin is left of the connection's maximum payload for the
	// message's subject and headers.
	payloadMargin = 4 << 10
)

// NewThreads creates (or joins) the bucket on nc. nc stays the caller's;
// the store has no background work and nothing to close.
func NewThreads(ctx context.Context, nc *nats.Conn, opts ThreadsOptions) (*Threads, error) {
	if opts.Bucket == "" {
		opts.Bucket = defaultThreadsBucket
	}
	if opts.TTL <= 0 {
		opts.TTL = defaultThreadsTTL
	}
	if opts.Remember <= 0 {
		opts.Remember = opts.TTL
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = defaultRequestTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(opts.RequestTimeout))
	if err != nil {
		return nil, err
	}
	storage := jetstream.FileStorage
	if opts.Memory {
		storage = jetstream.MemoryStorage
	}
	r := opts.Replicas
	if r <= 0 {
		switch s, err := js.Stream(ctx, "KV_"+opts.Bucket); {
		case errors.Is(err, jetstream.ErrStreamNotFound):
			r = 1
		case err != nil:
			return nil, fmt.Errorf("natslog: thread bucket %s: %w", opts.Bucket, err)
		default:
			r = max(s.CachedInfo().Config.Replicas, 1)
		}
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: opts.Bucket, Description: "agui-go threads", TTL: opts.TTL + opts.Remember,
		Storage: storage, Replicas: r, History: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("natslog: thread bucket %s: %w", opts.Bucket, err)
	}
	return &Threads{kv: newBucket(nc, kv, r, opts.RequestTimeout), opts: opts, limit: int(nc.MaxPayload()) - payloadMargin}, nil
}

// storedThread is a record's encoding in the bucket.
type storedThread struct {
	V        int    `json:"v"`
	ThreadID string `json:"threadId"`
	// Conversation is a MESSAGES_SNAPSHOT event of the messages: the
	// protocol's own encoding of a conversation, decoded as a client
	// decodes it.
	Conversation    json.RawMessage  `json:"conversation"`
	State           json.RawMessage  `json:"state,omitempty"`
	Interrupts      []agui.Interrupt `json:"interrupts,omitempty"`
	Runs            []threads.Run    `json:"runs,omitempty"`
	LiveRunID       string           `json:"liveRunId,omitempty"`
	DroppedMessages int              `json:"droppedMessages,omitempty"`
	DroppedRuns     int              `json:"droppedRuns,omitempty"`
	Ended           int              `json:"ended,omitempty"`
	Updated         time.Time        `json:"updated"`
	// Used is the last read or write, for the TTL.
	Used time.Time `json:"used"`
}

// Get implements [threads.Store].
func (s *Threads) Get(ctx context.Context, threadID string) (threads.Record, error) {
	k := key(threadID)
	rec, used, rev, err := s.load(ctx, k, threadID)
	if err != nil {
		return threads.Record{}, err
	}
	now := s.opts.Now()
	if now.Sub(used) > s.opts.TTL/10 {
		// Renew the TTL; a write meanwhile renewed it already, and a
		// renewal that fails costs the thread nothing before its TTL.
		if data, err := encodeThread(&rec, now); err == nil && len(data) <= s.limit {
			_, _ = s.kv.Update(ctx, k, data, rev)
		}
	}
	return rec, nil
}

// Update implements [threads.Store]. fn is called again, on the record as
// the other update left it, for each update of another replica that came
// first.
func (s *Threads) Update(ctx context.Context, threadID string, fn func(*threads.Record)) error {
	k := key(threadID)
	for {
		rec, _, rev, err := s.load(ctx, k, threadID)
		switch {
		case errors.Is(err, threads.ErrNotFound), errors.Is(err, threads.ErrExpired):
			rec = threads.Record{ThreadID: threadID} // rev stays: an expired one is replaced
		case err != nil:
			return err
		}
		fn(&rec)
		now := s.opts.Now()
		rec.ThreadID, rec.Updated = threadID, now
		data, err := s.fit(&rec, now)
		if err != nil {
			return fmt.Errorf("natslog: thread %q: %w", threadID, err)
		}
		if rev == 0 {
			_, err = s.kv.Create(ctx, k, data)
		} else {
			_, err = s.kv.Update(ctx, k, data, rev)
		}
		if err == nil {
			return nil
		}
		if !conflict(err) {
			return fmt.Errorf("natslog: thread %q: %w", threadID, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// conflict reports whether err is a write that lost to another: the key
// exists (a Create) or has moved past the revision (an Update).
func conflict(err error) bool {
	var api *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) ||
		errors.As(err, &api) && api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// load reads the thread's record and its revision: ErrNotFound when the
// bucket has none (rev 0), ErrExpired, with the revision, when its TTL
// passed.
func (s *Threads) load(ctx context.Context, k, threadID string) (threads.Record, time.Time, uint64, error) {
	e, err := s.kv.Latest(ctx, k)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return threads.Record{}, time.Time{}, 0, threads.ErrNotFound
	case err != nil:
		return threads.Record{}, time.Time{}, 0, fmt.Errorf("natslog: thread %q: %w", threadID, err)
	}
	rec, used, err := decodeThread(e.Value(), threadID)
	if err != nil {
		return threads.Record{}, time.Time{}, 0, err
	}
	if rec.LiveRunID == "" && s.opts.Now().Sub(used) >= s.opts.TTL {
		return threads.Record{}, time.Time{}, e.Revision(), threads.ErrExpired
	}
	return rec, used, e.Revision(), nil
}

// fit bounds rec and encodes it, within the connection's maximum payload.
func (s *Threads) fit(rec *threads.Record, used time.Time) ([]byte, error) {
	b := s.opts.Bounds
	size := b.Trim(rec)
	for {
		data, err := encodeThread(rec, used)
		if err != nil {
			return nil, err
		}
		over := len(data) - s.limit
		switch {
		case over <= 0:
			return data, nil
		case len(rec.Messages) > 0:
			size = threads.Bounds{MaxMessages: b.MaxMessages, MaxBytes: max(size-over, 1), MaxRuns: b.MaxRuns}.Trim(rec)
		case len(rec.Runs) > 1:
			threads.Bounds{MaxBytes: 1, MaxRuns: len(rec.Runs) / 2}.Trim(rec)
		default:
			return nil, fmt.Errorf("its record is %d bytes without messages, more than the %d bytes NATS takes", len(data), s.limit)
		}
	}
}

func encodeThread(rec *threads.Record, used time.Time) ([]byte, error) {
	msgs := rec.Messages
	if msgs == nil {
		msgs = []agui.Message{}
	}
	conv, err := agui.NewMessagesSnapshot(msgs).AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(storedThread{
		V: threadRecordVersion, ThreadID: rec.ThreadID, Conversation: conv, State: rec.State,
		Interrupts: rec.Interrupts, Runs: rec.Runs, LiveRunID: rec.LiveRunID,
		DroppedMessages: rec.DroppedMessages, DroppedRuns: rec.DroppedRuns, Ended: rec.Ended,
		Updated: rec.Updated, Used: used,
	})
}

func decodeThread(data []byte, threadID string) (threads.Record, time.Time, error) {
	bad := func(why string) (threads.Record, time.Time, error) {
		return threads.Record{}, time.Time{}, fmt.Errorf("%w: thread %q: %s", ErrThreadCorrupt, threadID, why)
	}
	var st storedThread
	if err := json.Unmarshal(data, &st); err != nil {
		return bad(err.Error())
	}
	switch {
	case st.V != threadRecordVersion:
		return bad("encoding version " + strconv.Itoa(st.V) + ", not " + strconv.Itoa(threadRecordVersion))
	case st.ThreadID != threadID:
		return bad("the entry is thread " + strconv.Quote(st.ThreadID) + "'s")
	}
	ev, err := agui.DecodeEvent(st.Conversation)
	if err != nil {
		return bad("its conversation: " + err.Error())
	}
	snap, ok := ev.(*agui.MessagesSnapshot)
	if !ok {
		return bad("its conversation is a " + string(ev.Type()))
	}
	return threads.Record{
		ThreadID: st.ThreadID, Messages: snap.Messages, State: st.State, Interrupts: st.Interrupts,
		Runs: st.Runs, LiveRunID: st.LiveRunID, DroppedMessages: st.DroppedMessages, DroppedRuns: st.DroppedRuns,
		Ended: st.Ended, Updated: st.Updated,
	}, st.Used, nil
}
