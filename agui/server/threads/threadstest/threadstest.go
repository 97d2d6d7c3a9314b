// Package threadstest is the contract every [threads.Store] keeps, as a test
// suite a store's own tests run: [Run] with a function that opens the store
// under test. The memory store and the NATS JetStream one (package
// runlog/nats) both pass it, so that a server behaves the same on either.
package threadstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/threads"
)

// Config is what a store under test is opened with. A backend passes every
// field to its store: the suite checks the store keeps them.
type Config struct {
	// Bounds bound each thread (zero fields: the defaults).
	Bounds threads.Bounds
	// TTL is how long a thread nobody reads or writes is kept.
	TTL time.Duration
	// Now is the store's clock; the suite moves it.
	Now func() time.Time
}

// Backend is one store backend opened for a test.
type Backend struct {
	// Open returns a store on the backend. Each call may return another
	// instance on the same backend (a store of another replica); every
	// instance sees the others' updates. A backend of one instance returns
	// it every time.
	Open func() threads.Store
	// Corrupt makes the backend's entry of the thread one that does not
	// decode as a record. Nil for a backend that keeps no encoding (the
	// memory store); the suite then skips that test.
	Corrupt func(threadID string) error
}

// Run runs the contract against the stores newBackend opens: a fresh
// backend, empty, for each test.
func Run(t *testing.T, newBackend func(t *testing.T, c Config) Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, func(*testing.T, Config) Backend)
	}{
		{"Unknown", testUnknown},
		{"RoundTrip", testRoundTrip},
		{"Copy", testCopy},
		{"Concurrent", testConcurrent},
		{"Bounds", testBounds},
		{"OversizedMessage", testOversizedMessage},
		{"TTL", testTTL},
		{"Corrupt", testCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newBackend) })
	}
}

// clock is a clock the suite moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func open(t *testing.T, newBackend func(*testing.T, Config) Backend, c Config) (Backend, *clock) {
	t.Helper()
	clk := newClock()
	if c.TTL == 0 {
		c.TTL = time.Hour
	}
	c.Now = clk.Now
	return newBackend(t, c), clk
}

func ctxOf(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a hang guard
	t.Cleanup(cancel)
	return ctx
}

