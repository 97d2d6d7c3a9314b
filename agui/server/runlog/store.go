package runlog

import "unsafe"

// store holds one run's kept events for [Memory]. Appending is on every
// emit path of a durable run, so it is built to cost a copy of the event's
// bytes and a few stores once the run has warmed up: no allocation, no
// slice growth that copies what is kept, no per-event bookkeeping that
// scales with the run.
//
// The bytes of the events live in chunks, and where each event is (its
// span) lives in fixed blocks of spans; both are FIFO queues whose front is
// dropped as retention drops the oldest events, and a dropped chunk or block
// is kept as a spare and written again. A bounded run therefore stops
// allocating once it is full. Spans hold no pointers, so a long log costs
// the garbage collector nothing to scan.
type store struct {
	// blocks[i] holds the spans of sequences (block0+i)*blockLen+1 … ;
	// chunks[i] is chunk number chunk0+i.
	blocks fifo[*spanBlock]
	block0 uint64
	chunks fifo[[]byte]
	chunk0 uint32
	bytes  int // bytes of the kept events
	// held is the memory the store owns: the capacity of its chunks and
	// the size of its span blocks, in the queues and kept as spares. It is
	// what [Memory] adds up across runs and bounds.
	held int

	spareBlocks []*spanBlock
	spareChunks [][]byte
}

const (
	blockShift = 9
	blockLen   = 1 << blockShift
	blockMask  = blockLen - 1
	// Chunks start small, so that the many short runs a log keeps cost
	// little, and double up to chunkSize, the size that is recycled.
	firstChunk = 4 << 10
	chunkSize  = 64 << 10
	// maxSpares is how many dropped chunks and blocks a run keeps for
	// reuse: enough that a full run turning over never allocates.
	maxSpares = 2
)

// span is where one event's bytes are: chunk number and offset in it.
type span struct {
	chunk  uint32
	off, n uint32
}

type spanBlock [blockLen]span

// add appends the bytes of event seq (the one after the last added).
func (s *store) add(seq uint64, data []byte) {
	idx := seq - 1
	if idx&blockMask == 0 {
		s.blocks.push(s.newBlock())
	}
	cur := s.chunks.len() - 1
	if cur < 0 || len(*s.chunks.at(cur))+len(data) > cap(*s.chunks.at(cur)) {
		s.chunks.push(s.newChunk(len(data)))
		cur++
	}
	c := s.chunks.at(cur)
	(*s.blocks.at(s.blocks.len() - 1))[idx&blockMask] = span{chunk: s.chunk0 + uint32(cur), off: uint32(len(*c)), n: uint32(len(data))}
	*c = append(*c, data...)
	s.bytes += len(data)
}

// span returns the span of a kept sequence.
func (s *store) span(seq uint64) span {
	idx := seq - 1
	return (*s.blocks.at(int(idx>>blockShift - s.block0)))[idx&blockMask]
}

// bytesOf returns the kept bytes of an event; they are overwritten once
// retention drops it, so a caller copies them before letting go of the lock.
func (s *store) bytesOf(sp span) []byte {
	return (*s.chunks.at(int(sp.chunk - s.chunk0)))[sp.off : sp.off+sp.n]
}

// drop forgets event first, the oldest kept; next is the one after it,
// which must be kept.
func (s *store) drop(first uint64) {
	s.bytes -= int(s.span(first).n)
	next := first + 1
	if (next-1)>>blockShift > s.block0 {
		s.recycleBlock(s.blocks.pop())
		s.block0++
	}
	for s.span(next).chunk > s.chunk0 {
		s.recycleChunk(s.chunks.pop())
		s.chunk0++
	}
}

// blockBytes is the memory of one span block.
const blockBytes = int(unsafe.Sizeof(spanBlock{}))

// shed gives the spare chunks and blocks back to the pools.
func (s *store) shed() {
	for _, c := range s.spareChunks {
		s.held -= cap(c)
		putChunk(c)
	}
	clear(s.spareChunks)
	s.spareChunks = s.spareChunks[:0]
	for _, b := range s.spareBlocks {
		s.held -= blockBytes
		blockPool.Put(b)
	}
	clear(s.spareBlocks)
	s.spareBlocks = s.spareBlocks[:0]
}

func (s *store) newBlock() *spanBlock {
	if n := len(s.spareBlocks); n > 0 {
		b := s.spareBlocks[n-1]
		s.spareBlocks = s.spareBlocks[:n-1]
		return b
	}
	s.held += blockBytes
	return blockPool.Get().(*spanBlock)
}

func (s *store) recycleBlock(b *spanBlock) {
	if len(s.spareBlocks) < maxSpares {
		s.spareBlocks = append(s.spareBlocks, b)
		return
	}
	s.held -= blockBytes
	blockPool.Put(b)
}

// newChunk returns an empty chunk with room for at least n bytes: a spare
// one if it can, else one of the smallest class at least twice the size of
// the last (up to chunkSize), or one of n bytes when n is larger.
func (s *store) newChunk(n int) []byte {
	if k := len(s.spareChunks); k > 0 && n <= chunkSize {
		c := s.spareChunks[k-1]
		s.spareChunks = s.spareChunks[:k-1]
		return c // counted in held already
	}
	c := s.freshChunk(n)
	s.held += cap(c)
	return c
}

// freshChunk is newChunk when no spare will do.
func (s *store) freshChunk(n int) []byte {
	size := firstChunk
	if k := s.chunks.len(); k > 0 {
		// Twice the last, rounded up to a class: the last chunk may be
		// one of an event's own size, which is of no class.
		for last := cap(*s.chunks.at(k - 1)); size < chunkSize && size < 2*last; {
			size <<= 1
		}
	}
	if n <= size {
		if c := getChunk(chunkClass(size)); c != nil {
			return c // a forgotten run's
		}
	}
	return make([]byte, 0, max(size, n))
}

func (s *store) recycleChunk(c []byte) {
	if cap(c) == chunkSize && len(s.spareChunks) < maxSpares {
		s.spareChunks = append(s.spareChunks, c[:0])
		return
	}
	s.held -= cap(c)
	putChunk(c)
}

// fifo is a queue that reuses its array: once it has grown to its working
// size, pushing at the back and popping at the front allocate nothing. It
// slides its contents down only when at least half of the array is free at
// the front, so each element is moved O(1) times on average.
type fifo[T any] struct {
	s    []T
	head int
}

func (q *fifo[T]) len() int { return len(q.s) - q.head }

func (q *fifo[T]) at(i int) *T { return &q.s[q.head+i] }

func (q *fifo[T]) push(v T) {
	if len(q.s) == cap(q.s) && q.head > 0 && q.head >= len(q.s)/2 {
		n := copy(q.s, q.s[q.head:])
		clear(q.s[n:])
		q.s, q.head = q.s[:n], 0
	}
	q.s = append(q.s, v)
}

func (q *fifo[T]) pop() T {
	p := &q.s[q.head]
	v := *p
	var zero T
	*p = zero
	q.head++
	return v
}
