package server

import "sync"

// bufferPool holds the write buffers of the streams that are not writing. A
// stream takes one when it queues a frame and gives it back once the frames
// are written, so many idle runs share a handful of buffers instead of each
// holding one of the size of its largest burst.
var bufferPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 12<<10)
	return &b
}}

// maxPooled is the largest buffer kept for reuse: a run that emitted a huge
// event does not leave a huge buffer behind in the pool.
const maxPooled = 64 << 10

// putBuffer gives b, taken from the pool as box, back to it (a nil box was
// not taken from it).
func putBuffer(box *[]byte, b []byte) {
	if box == nil || cap(b) > maxPooled {
		return
	}
	*box = b[:0]
	bufferPool.Put(box)
}