// RecordRun records run n of a thread as the server does: its input's
// message and the run at its start, the agent's reply and the run's end
// after. Message ids are {thread}-u{n} and {thread}-a{n}, the run's id
// {thread}-run-{n}.
func RecordRun(t *testing.T, s threads.Store, thread string, n int, reply string) {
	t.Helper()
	ctx := ctxOf(t)
	runID := fmt.Sprintf("%s-run-%d", thread, n)
	err := s.Update(ctx, thread, func(r *threads.Record) {
		r.Messages = append(r.Messages, &agui.UserMessage{ID: fmt.Sprintf("%s-u%d", thread, n), Content: agui.TextContent("question")})
		r.LiveRunID = runID
		r.Runs = append(r.Runs, threads.Run{RunID: runID, Outcome: threads.OutcomeRunning})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, thread, func(r *threads.Record) {
		r.Messages = append(r.Messages, &agui.AssistantMessage{ID: fmt.Sprintf("%s-a%d", thread, n), Content: &reply})
		if p, ok := r.Run(runID); ok {
			p.Outcome = threads.OutcomeSucceeded
		}
		r.LiveRunID = ""
		r.Ended++
	})
	if err != nil {
		t.Fatal(err)
	}
}

// messagesJSON is the JSON of msgs, for comparing conversations.
func messagesJSON(t *testing.T, msgs []agui.Message) string {
	t.Helper()
	var parts []string
	for _, m := range msgs {
		b, err := m.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, string(b))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// A thread the store never had is ErrNotFound (and not ErrExpired).
func testUnknown(t *testing.T, newBackend func(*testing.T, Config) Backend) {
	b, _ := open(t, newBackend, Config{})
	_, err := b.Open().Get(ctxOf(t), "never")
	if !errors.Is(err, threads.ErrNotFound) || errors.Is(err, threads.ErrExpired) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
}

// Every field of a record comes back as it was written, through another
// instance too; Update starts a thread from a record with its id set.
func testRoundTrip(t *testing.T, newBackend func(*testing.T, Config) Backend) {
	b, clk := open(t, newBackend, Config{})
	ctx := ctxOf(t)
	s := b.Open()
	text := "the answer is 42"
	msg := "May I go on?"
	call := "call-1"
	want := threads.Record{
		ThreadID: "t/1 ünïcode",
		Messages: []agui.Message{
			&agui.SystemMessage{ID: "s", Content: "be brief"},
			&agui.UserMessage{ID: "u", Content: agui.TextContent("question")},
			&agui.AssistantMessage{ID: "a", Content: &text, ToolCalls: []agui.ToolCall{{ID: call, Function: agui.FunctionCall{Name: "lookup", Arguments: `{"q":"answer"}`}}}},
			&agui.ToolMessage{ID: "tm", Content: agui.TextContent(`{"answer":42}`), ToolCallID: call},
		},
		State:      json.RawMessage(`{"turns":3,"nested":{"a":[1,2]}}`),
		Interrupts: []agui.Interrupt{{ID: "i1", Reason: "approval", Message: &msg, ToolCallID: &call}},
		Runs: []threads.Run{
			{RunID: "r1", Started: clk.Now().Add(-time.Minute), Ended: clk.Now(), Outcome: threads.OutcomeSucceeded,
				Usage: []agui.TokenUsage{{Model: new("m"), InputTokens: new(int64(10)), OutputTokens: new(int64(20))}}},
			{RunID: "r2", Started: clk.Now(), Outcome: threads.OutcomeFailed, Error: "gone", Code: string(agui.CodeRunLost)},
			{RunID: "r3", Started: clk.Now(), Outcome: threads.OutcomeRunning},
		},
		LiveRunID: "r3",
		Ended:     2,
	}
	var given threads.Record
	err := s.Update(ctx, want.ThreadID, func(r *threads.Record) {
		given = r.Clone()
		id := r.ThreadID
		*r = want.Clone()
		r.ThreadID = id
	})
	if err != nil {
		t.Fatal(err)
	}
	if given.ThreadID != want.ThreadID || len(given.Messages) != 0 || len(given.Runs) != 0 || given.Ended != 0 {
		t.Fatalf("Update of a new thread gave fn %+v, want an empty record of its id", given)
	}
	for i, s := range []threads.Store{s, b.Open()} {
		got, err := s.Get(ctx, want.ThreadID)
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		checkSame(t, got, want)
		if !got.Updated.Equal(clk.Now()) {
			t.Errorf("instance %d: Updated %v, want the store's now %v", i, got.Updated, clk.Now())
		}
	}
}

func checkSame(t *testing.T, got, want threads.Record) {
	t.Helper()
	if got.ThreadID != want.ThreadID || got.LiveRunID != want.LiveRunID || got.Ended != want.Ended ||
		got.DroppedMessages != want.DroppedMessages || got.DroppedRuns != want.DroppedRuns {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if g, w := messagesJSON(t, got.Messages), messagesJSON(t, want.Messages); g != w {
		t.Errorf("messages\n got %s\nwant %s", g, w)
	}
	if !jsonEqual(t, got.State, want.State) {
		t.Errorf("state %s, want %s", got.State, want.State)
	}
	for _, pair := range [][2]any{{got.Interrupts, want.Interrupts}, {got.Runs, want.Runs}} {
		g, err := json.Marshal(pair[0])
		if err != nil {
			t.Fatal(err)
		}
		w, _ := json.Marshal(pair[1])
		if string(g) != string(w) {
			t.Errorf("got %s\nwant %s", g, w)
		}
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// What Get returns does not change with the store, nor the store with it.
func testCopy(t *testing.T, newBackend func(*testing.T, Config) Backend) {
	b, _ := open(t, newBackend, Config{})
	s := b.Open()
	ctx := ctxOf(t)
	RecordRun(t, s, "t", 0, "a")
	rec, err := s.Get(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	rec.Messages[0] = nil
	rec.Runs[0].RunID = "changed"
	RecordRun(t, s, "t", 1, "b")
	again, err := s.Get(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if again.Messages[0] == nil || again.Runs[0].RunID != "t-run-0" || len(rec.Messages) != 2 || len(again.Messages) != 4 {
		t.Fatalf("the store and its records share: %+v", again)
	}
}

// Updates of one thread from two instances at once (two replicas) are
// atomic: none is lost, each sees the others' before it.
func testConcurrent(t *testing.T, newBackend func(*testing.T, Config) Backend) {
	b, _ := open(t, newBackend, Config{})
	ctx := ctxOf(t)
	stores := []threads.Store{b.Open(), b.Open()}
	const writers, each = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		s := stores[w%len(stores)]
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("w%d-%d", w, i)
				errs <- s.Update(ctx, "shared", func(r *threads.Record) {
					r.Messages = append(r.Messages, &agui.UserMessage{ID: id, Content: agui.TextContent(id)})
					r.Runs = append(r.Runs, threads.Run{RunID: id, Outcome: threads.OutcomeSucceeded})
					r.Ended++
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	rec, err := stores[1].Get(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Ended != writers*each || len(rec.Messages) != writers*each || len(rec.Runs) != writers*each {
		t.Fatalf("%d ended, %d messages, %d runs after %d updates: updates were lost", rec.Ended, len(rec.Messages), len(rec.Runs), writers*each)
	}
	seen := map[string]bool{}
	for i, m := range rec.Messages {
		if seen[m.MessageID()] || m.MessageID() != rec.Runs[i].RunID {
			t.Fatalf("message %d (%s) is twice there or out of step with its run %s", i, m.MessageID(), rec.Runs[i].RunID)
		}
		seen[m.MessageID()] = true
	}
}

// A thread over its bounds keeps its newest messages and runs and counts
// what it dropped (the truncation marker), after every update; a tool
// message never leads; the kept messages fit MaxBytes exactly.
func testBounds(t *testing.T, newBackend func(*testing.T, Config) Backend) {
	bounds := threads.Bounds{MaxMessages: 8, MaxBytes: 1200, MaxRuns: 5}
	b, _ := open(t, newBackend, Config{Bounds: bounds})
	s := b.Open()
	ctx := ctxOf(t)
	for n := range 10 {
		RecordRun(t, s, "t", n, strings.Repeat("x", 10*n))
		rec, err := s.Get(ctx, "t")
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, m := range rec.Messages {
			data, _ := m.AppendJSON(nil)
			size += len(data)
		}
		if len(rec.Messages) > bounds.MaxMessages || size > bounds.MaxBytes || len(rec.Runs) > bounds.MaxRuns {
			t.Fatalf("run %d: %d messages of %d bytes and %d runs are over %+v", n, len(rec.Messages), size, len(rec.Runs), bounds)
		}
		if rec.DroppedMessages+len(rec.Messages) != 2*(n+1) || rec.DroppedRuns+len(rec.Runs) != n+1 {
			t.Fatalf("run %d: %d kept and %d dropped of %d messages; %d and %d of %d runs", n,
				len(rec.Messages), rec.DroppedMessages, 2*(n+1), len(rec.Runs), rec.DroppedRuns, n+1)
		}
	}
	rec, err := s.Get(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Messages[len(rec.Messages)-1].MessageID(); got != "t-a9" {
		t.Errorf("the newest message is %s, want t-a9", got)
	}
	if rec.DroppedMessages == 0 || len(rec.Runs) != 5 || rec.DroppedRuns != 5 || rec.Runs[4].RunID != "t-run-9" || rec.Ended != 10 {
		t.Errorf("%d dropped messages; runs %d kept, %d dropped, %d ended", rec.DroppedMessages, len(rec.Runs), rec.DroppedRuns, rec.Ended)
	}

	// The same as Bounds.Trim makes of it: one semantics everywhere.
	var want threads.Record
	want.ThreadID = "u"
	content := "answer"
	err = s.Update(ctx, "u", func(r *threads.Record) {
		for i := range 6 {
			call := fmt.Sprintf("c%d", i)
			r.Messages = append(r.Messages,
				&agui.AssistantMessage{ID: fmt.Sprintf("a%d", i), Content: &content, ToolCalls: []agui.ToolCall{{ID: call, Function: agui.FunctionCall{Name: "f", Arguments: "{}"}}}},
				&agui.ToolMessage{ID: fmt.Sprintf("t%d", i), Content: agui.TextContent(strings.Repeat("r", 40*i)), ToolCallID: call})
		}
		want.Messages = slices.Clone(r.Messages)
	})
	if err != nil {
		t.Fatal(err)
	}
	bounds.Trim(&want)
	got, err := s.Get(ctx, "u")
	if err != nil {
		t.Fatal(err)
	}
	if g, w := messagesJSON(t, got.Messages), messagesJSON(t, want.Messages); g != w || got.DroppedMessages != want.DroppedMessages {
		t.Fatalf("kept %s (%d dropped)\nBounds.Trim keeps %s (%d dropped)", g, got.DroppedMessages, w, want.DroppedMessages)
	}
	if got.Messages[0].Role() == agui.RoleTool {
		t.Fatal("a tool message leads")
	}
}

// A message larger than MaxBytes on its own is dropped: the bound holds
// exactly, and the update does not fail.
func testOversizedMessage(t *testing.T, newBackend func(*testing.T, Config) Backend) {
	b, _ := open(t, newBackend, Config{Bounds: threads.Bounds{MaxBytes: 4 << 10}})
	s := b.Open()
	ctx := ctxOf(t)
	RecordRun(t, s, "t", 0, "short")
	RecordRun(t, s, "t", 1, strings.Repeat("y", 8<<10))
	rec, err := s.Get(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Messages) != 0 || rec.DroppedMessages != 4 || rec.Ended != 2 {
		t.Fatalf("kept %d messages, dropped %d, ended %d; want 0, 4, 2", len(rec.Messages), rec.DroppedMessages, rec.Ended)
	}
}

// A thread nobody used for its TTL expires (ErrExpired, not ErrNotFound),
// unless it has a live run; reading it keeps it; one that runs again after
// it expired starts afresh.
func testTTL(t *testing.T, newBackend func(*testing.T, Config) Backend) {
	b, clk := open(t, newBackend, Config{TTL: time.Hour})
	s := b.Open()
	ctx := ctxOf(t)
	RecordRun(t, s, "idle", 0, "a")
	RecordRun(t, s, "used", 0, "a")
	if err := s.Update(ctx, "live", func(r *threads.Record) { r.LiveRunID = "r" }); err != nil {
		t.Fatal(err)
	}
	clk.advance(40 * time.Minute)
	if _, err := s.Get(ctx, "used"); err != nil {
		t.Fatal(err)
	}
	clk.advance(40 * time.Minute)
	for _, s := range []threads.Store{s, b.Open()} {
		if _, err := s.Get(ctx, "idle"); !errors.Is(err, threads.ErrExpired) || errors.Is(err, threads.ErrNotFound) {
			t.Fatalf("idle: got %v, want ErrExpired", err)
		}
		for _, id := range []string{"used", "live"} {
			if _, err := s.Get(ctx, id); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
		}
	}
	var given threads.Record
	err := s.Update(ctx, "idle", func(r *threads.Record) { given = r.Clone() })
	if err != nil {
		t.Fatal(err)
	}
	if given.ThreadID != "idle" || len(given.Messages) != 0 || given.Ended != 0 || len(given.Runs) != 0 {
		t.Fatalf("Update of an expired thread gave fn %+v, want an empty record", given)
	}
	RecordRun(t, s, "idle", 1, "b")
	rec, err := s.Get(ctx, "idle")
	if err != nil || len(rec.Messages) != 2 || rec.Ended != 1 || rec.DroppedMessages != 0 {
		t.Fatalf("got %+v, %v", rec, err)
	}
}

// An entry that does not decode is an error that says so, from Get and
// Update alike, and never a panic; other threads are unaffected.
func testCorrupt(t *testing.T, newBackend func(*testing.T, Config) Backend) {
	b, _ := open(t, newBackend, Config{})
	if b.Corrupt == nil {
		t.Skip("the backend keeps no encoding")
	}
	s := b.Open()
	ctx := ctxOf(t)
	RecordRun(t, s, "bad", 0, "a")
	RecordRun(t, s, "good", 0, "a")
	if err := b.Corrupt("bad"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get(ctx, "bad")
	if err == nil || errors.Is(err, threads.ErrNotFound) || errors.Is(err, threads.ErrExpired) {
		t.Fatalf("Get: got %v, want an error of its own", err)
	}
	if !strings.Contains(err.Error(), "bad") {
		t.Errorf("Get: %v does not name the thread", err)
	}
	called := false
	if err := s.Update(ctx, "bad", func(*threads.Record) { called = true }); err == nil || called {
		t.Fatalf("Update: got %v (fn called: %v), want an error before fn", err, called)
	}
	if _, err := s.Get(ctx, "good"); err != nil {
		t.Fatal(err)
	}
}
