package runlog

import (
	"container/list"
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// MemoryOptions bound a [Memory] log. A zero field takes its default.
type MemoryOptions struct {
	// MaxRuns is how many ended runs are kept; beyond it the least recently
	// used one is forgotten. Live runs are never dropped and do not count:
	// the server bounds them (WithMaxConcurrentRuns), and a run that just
	// ended must stay readable for the client that reattaches to read its
	// tail, however many others are still running. Default 1024.
	MaxRuns int
	// MaxEvents and MaxBytes bound each run's log: past either, its oldest
	// events are dropped, and a reader that still needs them gets
	// ErrExpired. Defaults 100 000 events and 16 MiB.
	MaxEvents int
	MaxBytes  int
	// MaxTotalBytes bounds the memory the kept events of all runs take
	// together: the chunks that hold their bytes and the blocks that index
	// them, including those a run keeps for reuse ([Memory.Bytes]). Past
	// it, least recently used ended runs are forgotten; if the live runs
	// alone take more, a run that needs more memory gives up its spares and
	// drops its own oldest events, and a reader that still needs them gets
	// ErrExpired. Default 256 MiB.
	//
	// A live run always keeps its newest events: the chunk it writes in
	// (4 KiB growing to 64 KiB, or one event's size when that is larger)
	// and one block of 512 spans (6 KiB), and a run that does not grow
	// keeps what it has. So Bytes stays under the bound plus the live
	// runs' floors (at most 70 KiB each for events up to 64 KiB): 1,000
	// live runs may take 70 MiB beyond the bound. The server bounds live
	// runs with WithMaxConcurrentRuns. The Go heap holding all this is
	// larger still by the garbage collector's headroom (GOGC).
	MaxTotalBytes int64
	// TTL is how long an ended run stays readable. Default 10 minutes.
	TTL time.Duration
	// Now is the clock (time.Now by default); tests move it.
	Now func() time.Time
}

const (
	defaultMaxRuns   = 1024
	defaultMaxEvents = 100_000
	defaultMaxBytes  = 16 << 20
	defaultMaxTotal  = 256 << 20
	defaultTTL       = 10 * time.Minute
	// maxTombstones bounds how many forgotten run ids still answer
	// ErrExpired rather than ErrNotFound.
	maxTombstones = 4096
)

// Memory is a bounded, in-process [Log]: the default for a single replica.
// Runs are kept in LRU order; the events of a run are copied into large
// shared chunks, so appending allocates nothing per event.
type Memory struct {
	opts MemoryOptions

	// held is the sum of the runs' store.held: chunks holding events.
	held atomic.Int64
	// ended counts the kept runs that have their terminal event, which
	// MaxRuns bounds.
	ended atomic.Int64

	mu   sync.Mutex
	runs map[string]*memRun
	// lru holds the ended runs, most recently used at the front: the
	// only ones a bound forgets, so a walk for one to forget never passes
	// the live runs (thousands of them, over the total, made every chunk
	// a run took walk them all).
	lru       list.List // of *memRun
	gone      map[string]struct{}
	goneOrder []string
	lastSweep time.Time
}

// NewMemory returns an empty memory log.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = defaultMaxRuns
	}
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = defaultMaxEvents
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = defaultMaxBytes
	}
	if opts.MaxTotalBytes <= 0 {
		opts.MaxTotalBytes = defaultMaxTotal
	}
	if opts.TTL <= 0 {
		opts.TTL = defaultTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Memory{opts: opts, runs: map[string]*memRun{}, gone: map[string]struct{}{}}
}

type memRun struct {
	log  *Memory
	elem *list.Element // in log.lru once ended; under log.mu

	mu    sync.Mutex
	info  Info
	store store
	// waiters are the channels of the readers waiting for the next event.
	// Each reader owns one (capacity 1) for its whole read, and Append
	// signals only those registered here: no channel is made or closed per
	// event, and an append nobody waits for signals nothing.
	waiters []chan struct{}

	cancelOnce sync.Once
	cancel     chan struct{}
	reason     string // set before cancel is closed
	closed     bool
}

