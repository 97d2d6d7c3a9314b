package server

import (
	"bytes"
	"runtime"
	"time"
)

// SetWriterLinger sets how long a stream's writer goroutine waits for its
// next batch, and how long a stream must pause before its emitting
// goroutine writes itself (writerLinger), and returns the previous value. A
// test lengthens it to judge what happens on the logic alone, not on
// whether a loaded machine ran the agent's next emit within 500µs.
func SetWriterLinger(d time.Duration) time.Duration {
	return time.Duration(writerLinger.Swap(int64(d)))
}

// WritersRunning reports whether a stream's writer goroutine is alive.
func WritersRunning() bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Contains(buf[:n], []byte(".(*streamWriter).loop"))
		}
		buf = make([]byte, 2*len(buf))
	}
}
