package server

import (
	"bytes"
	"fmt"
	"runtime"
	"time"
)

// SetWriterLinger sets how long an idle writer goroutine waits for its next
// batch (writerLinger) and returns the previous value. A test lengthens it
// to judge writer reuse on the logic alone, not on whether a loaded machine
// ran the next stream within 20ms.
//
// It first waits, up to within, for every writer goroutine to end, so that
// none reads the value while it changes: each writer's last read of it comes
// before its last idleCount.Add, and the Load here orders the change after
// those. It fails if a writer is still running then.
func SetWriterLinger(d, within time.Duration) (time.Duration, error) {
	for deadline := time.Now().Add(within); writersRunning(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("writer goroutines still running after %v", within)
		}
	}
	idleCount.Load()
	old := writerLinger
	writerLinger = d
	return old, nil
}

// writersRunning reports whether a writer goroutine is alive.
func writersRunning() bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Contains(buf[:n], []byte(".(*sseSink).writeLoop"))
		}
		buf = make([]byte, 2*len(buf))
	}
}
