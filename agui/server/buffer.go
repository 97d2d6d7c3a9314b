package server

import "sync"

// bufferPool holds the write buffers of the streams that are not writing. A
// stream takes one when it encodes an event and gives it back once the frames
// are written, so many idle runs share a handful of buffers instead of each
// holding one of the size of its largest burst. A new buffer has room for a
// batch (writeBatch) and the frame that completes it, so that a busy stream
// does not grow each buffer it takes in steps.
var bufferPool = sync.Pool{New: func() any {
	b := make([]byte, 0, writeBatch+writeBatch/2)
	return &b
}}

// maxPooled is the largest buffer kept for reuse: a run that emitted a huge
// event does not leave a huge buffer behind in the pool.
const maxPooled = 64 << 10

// acquireOut makes out a buffer from the pool, unless one is already held.
// Called with mu held.
func (e *emitter) acquireOut() {
	if e.box != nil {
		return
	}
	e.box = bufferPool.Get().(*[]byte)
	e.out = (*e.box)[:0]
}

// releaseOut gives out back to the pool; its content is dropped. Called with
// mu held.
func (e *emitter) releaseOut() {
	putBuffer(e.box, e.out)
	e.box, e.out = nil, nil
}

// putBuffer gives b, taken from the pool as box, back to it (a nil box was
// not taken from it).
func putBuffer(box *[]byte, b []byte) {
	if box == nil || cap(b) > maxPooled {
		return
	}
	*box = b[:0]
	bufferPool.Put(box)
}
