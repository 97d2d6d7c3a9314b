// Package natslog is a [runlog.Log] on NATS JetStream, for durable runs
// served by several replicas: any replica can reattach a client to a run, or
// cancel it, whichever replica runs it; and when a replica dies, another one
// notices its lease expire and ends its runs with RUN_ERROR code RUN_LOST.
//
// Layout: one stream holds every run's events, one subject per run
// (<prefix>.ev.<key>, where the key is a hash of the run id, so that ids of
// any length and content make subjects of one bounded token), kept for the
// TTL; a key-value bucket holds each run's
// description (<prefix>_META), kept Remember longer so that a run whose
// events expired answers ErrExpired rather than ErrNotFound; another holds
// the leases (<prefix>_LEASE), renewed by the owner every third of the lease
// time. A read starts at the stream sequence of the first event it wants. A
// cancel is a core NATS message on <prefix>.cancel.<key>, which only the
// owner listens to; a read of a live run beats on <prefix>.readers.<key>
// every second, so that the owner counts readers on every replica
// (runlog.RemoteReaders). Use one Log per replica: the owner counts only
// the reads of other Logs.
//
// An outage (NATS down, a cluster between leaders) is waited out for up to
// Options.MaxOutage: appends are tried again and emits wait; past it the
// run is stopped and ended with RUN_LOG_UNAVAILABLE once NATS is back.
//
// Every message carries the number of its (first) event in a header. A
// run's appends are pipelined (Options.Window): they expect the run's
// fence, which a replica that declares the run lost moves before it
// appends RUN_LOST, and the run's end expects the run's last message; so a
// replica that declared the run lost and a late owner can never both
// append: exactly one terminal event, nothing after it. With a negative
// Window every append expects the run's previous message instead.
package natslog

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
)

const (
	hdrSeq      = "Agui-Seq"
	hdrTerminal = "Agui-Terminal"
)

// Options configure a [Log]. A zero field takes its default.
type Options struct {
	// Prefix names the stream, the buckets and the subjects. Default
	// "AGUI_RUNLOG" (subjects "agui_runlog.…").
	Prefix string
	// Lease is how long a run outlives the last sign of life of its owner
	// before another replica declares it lost. Default 5s.
	Lease time.Duration
	// TTL is how long run logs are kept (the stream's and the lease
	// bucket's max age). Default 1 hour.
	TTL time.Duration
	// Remember is how long a run's description outlives its events, so
	// that a run whose log expired answers ErrExpired (HTTP 410) rather
	// than ErrNotFound (404) for that long. Default: TTL.
	Remember time.Duration
	// Memory keeps the stream in memory instead of on disk.
	Memory bool
	// Replicas is how many servers of a JetStream cluster keep a copy of
	// the stream and of both buckets: 3 survives the loss of one server
	// (in a cluster of at least three), 1 keeps one copy. 0 (the default)
	// keeps the count of a stream or bucket that already exists (one an
	// operator created beforehand, say with R3, is never scaled down) and
	// creates missing ones with 1. A count the cluster cannot place fails
	// New.
	Replicas int
	// Window pipelines each run's appends: Append queues the event and
	// returns, up to Window events ahead of the log (then it waits), and
	// the queue goes to JetStream as asynchronous publishes. Each expects
	// the run's fence rather than the run's previous message, so they need
	// no acknowledgement in between, and a replica that takes the run
	// moves the fence first: nothing of the owner's lands after that
	// replica's end. The events that queue while a publish is on its way
	// go out together, several in one message (see pack): nothing waits
	// to fill one, so this adds no latency, and an agent that emits faster
	// than the log acknowledges costs JetStream a message per batch rather
	// than per event. A reader (the POST's own stream included) sees an
	// event once it is in the log, so running ahead shows nobody anything
	// the log might lose. The terminal event's Append and Close wait for
	// the queue to drain; a failure that cannot be repaired fails every
	// later Append (see pipe).
	//
	// 0 (the default) is a window of 64. Negative: one acknowledged
	// publish per event, Append returning once its event is in the log,
	// at a round trip an event (a tenth of the pipelined speed and less).
	Window int
	// MaxOutage is how long a run waits out a log it cannot reach (NATS
	// down or restarting, a cluster between leaders): its appends are
	// tried again meanwhile, and the agent's emits wait for them. A run
	// that cannot append for longer is stopped (its appends fail with
	// runlog.ErrUnavailable) and its owner ends its log with RUN_ERROR
	// code RUN_LOG_UNAVAILABLE as soon as NATS is back. A reader waits a
	// lease longer before it gives up with runlog.ErrUnavailable (the
	// server then ends its client's stream with that code). Default 1
	// minute.
	MaxOutage time.Duration
	// RequestTimeout bounds each JetStream request the log makes (a
	// publish and its acknowledgement, a lookup, a read's setup): a
	// request sent to a server that then went away is never answered, and
	// bounded by its caller's context alone it held the caller as long as
	// that context lasted. A request that times out during an append is
	// tried again within MaxOutage. Default 5s; raise it where JetStream
	// answers slowly under load (a burst of a thousand runs starting at
	// once on a small machine, say).
	RequestTimeout time.Duration
}

// defaultRequestTimeout is Options.RequestTimeout's default.
const defaultRequestTimeout = 5 * time.Second

// defaultWindow is Options.Window's default: enough events ahead of the
// log that a fast agent's appends go out packed (a window of 64 reached
// 2.5 to 5 times raw asynchronous publishes of the same events; 256 and
// 1,024 did no better), few enough that a run holds little in memory.
const defaultWindow = 64

// Log is a JetStream run log. Close stops its background work.
type Log struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	opts   Options
	stream jetstream.Stream
	meta   *bucket
	lease  *bucket
	subj   string // subject prefix, lower case
	id     string // this Log's, so that its owners tell its reads from other replicas'

	stop chan struct{}
	done chan struct{}
	once sync.Once

	// ctx ends at Close: it stops the writers that went on trying to end
	// their runs after an outage (see writer.finishLater), tracked by
	// finishing.
	ctx       context.Context
	cancel    context.CancelFunc
	finishing sync.WaitGroup
	// finishMu orders each finishing.Add before Close's Wait (a WaitGroup
	// must not be added to from zero while it is waited on); closing,
	// under it, says Close has begun and no writer may start finishing.
	finishMu sync.Mutex
	closing  bool

	// contact is when the lease watch last regained contact with the
	// lease bucket (zero while it has none): it judges no lease until it
	// has had contact for a whole lease time, so that after an outage the
	// owners, cut off as it was, get to renew theirs first.
	contact time.Time

	// delivered counts the messages every Read received from JetStream,
	// and probes seek's direct gets, so that tests can see how much of a
	// run a resume reads, and how much it costs to find where to start.
	delivered, probes atomic.Uint64

	// hooks lets tests put a fault or an append between a read's steps;
	// nil outside tests.
	hooks *readHooks
}

