package threads

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/agui-go/sdk/agui"
)

// MemoryOptions bound a [Memory] store. A zero field takes its default.
type MemoryOptions struct {
	// MaxThreads is how many threads are kept; past it the least recently
	// used one is forgotten (a later read of it gets ErrExpired). Default
	// 1024.
	MaxThreads int
	// MaxMessages and MaxBytes bound each thread's conversation: the number
	// of its messages and the size of their JSON encoding. Past either, the
	// oldest messages are dropped (and tool messages left at the front
	// without their call with them), and Record.DroppedMessages counts them.
	// A message larger than MaxBytes on its own is dropped too, so the
	// bounds hold exactly. Defaults 1,000 messages and 1 MiB.
	MaxMessages int
	MaxBytes    int
	// MaxRuns is how many runs of a thread its record lists; past it the
	// oldest are dropped and Record.DroppedRuns counts them. Default 1,000.
	MaxRuns int
	// TTL is how long a thread nobody reads or writes is kept. A thread
	// with a live run is not expired by it. Default 24 hours.
	TTL time.Duration
	// Now is the clock (time.Now by default); tests move it.
	Now func() time.Time
}

const (
	defaultMaxThreads  = 1024
	defaultMaxMessages = 1000
	defaultMaxBytes    = 1 << 20
	defaultMaxRuns     = 1000
	defaultTTL         = 24 * time.Hour
	// maxTombstones bounds how many forgotten thread ids still answer
	// ErrExpired rather than ErrNotFound.
	maxTombstones = 4096
)

// Memory is a bounded, in-process [Store]: the default of the server's
// threads on a single replica. Threads are kept in LRU order.
type Memory struct {
	opts MemoryOptions

	mu        sync.Mutex
	threads   map[string]*list.Element // of *memThread
	lru       list.List                // most recently used at the front
	gone      map[string]struct{}
	goneOrder []string
	scratch   []byte // for measuring messages, under mu
}

type memThread struct {
	rec  Record
	used time.Time
	size int // the JSON size of rec.Messages
}

// NewMemory returns an empty memory store.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.MaxThreads <= 0 {
		opts.MaxThreads = defaultMaxThreads
	}
	b := Bounds{MaxMessages: opts.MaxMessages, MaxBytes: opts.MaxBytes, MaxRuns: opts.MaxRuns}.withDefaults()
	opts.MaxMessages, opts.MaxBytes, opts.MaxRuns = b.MaxMessages, b.MaxBytes, b.MaxRuns
	if opts.TTL <= 0 {
		opts.TTL = defaultTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Memory{opts: opts, threads: map[string]*list.Element{}, gone: map[string]struct{}{}}
}

// Get implements [Store].
func (m *Memory) Get(_ context.Context, threadID string) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.Now()
	m.sweepLocked(now)
	el := m.threads[threadID]
	if el == nil {
		if _, ok := m.gone[threadID]; ok {
			return Record{}, ErrExpired
		}
		return Record{}, ErrNotFound
	}
	t := el.Value.(*memThread)
	t.used = now
	m.lru.MoveToFront(el)
	return t.rec.Clone(), nil
}

// Update implements [Store].
func (m *Memory) Update(_ context.Context, threadID string, fn func(*Record)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.Now()
	m.sweepLocked(now)
	el := m.threads[threadID]
	if el == nil {
		el = m.lru.PushFront(&memThread{rec: Record{ThreadID: threadID}})
		m.threads[threadID] = el
		delete(m.gone, threadID) // it lives again; its tombstone ages out of goneOrder
	}
	t := el.Value.(*memThread)
	rec := t.rec.Clone()
	fn(&rec)
	rec.ThreadID = threadID
	rec.Updated = now
	t.rec, t.used = rec, now
	m.boundLocked(t)
	m.lru.MoveToFront(el)
	for m.lru.Len() > m.opts.MaxThreads {
		m.forgetLocked(m.lru.Back())
	}
	return nil
}

// boundLocked trims a thread's record to the bounds, oldest first.
func (m *Memory) boundLocked(t *memThread) {
	b := Bounds{MaxMessages: m.opts.MaxMessages, MaxBytes: m.opts.MaxBytes, MaxRuns: m.opts.MaxRuns}
	t.size = b.trim(&t.rec, m.sizeOf)
}

// sizeOf is the size of msg's JSON encoding, measured in the store's
// scratch buffer (under mu).
func (m *Memory) sizeOf(msg agui.Message) int {
	var n int
	n, m.scratch = sizeOf(msg, m.scratch)
	return n
}

// sweepLocked forgets the threads whose TTL passed, least recently used
// first: the list is in the order of use, so the walk stops at the first
// thread still within it.
func (m *Memory) sweepLocked(now time.Time) {
	for el := m.lru.Back(); el != nil; {
		t := el.Value.(*memThread)
		if now.Sub(t.used) < m.opts.TTL {
			return
		}
		prev := el.Prev()
		if t.rec.LiveRunID == "" {
			m.forgetLocked(el)
		}
		el = prev
	}
}

func (m *Memory) forgetLocked(el *list.Element) {
	t := m.lru.Remove(el).(*memThread)
	id := t.rec.ThreadID
	delete(m.threads, id)
	m.gone[id] = struct{}{}
	m.goneOrder = append(m.goneOrder, id)
	if len(m.goneOrder) > maxTombstones {
		if _, live := m.threads[m.goneOrder[0]]; !live {
			delete(m.gone, m.goneOrder[0])
		}
		m.goneOrder = m.goneOrder[1:]
	}
}

// Stats is what a [Memory] store holds now.
type Stats struct {
	Threads int
	// MaxMessages and MaxBytes are the largest number of messages and JSON
	// size of one thread's conversation.
	MaxMessages, MaxBytes int
}

// Stats reports what the store holds, for tests and metrics.
func (m *Memory) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Stats{Threads: len(m.threads)}
	for _, el := range m.threads {
		t := el.Value.(*memThread)
		s.MaxMessages = max(s.MaxMessages, len(t.rec.Messages))
		s.MaxBytes = max(s.MaxBytes, t.size)
	}
	return s
}