// Start implements [Log].
func (m *Memory) Start(_ context.Context, info Info) (Writer, error) {
	if info.RunID == "" {
		return nil, fmt.Errorf("runlog: empty run id")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked()
	if _, ok := m.runs[info.RunID]; ok {
		return nil, ErrExists
	}
	if _, ok := m.gone[info.RunID]; ok {
		return nil, ErrExists
	}
	info.First, info.Last, info.Ended = 1, 0, false
	info.Started, info.EndedAt = m.opts.Now(), time.Time{}
	r := &memRun{log: m, info: info, cancel: make(chan struct{})}
	m.runs[info.RunID] = r
	m.evictLocked()
	return r, nil
}

// lookup finds a run and marks it used.
func (m *Memory) lookup(runID string) (*memRun, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked()
	r, ok := m.runs[runID]
	if !ok {
		if _, gone := m.gone[runID]; gone {
			return nil, ErrExpired
		}
		return nil, ErrNotFound
	}
	if r.expired(m.opts.Now(), m.opts.TTL) {
		m.forgetLocked(r)
		return nil, ErrExpired
	}
	if r.elem != nil {
		m.lru.MoveToFront(r.elem)
	}
	return r, nil
}

// Info implements [Log].
func (m *Memory) Info(_ context.Context, runID string) (Info, error) {
	r, err := m.lookup(runID)
	if err != nil {
		return Info{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.info, nil
}

// Cancel implements [Log]. The owner shares this process, so the request
// arrives at once.
func (m *Memory) Cancel(_ context.Context, runID, reason string) error {
	r, err := m.lookup(runID)
	if err != nil {
		return err
	}
	r.mu.Lock()
	ended := r.info.Ended
	r.mu.Unlock()
	if ended {
		return ErrEnded
	}
	r.cancelOnce.Do(func() {
		r.reason = reason
		close(r.cancel)
	})
	return nil
}

// readBatch is how many entries a reader takes per lock.
const readBatch = 64

// Read implements [Log].
func (m *Memory) Read(ctx context.Context, runID string, after uint64) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		r, err := m.lookup(runID)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		r.mu.Lock()
		if after > r.info.Last {
			last := r.info.Last
			r.mu.Unlock()
			yield(Entry{}, fmt.Errorf("%w: asked for events after %d, the run is at %d", ErrFuture, after, last))
			return
		}
		r.mu.Unlock()
		next := after + 1
		batch := make([]Entry, 0, readBatch)
		var buf []byte
		var wake chan struct{}
		for {
			r.mu.Lock()
			if next < r.info.First {
				first := r.info.First
				r.mu.Unlock()
				yield(Entry{}, fmt.Errorf("%w: events before %d were dropped", ErrExpired, first))
				return
			}
			// Copy under the lock: chunks are reused once retention
			// drops their events, so nothing outside may point into them.
			// An entry's bytes are valid until the sequence goes on
			// ([Log.Read]), so one buffer, grown to the largest batch,
			// serves the whole read.
			end := min(r.info.Last, next+readBatch-1)
			size := 0
			for seq := next; seq <= end; seq++ {
				size += int(r.store.span(seq).n)
			}
			buf = slices.Grow(buf[:0], size)
			seq := next
			for ; seq <= end; seq++ {
				start := len(buf)
				buf = append(buf, r.store.bytesOf(r.store.span(seq))...)
				batch = append(batch, Entry{Seq: seq, Data: buf[start:len(buf):len(buf)], Terminal: r.info.Ended && seq == r.info.Last})
			}
			if len(batch) == 0 {
				if r.info.Ended {
					r.mu.Unlock()
					return
				}
				if wake == nil {
					wake = make(chan struct{}, 1)
				}
				r.waiters = append(r.waiters, wake)
				r.mu.Unlock()
				select {
				case <-wake:
					continue
				case <-ctx.Done():
					r.unwait(wake)
					yield(Entry{}, context.Cause(ctx))
					return
				}
			}
			r.mu.Unlock()
			for _, e := range batch {
				if !yield(e, nil) || e.Terminal {
					return
				}
			}
			next = seq
			batch = batch[:0]
		}
	}
}

// unwait takes a reader that stopped waiting off the list.
func (r *memRun) unwait(wake chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, w := range r.waiters {
		if w == wake {
			r.waiters = slices.Delete(r.waiters, i, i+1) // clears the freed slot
			return
		}
	}
}

// Bytes is the memory the kept events of all runs take: the capacity of
// the chunks that hold them, which MaxTotalBytes bounds.
func (m *Memory) Bytes() int64 { return m.held.Load() }

// Append implements [Writer].
func (r *memRun) Append(data []byte, terminal bool) (uint64, error) {
	seq, grew, err := r.append(data, terminal)
	if grew && r.log.held.Load() > r.log.opts.MaxTotalBytes {
		r.log.reclaim(r)
	}
	if terminal && err == nil {
		r.log.runEnded(r)
	}
	return seq, err
}

// runEnded is the log's part of a run's end: the run becomes the most
// recently used (an ended run's age counts from its end, so a long run is
// not the first one forgotten the moment it ends), and ended runs past
// MaxRuns or MaxTotalBytes are forgotten.
func (m *Memory) runEnded(r *memRun) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.runs[r.info.RunID] == r && r.elem == nil {
		r.elem = m.lru.PushFront(r)
	}
	m.evictLocked()
	// Ended runs the live ones crowded past the total (a live run at its
	// floor keeps what it has) are forgotten as they end, not only when a
	// run next grows.
	limit := m.opts.MaxTotalBytes
	m.forgetEndedLocked(r, func() bool { return m.held.Load() > limit })
}