// readHooks are the points where a test steps into a read (see
// export_test.go).
type readHooks struct {
	beforeOpen  func(cfg *jetstream.OrderedConsumerConfig) error // before each consumer is made; an error fails that open
	afterOpen   func()                                           // after each consumer is made
	afterBehind func()                                           // after reopen asked the stream where the run is
}

var (
	_ runlog.Log           = (*Log)(nil)
	_ runlog.RemoteReaders = (*writer)(nil)
)

// New creates (or joins) the stream and buckets on nc and starts watching
// for lost runs. nc stays the caller's.
func New(ctx context.Context, nc *nats.Conn, opts Options) (*Log, error) {
	if opts.Prefix == "" {
		opts.Prefix = "AGUI_RUNLOG"
	}
	if opts.Lease <= 0 {
		opts.Lease = 5 * time.Second
	}
	if opts.TTL <= 0 {
		opts.TTL = time.Hour
	}
	if opts.Remember <= 0 {
		opts.Remember = opts.TTL
	}
	if opts.MaxOutage <= 0 {
		opts.MaxOutage = defaultMaxOutage
	}
	if opts.Window == 0 {
		opts.Window = defaultWindow
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = defaultRequestTimeout
	}
	// Pipelined appends (Options.Window) are asynchronous publishes: an
	// acknowledgement that never comes fails after the request timeout,
	// and many runs may each have a window out at once. A request whose
	// context has no deadline (a KV write under the caller's context) is
	// bounded by the same timeout.
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(opts.RequestTimeout),
		jetstream.WithPublishAsyncTimeout(opts.RequestTimeout), jetstream.WithPublishAsyncMaxPending(1<<16))
	if err != nil {
		return nil, err
	}
	l := &Log{nc: nc, js: js, opts: opts, subj: lowerToken(opts.Prefix), stop: make(chan struct{}), done: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.id = runlog.NewRunID()
	storage := jetstream.FileStorage
	if opts.Memory {
		storage = jetstream.MemoryStorage
	}
	replicas := func(stream string) (int, error) {
		if opts.Replicas > 0 {
			return opts.Replicas, nil
		}
		s, err := js.Stream(ctx, stream)
		switch {
		case errors.Is(err, jetstream.ErrStreamNotFound):
			return 1, nil
		case err != nil:
			return 0, fmt.Errorf("natslog: stream %s: %w", stream, err)
		}
		return max(s.CachedInfo().Config.Replicas, 1), nil
	}
	r, err := replicas(opts.Prefix)
	if err != nil {
		return nil, err
	}
	l.stream, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:     opts.Prefix,
		Subjects: []string{l.subj + ".ev.*", l.subj + ".fence.*"},
		MaxAge:   opts.TTL,
		Storage:  storage,
		Replicas: r,
	})
	if err != nil {
		return nil, fmt.Errorf("natslog: stream: %w", err)
	}
	// A bucket is the stream KV_<bucket>.
	if r, err = replicas("KV_" + opts.Prefix + "_META"); err != nil {
		return nil, err
	}
	meta, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: opts.Prefix + "_META", TTL: opts.TTL + opts.Remember, Storage: jetstream.StorageType(storage), Replicas: r})
	if err != nil {
		return nil, fmt.Errorf("natslog: meta bucket: %w", err)
	}
	l.meta = newBucket(nc, meta, r, opts.RequestTimeout)
	if r, err = replicas("KV_" + opts.Prefix + "_LEASE"); err != nil {
		return nil, err
	}
	lease, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: opts.Prefix + "_LEASE", TTL: opts.TTL, Storage: jetstream.StorageType(storage), Replicas: r})
	if err != nil {
		return nil, fmt.Errorf("natslog: lease bucket: %w", err)
	}
	l.lease = newBucket(nc, lease, r, opts.RequestTimeout)
	go l.watchLeases()
	return l, nil
}

// Close stops watching for lost runs. Writers still open keep working until
// their connection goes.
func (l *Log) Close() {
	l.once.Do(func() {
		close(l.stop)
		l.cancel()
	})
	<-l.done
	l.finishMu.Lock()
	l.closing = true
	l.finishMu.Unlock()
	l.finishing.Wait()
}

