package runlog

import "sync"

// The chunks and span blocks of the runs a Memory log forgets go back to
// these pools, and new runs take from them before allocating. A server runs
// many short runs, one after another: without the pools each new run wrote
// its events into freshly allocated memory (about 130 bytes allocated per
// event, and the first touch of every page), while the runs it evicted left
// theirs to the garbage collector. The pools hold pointers to arrays, so
// putting and getting allocate nothing; sync.Pool empties itself across
// garbage collections, so what they keep stays bounded by what is in use.
var (
	blockPool = sync.Pool{New: func() any { return new(spanBlock) }}
	// chunkPools[k] holds chunks of capacity firstChunk<<k.
	chunkPools [chunkClasses]sync.Pool
)

// chunkClasses is how many chunk sizes there are: firstChunk doubling up to
// chunkSize.
const chunkClasses = 5

// chunkClass returns the pool index of a chunk of capacity c, or -1 for a
// capacity that is not one of the classes (an event larger than chunkSize
// gets a chunk of its own size, which is not pooled).
func chunkClass(c int) int {
	for k := range chunkClasses {
		if c == firstChunk<<k {
			return k
		}
	}
	return -1
}

// getChunk returns an empty pooled chunk of capacity firstChunk<<k, or nil
// (also for a k that is no class).
func getChunk(k int) []byte {
	if k < 0 || k >= chunkClasses {
		return nil
	}
	switch p := chunkPools[k].Get().(type) {
	case *[firstChunk]byte:
		return p[:0]
	case *[firstChunk << 1]byte:
		return p[:0]
	case *[firstChunk << 2]byte:
		return p[:0]
	case *[firstChunk << 3]byte:
		return p[:0]
	case *[firstChunk << 4]byte:
		return p[:0]
	}
	return nil
}

// putChunk gives c to its pool, if it is of a class.
func putChunk(c []byte) {
	k := chunkClass(cap(c))
	if k < 0 {
		return
	}
	c = c[:cap(c)]
	var p any
	switch k {
	case 0:
		p = (*[firstChunk]byte)(c)
	case 1:
		p = (*[firstChunk << 1]byte)(c)
	case 2:
		p = (*[firstChunk << 2]byte)(c)
	case 3:
		p = (*[firstChunk << 3]byte)(c)
	case 4:
		p = (*[firstChunk << 4]byte)(c)
	}
	chunkPools[k].Put(p)
}

// release gives every chunk and block of s to the pools and empties s. The
// caller guarantees that nothing reads s's bytes any more.
func (s *store) release() {
	for s.chunks.len() > 0 {
		putChunk(s.chunks.pop())
	}
	for _, c := range s.spareChunks {
		putChunk(c)
	}
	for s.blocks.len() > 0 {
		blockPool.Put(s.blocks.pop())
	}
	for _, b := range s.spareBlocks {
		blockPool.Put(b)
	}
	*s = store{}
}
