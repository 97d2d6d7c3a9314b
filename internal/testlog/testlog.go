// Package testlog gives tests a *slog.Logger whose records go to the test's
// own output: shown when the test fails or runs with -v, never on the output
// of a green run. Tests that make an agent panic or fail on purpose log
// through it, so that the suite's output holds only what a reader needs.
package testlog

import (
	"io"
	"log/slog"
	"sync"
	"testing"
)

// New returns a logger writing text records, at every level, to t's output.
// Records logged after t has ended (by a goroutine the test started and that
// outlived it) are dropped rather than written: the testing package panics
// on output from a test that has completed.
func New(t testing.TB) *slog.Logger {
	w := &writer{out: t.Output()}
	t.Cleanup(w.close)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// writer forwards to a test's output until the test ends.
type writer struct {
	mu     sync.Mutex
	out    io.Writer
	closed bool
}

func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return len(p), nil
	}
	return w.out.Write(p)
}

func (w *writer) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}