func lowerToken(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// key turns a run id into a subject token and bucket key: the SHA-256 of
// the id in unpadded base64url, 43 bytes of [A-Za-z0-9_-] whatever the id.
// An id's own bytes would make subjects as long as the id (an id of a few
// KiB passes nats-server's control-line limit, and the server then closes
// the connection) and could hold the subject separators "." "*" ">". The
// description in the meta bucket keeps the id itself, and info checks it
// against the id asked for.
func key(runID string) string {
	sum := sha256.Sum256([]byte(runID))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (l *Log) evSubject(runID string) string     { return l.keySubject(key(runID)) }
func (l *Log) keySubject(k string) string        { return l.subj + ".ev." + k }
func (l *Log) cancelSubject(runID string) string { return l.keyCancel(key(runID)) }
func (l *Log) keyCancel(k string) string         { return l.subj + ".cancel." + k }

// fenceSubject is where a run's fence is: one message, which the owner's
// pipelined events expect to be the last there (Options.Window), and which
// a replica that ends the run as lost replaces first.
func (l *Log) fenceSubject(runID string) string { return l.keyFence(key(runID)) }
func (l *Log) keyFence(k string) string         { return l.subj + ".fence." + k }

// meta is what the meta bucket holds per run. It is written when the run
// starts and again when it ends (and, for a run that lasts, every half TTL
// meanwhile), so that it outlives the run's last event by Remember.
type meta struct {
	ThreadID string    `json:"threadId"`
	RunID    string    `json:"runId"`
	Owner    string    `json:"owner"`
	Started  time.Time `json:"started"`
}

// putMeta rewrites a run's description, which resets its age.
func (l *Log) putMeta(ctx context.Context, m meta) error {
	data, _ := json.Marshal(m)
	_, err := l.meta.Put(ctx, key(m.RunID), data)
	return err
}

// Start implements [runlog.Log].
func (l *Log) Start(ctx context.Context, info runlog.Info) (runlog.Writer, error) {
	if info.RunID == "" {
		return nil, errors.New("natslog: empty run id")
	}
	if !utf8.ValidString(info.RunID) {
		// The description keeps the id in JSON, which would change it.
		return nil, errors.New("natslog: run id is not valid UTF-8")
	}
	if err := l.reachable(); err != nil {
		return nil, err
	}
	m := meta{ThreadID: info.ThreadID, RunID: info.RunID, Owner: info.Owner, Started: time.Now()}
	data, _ := json.Marshal(m)
	if _, err := l.meta.Create(ctx, key(info.RunID), data); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			err = l.takeOver(ctx, info.RunID, data)
		} else {
			// The description may be in although the answer is not: a
			// retry of the same POST must not find the id taken.
			l.forgetMeta(ctx, info.RunID)
		}
		if err != nil {
			return nil, err
		}
	}
	// From here on a failure gives the id back: the run never started,
	// and the client that retries the same POST must not be told 409.
	forget := func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.opts.Lease)
		defer cancel()
		_ = l.lease.Delete(fctx, key(info.RunID))
		_ = l.meta.Purge(fctx, key(info.RunID))
	}
	if _, err := l.lease.Put(ctx, key(info.RunID), []byte(info.Owner)); err != nil {
		forget()
		return nil, err
	}
	w := &writer{l: l, id: runlog.NewRunID(), meta: m, metaAt: time.Now(), runID: info.RunID, owner: info.Owner, subject: l.evSubject(info.RunID), cancel: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	sub, err := l.nc.Subscribe(l.cancelSubject(info.RunID), func(msg *nats.Msg) {
		if msg.Header.Get(hdrPing) != "" {
			_ = msg.Respond(nil) // alive (see Log.alive)
			return
		}
		w.cancelOnce.Do(func() {
			w.reason = string(msg.Data)
			close(w.cancel)
		})
		_ = msg.Respond(nil)
	})
	if err != nil {
		forget()
		return nil, err
	}
	w.sub = sub
	w.readers.self = l.id
	fail := func(err error) (runlog.Writer, error) {
		_ = sub.Unsubscribe()
		if w.beats != nil {
			_ = w.beats.Unsubscribe()
		}
		forget()
		return nil, err
	}
	if w.beats, err = l.nc.Subscribe(l.readersSubject(info.RunID), w.readers.heard); err != nil {
		w.beats = nil
		return fail(err)
	}
	fctx, cancel := context.WithTimeout(ctx, l.opts.Lease)
	err = l.nc.FlushWithContext(fctx)
	cancel()
	if err != nil {
		return fail(err)
	}
	if l.opts.Window > 0 {
		// No expectation: this start owns the id (the description above is
		// its), and a fence an earlier try left behind (its answer lost,
		// the start given up) is simply replaced. Expecting none made every
		// retry of that POST fail for good.
		fctx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
		ack, err := l.js.Publish(fctx, l.fenceSubject(info.RunID), []byte(info.Owner))
		cancel()
		if err != nil {
			return fail(err)
		}
		w.pipe = newPipe(w, l.opts.Window, ack.Sequence)
	}
	w.renewing, w.stopRenewing = context.WithCancel(context.Background())
	go w.renew()
	return w, nil
}

// startWindow is how long a description with no lease and no event may be
// a start still under way (each of its steps waits at most the request
// timeout): younger, Start answers ErrUnavailable, to be tried again;
// older, it is a start that failed halfway, and Start takes the id over.
// Tests set startWindowOverride.
func (l *Log) startWindow() time.Duration {
	if startWindowOverride >= 0 {
		return startWindowOverride
	}
	return 2 * l.opts.RequestTimeout
}

var startWindowOverride time.Duration = -1 // none

// takeOver is Start's answer to a run id the meta bucket already has: a
// run that started (it holds a lease or has events) is ErrExists; a start
// that failed halfway (its description made, its answer lost, say, in an
// outage) gives the id to this one, so that the client retrying its POST
// is not told 409 for a run that never was.
func (l *Log) takeOver(ctx context.Context, runID string, data []byte) error {
	k := key(runID)
	e, err := l.meta.Get(ctx, k)
	if err != nil {
		return err
	}
	var m meta
	if json.Unmarshal(e.Value(), &m) != nil || m.RunID != runID {
		return runlog.ErrExists
	}
	if _, err := l.lease.Get(ctx, k); err == nil {
		return runlog.ErrExists
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return err
	}
	if last, err := l.last(ctx, runID); err != nil {
		return err
	} else if last != nil {
		return runlog.ErrExists
	}
	if time.Since(e.Created()) < l.startWindow() {
		return fmt.Errorf("%w: an earlier start of run %q has not finished", runlog.ErrUnavailable, runID)
	}
	if _, err := l.meta.Update(ctx, k, data, e.Revision()); err != nil {
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) { // another start took it
			return runlog.ErrExists
		}
		return err
	}
	return nil
}

// forgetMeta purges a run's description, bounded by a lease time.
func (l *Log) forgetMeta(ctx context.Context, runID string) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.opts.Lease)
	defer cancel()
	_ = l.meta.Purge(fctx, key(runID))
}

// last returns the run's last message (nil when it has none yet).
func (l *Log) last(ctx context.Context, runID string) (*jetstream.RawStreamMsg, error) {
	msg, err := l.stream.GetLastMsgForSubject(ctx, l.evSubject(runID))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	return msg, err
}

func seqOf(h nats.Header) uint64 {
	n, _ := strconv.ParseUint(h.Get(hdrSeq), 10, 64)
	return n
}

// Info implements [runlog.Log].
func (l *Log) Info(ctx context.Context, runID string) (runlog.Info, error) {
	if err := l.reachable(); err != nil {
		return runlog.Info{}, err
	}
	info, _, _, err := l.info(ctx, runID)
	return info, err
}