// append is Append under the run's lock; grew reports that the run took
// more memory, the only time the log can have gone past its total.
func (r *memRun) append(data []byte, terminal bool) (seq uint64, grew bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.info.Ended {
		return 0, false, ErrEnded
	}
	if r.closed {
		return 0, false, ErrLeaseLost
	}
	held := r.store.held
	r.info.Last++
	r.store.add(r.info.Last, data)
	grew = r.store.held > held
	opts := &r.log.opts
	for r.info.Last > r.info.First && (r.info.Last-r.info.First >= uint64(opts.MaxEvents) || r.store.bytes > opts.MaxBytes) {
		r.store.drop(r.info.First)
		r.info.First++
	}
	if terminal {
		r.store.shed() // it appends no more: its spares are of no use
	}
	if d := r.store.held - held; d != 0 {
		r.log.held.Add(int64(d)) // only when a chunk or block came or went
	}
	if terminal {
		r.info.Ended = true
		r.info.EndedAt = opts.Now()
		r.log.ended.Add(1)
	}
	if len(r.waiters) > 0 {
		for i, w := range r.waiters {
			select {
			case w <- struct{}{}:
			default: // already signalled
			}
			r.waiters[i] = nil
		}
		r.waiters = r.waiters[:0]
	}
	return r.info.Last, grew, nil
}

// reclaim brings the log back under MaxTotalBytes after r grew past it:
// first by forgetting ended runs, least recently used first; then, if the
// live runs alone are over, by dropping r's own oldest events, down to the
// chunk it writes in. The run that needs memory pays for it, so runs that
// keep growing trim themselves and a quiet run keeps what it has.
func (m *Memory) reclaim(r *memRun) {
	limit := m.opts.MaxTotalBytes
	m.mu.Lock()
	m.forgetEndedLocked(r, func() bool { return m.held.Load() > limit })
	m.mu.Unlock()
	if m.held.Load() <= limit {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	held := r.store.held
	r.store.shed()
	for r.info.Last > r.info.First && r.store.chunks.len() > 1 && m.held.Load()-int64(held-r.store.held) > limit {
		r.store.drop(r.info.First)
		r.info.First++
	}
	m.held.Add(int64(r.store.held - held))
}

func (r *memRun) Cancelled() <-chan struct{} { return r.cancel }

// AppendsVisible implements [Visible]: an append is in the log when it
// returns.
func (r *memRun) AppendsVisible() bool { return true }

func (r *memRun) CancelReason() string {
	select {
	case <-r.cancel:
		return r.reason
	default:
		return ""
	}
}

// Close implements [Writer]. In one process there is no other replica to
// notice a lost owner, so a run closed before its terminal event is ended
// here with a RUN_ERROR of code RUN_LOST: readers never wait forever.
func (r *memRun) Close() error {
	r.mu.Lock()
	ended := r.info.Ended
	r.mu.Unlock()
	if !ended {
		_, _ = r.Append(LostEvent("the run's owner released it without ending it"), true)
	}
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	return nil
}

func (r *memRun) expired(now time.Time, ttl time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.info.Ended && now.Sub(r.info.EndedAt) > ttl
}

// sweepLocked forgets runs whose TTL passed, at most once a second.
func (m *Memory) sweepLocked() {
	now := m.opts.Now()
	if now.Sub(m.lastSweep) < time.Second {
		return
	}
	m.lastSweep = now
	for _, r := range m.runs {
		if r.expired(now, m.opts.TTL) {
			m.forgetLocked(r)
		}
	}
}

// evictLocked forgets least recently used ended runs while there are too
// many runs.
func (m *Memory) evictLocked() {
	m.forgetEndedLocked(nil, func() bool { return m.ended.Load() > int64(m.opts.MaxRuns) })
}

// forgetEndedLocked forgets ended runs other than keep, least recently used
// first, while over reports the log is over a bound.
func (m *Memory) forgetEndedLocked(keep *memRun, over func() bool) {
	for el := m.lru.Back(); el != nil && over(); {
		r := el.Value.(*memRun)
		el = el.Prev()
		if r == keep {
			continue
		}
		r.mu.Lock()
		ended := r.info.Ended
		r.mu.Unlock()
		if ended {
			m.forgetLocked(r)
		}
	}
}

func (m *Memory) forgetLocked(r *memRun) {
	// The run's memory goes back to the pools for the runs that follow. A
	// reader still holding the run copies under r.mu, so from here on it
	// finds every event dropped and ends with ErrExpired.
	r.mu.Lock()
	if r.info.Ended {
		m.ended.Add(-1)
	}
	m.held.Add(-int64(r.store.held))
	r.store.release()
	r.info.First = r.info.Last + 1
	r.mu.Unlock()
	delete(m.runs, r.info.RunID)
	if r.elem != nil {
		m.lru.Remove(r.elem)
		r.elem = nil
	}
	m.gone[r.info.RunID] = struct{}{}
	m.goneOrder = append(m.goneOrder, r.info.RunID)
	if len(m.goneOrder) > maxTombstones {
		delete(m.gone, m.goneOrder[0])
		m.goneOrder = m.goneOrder[1:]
	}
}
