// Package testlog gives tests a *slog.Logger whose records go to the test's
// own output: shown when the test fails or runs with -v, never on the output
// of a green run. Tests that make an agent panic or fail on purpose log
// through it, so that the suite's output holds only what a reader needs.
// Tests of what is logged record it with a [Recorder].
package testlog

import (
	"context"
	"io"
	"log/slog"
	"slices"
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

// Record is one record a [Recorder] kept: its level, message and
// attributes, groups flattened into dotted keys.
type Record struct {
	Level   slog.Level
	Message string
	Attrs   map[string]any
}

// Recorder is a slog.Handler that keeps every record, at every level, for
// tests that check what was logged. It is safe for concurrent use.
type Recorder struct {
	store  *recorded
	attrs  []slog.Attr
	prefix string // the open groups, "a.b."
}

type recorded struct {
	mu      sync.Mutex
	records []Record
}

// NewRecorder returns a logger whose records a Recorder keeps, and the
// Recorder.
func NewRecorder() (*slog.Logger, *Recorder) {
	r := &Recorder{store: &recorded{}}
	return slog.New(r), r
}

// Records returns the records kept so far, oldest first.
func (r *Recorder) Records() []Record {
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	return append([]Record(nil), r.store.records...)
}

// Enabled reports true: a Recorder keeps every level.
func (r *Recorder) Enabled(context.Context, slog.Level) bool { return true }

// Handle keeps rec.
func (r *Recorder) Handle(_ context.Context, rec slog.Record) error {
	out := Record{Level: rec.Level, Message: rec.Message, Attrs: map[string]any{}}
	for _, a := range r.attrs {
		addAttr(out.Attrs, "", a)
	}
	rec.Attrs(func(a slog.Attr) bool {
		addAttr(out.Attrs, r.prefix, a)
		return true
	})
	r.store.mu.Lock()
	r.store.records = append(r.store.records, out)
	r.store.mu.Unlock()
	return nil
}

// WithAttrs returns a handler that adds attrs to every record.
func (r *Recorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *r
	c.attrs = slices.Clone(r.attrs)
	for _, a := range attrs {
		a.Key = r.prefix + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

// WithGroup returns a handler that puts later attributes in group name.
func (r *Recorder) WithGroup(name string) slog.Handler {
	c := *r
	c.prefix = r.prefix + name + "."
	return &c
}

func addAttr(m map[string]any, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		for _, g := range v.Group() {
			addAttr(m, prefix+a.Key+".", g)
		}
		return
	}
	m[prefix+a.Key] = v.Any()
}