// info is Info with the run's first and last messages (nil when it has
// none).
func (l *Log) info(ctx context.Context, runID string) (info runlog.Info, first, last *jetstream.RawStreamMsg, err error) {
	e, err := l.meta.Get(ctx, key(runID))
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return runlog.Info{}, nil, nil, runlog.ErrNotFound
		}
		return runlog.Info{}, nil, nil, err
	}
	var m meta
	if err := json.Unmarshal(e.Value(), &m); err != nil {
		return runlog.Info{}, nil, nil, fmt.Errorf("natslog: run %q: %w", runID, err)
	}
	if m.RunID != runID {
		// Another id with the same hash: never seen, but cheap to refuse.
		return runlog.Info{}, nil, nil, runlog.ErrNotFound
	}
	info = runlog.Info{ThreadID: m.ThreadID, RunID: m.RunID, Owner: m.Owner, First: 1, Started: m.Started}
	first, last, err = l.ends(ctx, runID)
	if err != nil {
		return runlog.Info{}, nil, nil, err
	}
	if last != nil {
		info.First, info.Last = seqOf(first.Header), high(last.Header)
		if last.Header.Get(hdrTerminal) != "" {
			info.Ended, info.EndedAt = true, last.Time
		}
		return info, first, last, nil
	}
	// No event kept: a live run that has sent none yet (it holds its
	// lease, or has only just started), or a run whose events expired.
	_, err = l.lease.Get(ctx, key(runID))
	switch {
	case err == nil:
		return info, nil, nil, nil // live, nothing sent yet
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		return runlog.Info{}, nil, nil, err
	}
	if time.Since(m.Started) < l.opts.Lease {
		return info, nil, nil, nil
	}
	return runlog.Info{}, nil, nil, fmt.Errorf("%w: run %q kept none of its events", runlog.ErrExpired, runID)
}

// Read implements [runlog.Log]: an ordered consumer on the run's subject
// that starts at the stream sequence of the event after `after` (found by
// seek), so that a resume near the end of a long run is served without
// reading the run again from its start.
func (l *Log) Read(ctx context.Context, runID string, after uint64) iter.Seq2[runlog.Entry, error] {
	return func(yield func(runlog.Entry, error) bool) {
		info, first, last, err := l.infoRetrying(ctx, runID)
		if err != nil {
			yield(runlog.Entry{}, err)
			return
		}
		if after > info.Last {
			yield(runlog.Entry{}, fmt.Errorf("%w: asked for events after %d, the run is at %d", runlog.ErrFuture, after, info.Last))
			return
		}
		if info.Ended && after == info.Last {
			return
		}
		if !info.Ended {
			defer l.announce(runID)()
		}
		if last != nil && after+1 < info.First {
			yield(runlog.Entry{}, fmt.Errorf("%w: events before %d were dropped", runlog.ErrExpired, info.First))
			return
		}
		// With nothing to skip (a live run with no event yet, or a read of
		// all it kept), every message of the subject; otherwise from the
		// stream sequence of event after+1.
		cfg := jetstream.OrderedConsumerConfig{
			FilterSubjects: []string{l.evSubject(runID)},
			DeliverPolicy:  jetstream.DeliverAllPolicy,
		}
		if last != nil && after >= info.First {
			if after == info.Last {
				// Nothing kept is wanted: follow live from after the last.
				cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, last.Sequence+1
			} else {
				sctx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
				start, err := l.seek(sctx, runID, first, last, after+1)
				cancel()
				if err != nil {
					// Start from the run's first kept event instead: what
					// comes before after+1 is skipped as it arrives.
					start = first.Sequence
				}
				cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, start
			}
		}
		// The server keeps an ordered consumer for InactiveThreshold after
		// its reader stopped pulling (5 minutes by default), and a stream
		// has room for 1,000: reads that left theirs behind once made
		// every later read fail. Each read deletes its consumer when it
		// ends, and one whose delete did not arrive (the connection was
		// down) goes after readerIdle.
		cfg.InactiveThreshold = readerIdle
		// A consumer that cannot be made again in a few tries fails the
		// Next that found it broken, rather than retrying inside Next
		// forever: the read then starts a consumer of its own after the
		// last event it yielded (see reopen below).
		cfg.MaxResetAttempts = 3
		var cons jetstream.Consumer
		var msgs jetstream.MessagesContext
		open := func() error {
			var err error
			if h := l.hooks; h != nil && h.beforeOpen != nil {
				if err := h.beforeOpen(&cfg); err != nil {
					return err
				}
			}
			octx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
			cons, err = l.stream.OrderedConsumer(octx, cfg)
			cancel()
			if err != nil {
				cons = nil
				return err
			}
			// Short pulls with a heartbeat every second: when the server
			// that serves the consumer goes, the missing heartbeats are
			// noticed within seconds (the defaults, 30s pulls with 15s
			// heartbeats, took half a minute and more).
			msgs, err = cons.Messages(jetstream.PullExpiry(5*time.Second), jetstream.PullHeartbeat(time.Second))
			if err != nil {
				l.dropConsumer(cons)
				cons, msgs = nil, nil
				return err
			}
			if h := l.hooks; h != nil && h.afterOpen != nil {
				h.afterOpen()
			}
			return nil
		}
		shut := func() {
			// Either may be missing: an open that failed, a shut already
			// done before a reopen that failed.
			if msgs != nil {
				msgs.Stop()
				msgs = nil
			}
			if cons != nil {
				l.dropConsumer(cons)
				cons = nil
			}
		}
		// whole: reading the run from its first message (see below)
		whole := cfg.DeliverPolicy == jetstream.DeliverAllPolicy
		if err := open(); err != nil {
			if ctx.Err() != nil {
				yield(runlog.Entry{}, context.Cause(ctx))
				return
			}
			// The request went to a server that did not answer (one that
			// just went away): try again as after a broken consumer.
			if err := l.reopen(ctx, runID, after, whole, &cfg, func() {}, open); err != nil {
				yield(runlog.Entry{}, err)
				return
			}
		}
		defer shut() // shut reads cons and msgs when it runs: the last consumer is the one dropped
		// since when the stream could not say whether the read is behind
		var unsure time.Time
		for {
			nctx, cancel := context.WithTimeout(ctx, readerStall)
			msg, err := msgs.Next(jetstream.NextContext(nctx))
			cancel()
			if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				// Nothing for readerStall: a run that is quiet, or a
				// consumer that stopped delivering without noticing (its
				// server went away mid-pull; seen when a cluster node was
				// killed). The stream tells which: when it holds events
				// after the last one read, the read starts again from
				// there on a new consumer.
				// A stream that cannot say for longer than the read waits
				// out an outage ends the read with ErrUnavailable.
				bctx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
				start, behind, _, err := l.behind(bctx, runID, after)
				cancel()
				switch {
				case errors.Is(err, errCannotSay) && ctx.Err() == nil:
					if unsure.IsZero() {
						unsure = time.Now()
					}
					if time.Since(unsure) < l.readerPatience() {
						continue
					}
					err = fmt.Errorf("%w: the stream did not answer for %v: %w", runlog.ErrUnavailable, l.readerPatience(), err)
				case err == nil:
					unsure = time.Time{}
				}
				if err != nil {
					if c := context.Cause(ctx); c != nil {
						err = c
					}
					yield(runlog.Entry{}, err)
					return
				}
				if behind {
					cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, start
					if whole {
						cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverAllPolicy, 0
					}
					shut()
					if err := open(); err != nil {
						if err = l.reopen(ctx, runID, after, whole, &cfg, func() {}, open); err != nil {
							yield(runlog.Entry{}, err)
							return
						}
					}
				}
				continue
			}
			if err != nil && ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
				// The consumer broke and could not be mended: start again
				// after the last event read, for up to readerPatience.
				if err = l.reopen(ctx, runID, after, whole, &cfg, shut, open); err == nil {
					continue
				}
			}
			if err != nil {
				if c := context.Cause(ctx); c != nil {
					err = c
				}
				yield(runlog.Entry{}, err)
				return
			}
			l.delivered.Add(1)
			h := msg.Headers()
			seq, n := seqOf(h), countOf(h)
			terminal := h.Get(hdrTerminal) != ""
			if seq+n-1 <= after {
				continue // a start too early, or a message again (a pipe's repair)
			}
			if seq > after+1 && (!terminal || !whole) {
				// Out of place: after a hole a pipe's repair fills (the
				// message comes again, in order, after the hole's), or a
				// start past the one wanted (seek misled by a repair, or
				// a consumer made again from a place the run had left).
				// Reading the run from its first message in stream order
				// settles both; each number is then taken once, in order.
				// A terminal event is read so too before it is believed
				// past a hole: only a read of every message the stream
				// holds knows that the hole is real.
				if !whole {
					whole = true
					shut()
					cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverAllPolicy, 0
					if err := open(); err != nil {
						if err = l.reopen(ctx, runID, after, whole, &cfg, func() {}, open); err != nil {
							yield(runlog.Entry{}, err)
							return
						}
					}
				}
				continue
			}
			// A terminal event past a hole, in a read of the whole run,
			// ends the run all the same: a replica that found the owner
			// gone appended it, and what the owner did not repair never
			// comes.
			if n > 1 {
				// A packed message (see pack): the events after `after`.
				more := true
				err := unpack(msg.Data(), n, func(i uint64, event []byte) bool {
					if seq+i <= after {
						return true
					}
					after = seq + i
					more = yield(runlog.Entry{Seq: after, Data: event, Terminal: terminal && i == n-1}, nil)
					return more
				})
				if err != nil {
					yield(runlog.Entry{}, fmt.Errorf("natslog: run %q, events %d to %d: %w", runID, seq, seq+n-1, err))
					return
				}
				if !more || terminal {
					return
				}
				continue
			}
			after = seq
			e := runlog.Entry{Seq: seq, Data: msg.Data(), Terminal: terminal}
			if !yield(e, nil) || e.Terminal {
				return
			}
		}
	}
}

// readerPatience bounds how long a read waits for a log it cannot reach:
// a lease longer than a run waits (Options.MaxOutage), so that a reader
// gets the end its run's owner gives the run after an outage. Past it the
// read fails with runlog.ErrUnavailable.
func (l *Log) readerPatience() time.Duration { return l.opts.MaxOutage + l.opts.Lease }

// reopen replaces a broken consumer with one that starts after `after`,
// trying for up to readerPatience.
//
// whole: the read takes the run from its first message in stream order
// (see Read); it starts there again when it is behind.
func (l *Log) reopen(ctx context.Context, runID string, after uint64, whole bool, cfg *jetstream.OrderedConsumerConfig, shut func(), open func() error) error {
	shut()
	deadline := time.Now().Add(l.readerPatience())
	for {
		bctx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
		start, behind, last, err := l.behind(bctx, runID, after)
		cancel()
		if errors.Is(err, runlog.ErrExpired) || errors.Is(err, runlog.ErrNotFound) {
			return err
		}
		if h := l.hooks; h != nil && h.afterBehind != nil {
			h.afterBehind()
		}
		if errors.Is(err, errCannotSay) {
			// Open below tells whether the stream is back; the consumer
			// starts where the last one did, at or before the read's
			// place (what it yielded already is skipped).
			err = nil
		} else if err == nil {
			switch {
			case behind && whole:
				cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverAllPolicy, 0
			case behind:
				cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, start
			case last != nil:
				// Nothing after the read's place yet: follow from after
				// the last message behind saw, which holds nothing past
				// it. Asking for the last message again here would race
				// the run's writer: what it appended in between would be
				// started past, unread (a run was seen to skip eight
				// events so, then take its terminal event past the hole).
				cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, last.Sequence+1
			}
			if err = open(); err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: no new consumer for %v: %w", runlog.ErrUnavailable, l.readerPatience(), err)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// readerStall is how long a read waits for its consumer's next message
// before it asks the stream whether the run has moved on without it.
const readerStall = 3 * time.Second

// infoRetrying is info, each try bounded by the request timeout, tried again for up
// to readerPatience while the failure is the connection's or the cluster's
// (a request to a server that went away, a leader being elected) rather
// than an answer about the run.
func (l *Log) infoRetrying(ctx context.Context, runID string) (info runlog.Info, first, last *jetstream.RawStreamMsg, err error) {
	deadline := time.Now().Add(l.readerPatience())
	for {
		ictx, cancel := context.WithTimeout(ctx, l.opts.RequestTimeout)
		info, first, last, err = l.info(ictx, runID)
		cancel()
		switch {
		case ctx.Err() != nil:
			return info, first, last, context.Cause(ctx)
		case time.Now().After(deadline):
			return info, first, last, fmt.Errorf("%w: %w", runlog.ErrUnavailable, err)
		case err == nil, errors.Is(err, runlog.ErrNotFound), errors.Is(err, runlog.ErrExpired):
			return info, first, last, err
		}
		select {
		case <-ctx.Done():
			return runlog.Info{}, nil, nil, context.Cause(ctx)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// behind reports whether the stream holds an event of the run after
// `after`, a sign that the read's consumer stopped delivering, and the
// stream sequence to start again from.
//
// last is the run's last message when behind is false and the stream said
// so: nothing of the run after it is past `after` (nil when the run has
// nothing kept, or the stream could not say).
func (l *Log) behind(ctx context.Context, runID string, after uint64) (start uint64, behind bool, last *jetstream.RawStreamMsg, err error) {
	first, last, err := l.ends(ctx, runID)
	if err == nil && last == nil {
		// Nothing kept at all: a live run that has sent nothing yet, or
		// one whose events expired while the read was starting, which
		// would otherwise wait for events that never come.
		if _, _, _, err := l.info(ctx, runID); errors.Is(err, runlog.ErrExpired) || errors.Is(err, runlog.ErrNotFound) {
			return 0, false, nil, err
		}
		return 0, false, nil, nil
	}
	if err != nil {
		return 0, false, nil, fmt.Errorf("%w: %w", errCannotSay, err)
	}
	if high(last.Header) <= after {
		return 0, false, last, nil // nothing newer: keep waiting
	}
	if after+1 < seqOf(first.Header) {
		return 0, false, nil, fmt.Errorf("%w: events before %d were dropped", runlog.ErrExpired, seqOf(first.Header))
	}
	if after < seqOf(first.Header) {
		return first.Sequence, true, nil, nil
	}
	start, err = l.seek(ctx, runID, first, last, after+1)
	if err != nil {
		return 0, false, nil, nil // try again at the next stall
	}
	return start, true, nil, nil
}

// errCannotSay is behind's failure when the stream did not answer.
var errCannotSay = errors.New("natslog: the stream did not answer")

// readerIdle is how long the server keeps a read's consumer once nothing
// pulls from it: long enough to outlast a pause of a reader that is alive
// (its pulls come every few seconds), short enough that consumers left by
// reads that could not delete theirs do not pile up.
const readerIdle = 30 * time.Second

// dropConsumer deletes the consumer a read used, so that it leaves nothing
// behind on the server.
func (l *Log) dropConsumer(cons jetstream.Consumer) {
	info := cons.CachedInfo()
	if info == nil || info.Name == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.opts.Lease)
	defer cancel()
	_ = l.stream.DeleteConsumer(ctx, info.Name)
}

// reachable fails with runlog.ErrUnavailable while the connection is away
// (nats.go reconnecting): a request then would wait out its timeout in
// nats.go's reconnect buffer, and a client is better told at once to
// retry.
func (l *Log) reachable() error {
	if l.nc.IsConnected() {
		return nil
	}
	return fmt.Errorf("%w: not connected to NATS (%v)", runlog.ErrUnavailable, l.nc.Status())
}

// Cancel implements [runlog.Log]: a request to the owner, which answers
// once its run's context is cancelled.
func (l *Log) Cancel(ctx context.Context, runID, reason string) error {
	info, err := l.Info(ctx, runID)
	if err != nil {
		return err
	}
	if info.Ended {
		return runlog.ErrEnded
	}
	if reason == "" {
		reason = "cancelled"
	}
	_, err = l.nc.RequestWithContext(ctx, l.cancelSubject(runID), []byte(reason))
	if errors.Is(err, nats.ErrNoResponders) {
		// The owner is gone; the lease watch ends the run as lost.
		return nil
	}
	return err
}

// watchLeases looks for live runs whose lease expired and ends them.
func (l *Log) watchLeases() {
	defer close(l.done)
	t := time.NewTicker(l.opts.Lease / 4)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), l.opts.Lease)
			l.sweep(ctx)
			cancel()
		}
	}
}

// sweep ends every run whose lease is older than the lease time, once this
// replica has been in contact with the lease bucket for a lease time: an
// outage that kept it away kept the owners away too, and a lease they could
// not renew says nothing about them until they could have.
func (l *Log) sweep(ctx context.Context) {
	if !l.nc.IsConnected() {
		l.contact = time.Time{}
		return
	}
	leases, err := l.leases(ctx)
	if err != nil {
		l.contact = time.Time{}
		return
	}
	if l.contact.IsZero() {
		l.contact = time.Now()
	}
	if time.Since(l.contact) < l.opts.Lease {
		return
	}
	for _, e := range leases {
		if time.Since(e.Created()) < l.opts.Lease {
			continue
		}
		if l.alive(ctx, e.Key()) {
			continue
		}
		if l.endLost(ctx, e.Key(), string(e.Value())) == nil {
			_ = l.lease.Delete(ctx, e.Key(), jetstream.LastRevision(e.Revision()))
		}
	}
}

// hdrPing marks a message on a run's cancel subject that asks whether its
// owner is alive rather than cancelling the run.
const hdrPing = "Agui-Ping"

// alive asks the owner of the run of key k whether it is alive, on the
// subject it listens to for cancels, before the run is declared lost for
// a lease it did not renew: an owner on a busy machine, or one whose
// renewals a slow server stores late, answers, and its run goes on. One
// that is gone has no subscription there (no responders, at once); one cut
// off from NATS cannot answer within a quarter lease. Either is lost.
func (l *Log) alive(ctx context.Context, k string) bool {
	ctx, cancel := context.WithTimeout(ctx, l.opts.Lease/4)
	defer cancel()
	msg := nats.NewMsg(l.keyCancel(k))
	msg.Header.Set(hdrPing, "1")
	_, err := l.nc.RequestMsgWithContext(ctx, msg)
	return err == nil
}

// leases returns every lease, read by a watcher of the bucket that is
// stopped as soon as it has them. (nats.go's ListKeys, used before, left
// its watcher's callback blocked on a send for good when its context ended
// mid-listing, as it does in an outage: a goroutine leaked per sweep.)
func (l *Log) leases(ctx context.Context) ([]jetstream.KeyValueEntry, error) {
	w, err := l.lease.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer func() {
		_ = w.Stop()
		// A callback still sending an update returns once it is taken;
		// after the Stop no other follows.
		for range 3 {
			for {
				select {
				case _, open := <-w.Updates():
					if !open {
						return // closed with its subscription
					}
					continue
				default:
				}
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	var out []jetstream.KeyValueEntry
	for {
		select {
		case e := <-w.Updates():
			if e == nil { // every lease there is, delivered
				return out, nil
			}
			out = append(out, e)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// endLost appends RUN_LOST to the run of key k that has no terminal event,
// unless someone (the owner, another replica) appends first.
func (l *Log) endLost(ctx context.Context, k, owner string) error {
	// The fence first: once it moved, none of the owner's pipelined
	// events lands, so the end below is the last.
	fence, err := l.stream.GetLastMsgForSubject(ctx, l.keyFence(k))
	var fenceSeq uint64
	switch {
	case err == nil:
		fenceSeq = fence.Sequence
	case !errors.Is(err, jetstream.ErrMsgNotFound):
		return err
	}
	if _, err := l.js.Publish(ctx, l.keyFence(k), []byte("lost"), jetstream.WithExpectLastSequencePerSubject(fenceSeq)); err != nil {
		return err
	}
	last, err := l.stream.GetLastMsgForSubject(ctx, l.keySubject(k))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		last, err = nil, nil
	}
	if err != nil {
		return err
	}
	var seq, streamSeq uint64
	if last != nil {
		if last.Header.Get(hdrTerminal) != "" {
			return nil // ended after all
		}
		seq, streamSeq = high(last.Header), last.Sequence
	}
	msg := nats.NewMsg(l.keySubject(k))
	msg.Header.Set(hdrSeq, strconv.FormatUint(seq+1, 10))
	msg.Header.Set(hdrTerminal, "1")
	msg.Data = runlog.LostEvent("the replica running this run (" + owner + ") stopped renewing its lease and does not answer")
	_, err = l.js.PublishMsg(ctx, msg, jetstream.WithExpectLastSequencePerSubject(streamSeq))
	return err
}

// writer is the owner's handle on a run.
type writer struct {
	l       *Log
	id      string // this writer's hdrWriter
	meta    meta
	metaAt  time.Time // when meta was last written (renew's to rewrite)
	runID   string
	owner   string
	subject string
	sub     *nats.Subscription
	beats   *nats.Subscription // readers' beats (see announce)
	readers readers

	// seq is the run's last sequence handed out (appended, or queued in
	// pipe); inLog and streamSeq the run's last sequence in the log and its
	// stream sequence.
	seq, inLog, streamSeq uint64
	made                  uint64 // messages made (see message)
	ended                 bool   // the terminal event was appended (or queued)
	endedInLog            bool   // and is in the log
	lost                  bool   // another replica appended to the run
	failed                error  // a failure that ends every later Append
	pipe                  *pipe  // with Options.Window: the queue of appends

	cancelOnce sync.Once
	cancel     chan struct{}
	reason     string

	stop, done chan struct{}
	closeOnce  sync.Once
	// renewing ends when the renewals stop, and with it a renewal under
	// way (see renew).
	renewing     context.Context
	stopRenewing context.CancelFunc
	renewOnce    sync.Once
}

// message is the run's message number seq. Its writer header names the
// writer and, by a count, this message among the writer's.
func (w *writer) message(seq uint64, data []byte, terminal bool) *nats.Msg {
	w.made++
	msg := nats.NewMsg(w.subject)
	msg.Header.Set(hdrSeq, strconv.FormatUint(seq, 10))
	msg.Header.Set(hdrWriter, w.id+"."+strconv.FormatUint(w.made, 10))
	if terminal {
		msg.Header.Set(hdrTerminal, "1")
	}
	msg.Data = data
	return msg
}

// Append implements [runlog.Writer]: one synchronous publish, which fails
// with ErrLeaseLost if anything else was appended to the run meanwhile (or,
// with Options.Window, a queued one: see pipe). While the log cannot be
// reached it is tried again for up to Options.MaxOutage; then it fails
// with runlog.ErrUnavailable, and so does every later Append.
func (w *writer) Append(data []byte, terminal bool) (uint64, error) {
	if w.ended {
		return 0, runlog.ErrEnded
	}
	if w.pipe != nil {
		return w.pipe.append(data, terminal) // its end goes through finish, which rewrites the description
	}
	seq, err := w.appendSync(data, terminal)
	if err == nil && terminal {
		w.putEndMeta()
	}
	return seq, err
}

// putEndMeta rewrites the description once the run ended: it is kept
// Remember longer than the events, counted from now, so that a reader
// after the events expired gets ErrExpired.
func (w *writer) putEndMeta() {
	ctx, cancel := context.WithTimeout(context.Background(), w.l.opts.Lease)
	_ = w.l.putMeta(ctx, w.meta)
	cancel()
}

// isLost reports whether another replica took the run.
func (w *writer) isLost() bool {
	if w.pipe != nil {
		return errIsLost(w.pipe.failed())
	}
	return w.lost
}

// appendSync is Append without Options.Window.
func (w *writer) appendSync(data []byte, terminal bool) (uint64, error) {
	if w.lost {
		return 0, runlog.ErrLeaseLost
	}
	if w.failed != nil {
		return 0, w.failed
	}
	msg := w.message(w.seq+1, data, terminal) // sent by the time publishWaiting returns
	at, err := w.l.publishWaiting(context.Background(), msg, w.streamSeq, time.Now().Add(w.l.opts.MaxOutage))
	if err != nil {
		if errIsLost(err) {
			w.lost = true
		} else {
			w.failed = err
		}
		return 0, err
	}
	w.seq++
	w.inLog, w.streamSeq = w.seq, at
	if terminal {
		w.ended, w.endedInLog = true, true
	}
	return w.seq, nil
}

func (w *writer) Cancelled() <-chan struct{} { return w.cancel }

func (w *writer) CancelReason() string {
	select {
	case <-w.cancel:
		return w.reason
	default:
		return ""
	}
}

// renew keeps the lease alive until Close.
func (w *writer) renew() {
	defer close(w.done)
	// Every third of the lease; after a renewal that failed (an outage, a
	// server slow to answer), again soon, so that the lease is renewed
	// within moments of NATS being back rather than a third of a lease
	// later: the lease watch of another replica, back as soon, gives an
	// owner one lease time after an outage before it judges its lease.
	// A renewal is waited for up to a lease time: one that a busy server
	// stores late still renews (the lease's age is counted from when the
	// server stored it), and giving up on it at the next tick only sent
	// another to the same queue.
	// (stopRenew ends the wait: it cancels w.renewing.)
	every := w.l.opts.Lease / 3
	retry := min(every, 250*time.Millisecond)
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(w.renewing, w.l.opts.Lease)
			_, err := w.l.lease.Put(ctx, key(w.runID), []byte(w.owner))
			// A run that outlasts the TTL keeps its description too.
			if err == nil && time.Since(w.metaAt) >= w.l.opts.TTL/2 && w.l.putMeta(ctx, w.meta) == nil {
				w.metaAt = time.Now()
			}
			cancel()
			if err != nil {
				t.Reset(retry)
			} else {
				t.Reset(every)
			}
		}
	}
}

// Close implements [runlog.Writer]: the lease is released. A run closed
// without its terminal event in the log is ended by its owner: as lost
// (RUN_LOST) when it was released without one, and with
// RUN_LOG_UNAVAILABLE when the log could not be reached. When the log
// still cannot be reached, Close returns and the writer goes on trying in
// the background, holding the lease, until it can (or until the Log is
// closed: the lease then expires, and the lease watch ends the run).
func (w *writer) Close() error {
	w.closeOnce.Do(func() {
		_ = w.sub.Unsubscribe()
		_ = w.beats.Unsubscribe()
		if w.pipe != nil {
			w.pipe.close() // sends what is queued; after it inLog is final
			w.failed = w.pipe.failed()
			w.lost = errIsLost(w.failed)
		}
		if w.endedInLog || w.lost {
			w.releaseEnded()
			return
		}
		end := runlog.LostEvent("the run's owner released it without ending it")
		if errors.Is(w.failed, runlog.ErrUnavailable) {
			end = w.l.unavailableEvent(w.failed)
		}
		w.adopt(w.failed)
		err := w.finish(end, time.Now().Add(w.l.opts.RequestTimeout))
		if err == nil || errIsLost(err) || !errors.Is(err, runlog.ErrUnavailable) {
			// Ended (by this writer or by another replica), or refused for
			// good: a refused end keeps the lease to expire.
			if err == nil || errIsLost(err) {
				w.releaseEnded()
			} else {
				w.stopRenew()
			}
			return
		}
		w.l.finishMu.Lock()
		defer w.l.finishMu.Unlock()
		if w.l.closing {
			// The Log is closing: nothing is tried later, and the lease
			// expires (the lease watch of another replica ends the run).
			w.stopRenew()
			return
		}
		w.l.finishing.Add(1)
		go w.finishLater(end)
	})
	return nil
}

// adopt takes in what a failure says of the run's last message in the log:
// an append given up on that landed after all (the end goes after it), or
// messages the log lost (the end goes after what is left, but keeps the
// number after the last event readers may have seen: a reader that got
// the lost events waits for a number past them).
func (w *writer) adopt(err error) {
	var ahead *aheadError
	var lost *lostAcked
	switch {
	case errors.As(err, &ahead):
		// Never lower: with a pipe, a copy numbered lower than the run's
		// highest may be the last to have landed.
		w.inLog, w.streamSeq = max(w.inLog, ahead.seq), ahead.streamSeq
		w.endedInLog = ahead.terminal
	case errors.As(err, &lost):
		w.streamSeq = lost.streamSeq
	}
}

// endFenced appends a pipelined run's terminal event: finish moves the
// fence first, then appends the event after the run's last message.
func (w *writer) endFenced(data []byte, giveUp time.Time) (uint64, error) {
	if err := w.finish(append([]byte(nil), data...), giveUp); err != nil {
		return 0, err
	}
	w.ended = true
	return w.seq, nil
}

// finish appends the terminal event end after the run's last message in the
// log, trying until giveUp. A pipelined run's fence is moved first; after
// that nothing more of the pipe's lands, and, when a publish of the pipe
// went unanswered or failed, the tail the log has past the last
// acknowledged message (copies that landed after all, in any order) says
// the highest number a reader may have seen: the end is numbered past it.
func (w *writer) finish(end []byte, giveUp time.Time) error {
	if w.pipe != nil {
		if err := w.pipe.fenceOff(giveUp); err != nil {
			return err
		}
		if w.pipe.unsettled() {
			if err := w.settleTail(); err != nil {
				return fmt.Errorf("%w: %w", runlog.ErrUnavailable, err)
			}
		}
	}
	for range 16 { // each refusal below says where the run's last message is; a few suffice
		if w.endedInLog {
			return nil // an end appended earlier landed after all
		}
		n := w.inLog + 1
		at, err := w.l.publishWaiting(w.l.ctx, w.message(n, end, true), w.streamSeq, giveUp)
		var ahead *aheadError
		var lost *lostAcked
		switch {
		case errors.As(err, &ahead):
			w.adopt(err)
			continue
		case errors.As(err, &lost):
			w.streamSeq = lost.streamSeq
			continue
		case err != nil:
			return err
		}
		w.inLog, w.seq = n, max(w.seq, n)
		w.streamSeq, w.endedInLog = at, true
		w.putEndMeta()
		return nil
	}
	return fmt.Errorf("%w: the run's last message kept moving under its end", runlog.ErrUnavailable)
}

// settleTail reads the run's messages after the last acknowledged one
// (w.streamSeq) and takes in the highest number among them and the stream
// sequence of the last: the run's end in the log once its fence moved.
func (w *writer) settleTail() error {
	ctx, cancel := context.WithTimeout(w.l.ctx, w.l.opts.RequestTimeout)
	defer cancel()
	for next := w.streamSeq + 1; ; {
		m, err := w.l.stream.GetMsg(ctx, next, jetstream.WithGetMsgSubject(w.subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if m.Header.Get(hdrTerminal) != "" && writerOf(m.Header) == w.id {
			w.endedInLog = true // an end of this writer's landed after all
		}
		w.inLog = max(w.inLog, high(m.Header))
		w.streamSeq, next = m.Sequence, m.Sequence+1
	}
}

// finishLater is finish tried until it is done or the Log closes, the lease
// renewed meanwhile so that no replica ends the run as lost while its
// owner is alive and waiting for the log.
func (w *writer) finishLater(end []byte) {
	defer w.l.finishing.Done()
	for {
		err := w.finish(end, time.Now().Add(w.l.opts.MaxOutage))
		if err == nil || errIsLost(err) {
			w.releaseEnded()
			return
		}
		if w.l.ctx.Err() != nil || w.l.nc.IsClosed() || !errors.Is(err, runlog.ErrUnavailable) {
			// (A closed connection never comes back: trying again would
			// only spin.)
			w.stopRenew()
			return
		}
	}
}

// stopRenew stops renewing the lease.
func (w *writer) stopRenew() {
	w.renewOnce.Do(func() {
		w.stopRenewing()
		close(w.stop)
		<-w.done
	})
}

// releaseEnded releases the lease of a run that ended: by this writer, or
// by the replica that took it. A run taken by another replica may not have
// its end yet: that replica moves the fence, then appends RUN_LOST, and
// can fail in between (a request timing out on a busy server). Its lease
// then stays, unrenewed, so that the lease watch finds it expired and ends
// the run; deleting it left a run nobody would end, its readers waiting
// for good (seen in the fault suite under -race).
func (w *writer) releaseEnded() {
	if !w.endedInLog {
		last, err := w.l.lastOf(context.Background(), w.subject)
		if err != nil || last == nil || last.Header.Get(hdrTerminal) == "" {
			w.stopRenew()
			return
		}
	}
	w.release()
}

// release stops renewing the lease and gives it up.
func (w *writer) release() {
	w.stopRenew()
	ctx, cancel := context.WithTimeout(context.Background(), w.l.opts.Lease)
	defer cancel()
	_ = w.l.lease.Delete(ctx, key(w.runID))
}
