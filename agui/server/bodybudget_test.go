package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
)

// However many goroutines take and give back, the bytes out never exceed the
// budget, and every one of them gets its turn.
func TestBodyBudgetNeverOverspends(t *testing.T) {
	const size = 1000
	b := newBodyBudget(size)
	var out, peak atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 200 {
				n, err := b.acquire(context.Background(), 1+r.Int64N(size+200)) // some larger than the budget
				if err != nil {
					t.Error(err)
					return
				}
				now := out.Add(n)
				for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
				}
				out.Add(-n)
				b.release(n)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > size {
		t.Fatalf("%d bytes out at once, budget %d", p, size)
	}
	if b.avail != size || len(b.waiters) != 0 {
		t.Fatalf("after all gave back: %d available, %d waiting", b.avail, len(b.waiters))
	}
}

// A waiter whose context ends leaves the queue and takes nothing, and the
// waiter behind it, which fits, gets in.
func TestBodyBudgetWaiterLeaves(t *testing.T) {
	b := newBodyBudget(100)
	held, _ := b.acquire(context.Background(), 60)

	ctx, cancel := context.WithCancelCause(context.Background())
	big := make(chan error)
	go func() {
		_, err := b.acquire(ctx, 100) // waits: only 40 free
		big <- err
	}()
	small := make(chan int64)
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 1 })
	go func() {
		n, _ := b.acquire(context.Background(), 30) // fits, but queues behind the big one
		small <- n
	}()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 2 })

	stop := errors.New("client left")
	cancel(stop)
	if err := <-big; !errors.Is(err, stop) {
		t.Fatalf("the cancelled waiter got %v", err)
	}
	if n := <-small; n != 30 {
		t.Fatalf("the waiter behind got %d", n)
	}
	b.release(30)
	b.release(held)
	if b.avail != 100 || len(b.waiters) != 0 {
		t.Fatalf("%d available, %d waiting", b.avail, len(b.waiters))
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}

// bodyOf is a valid RunAgentInput of about n bytes.
func bodyOf(n int) string {
	return `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"` + strings.Repeat("x", n) + `"}]}`
}

type answer struct {
	status     int
	retryAfter string
	code       agui.HTTPCode
	err        error
}

func post(url, body string) chan answer {
	ch := make(chan answer, 1)
	go func() {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			ch <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		a := answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
		var e struct {
			Error struct{ Code agui.HTTPCode } `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil {
			a.code = e.Error.Code
		}
		ch <- a
	}()
	return ch
}

// Through the handler: a large body waits while the budget is taken and is
// served once it comes back; a small body does not wait; a body larger than
// the whole budget is read alone; a large body still waiting when the body
// timeout ends gets 503 OVERLOADED with Retry-After.
func TestWithBodyMemory(t *testing.T) {
	agent := Func(func(ctx context.Context, rc *Stateless) (Outcome, error) { return Success(), nil })
	const budget = 1 << 20
	// The large body waits for the budget while the test posts a small
	// one: no body timeout that a loaded machine could outlast meanwhile.
	h := NewHandler(agent, WithBodyMemory(budget), WithBodyTimeout(time.Hour)).(*handler[NoState])
	srv := httptest.NewServer(h)
	defer srv.Close()
	waiting := func(n int) func() bool {
		return func() bool { h.bodies.mu.Lock(); defer h.bodies.mu.Unlock(); return len(h.bodies.waiters) == n }
	}

	held, err := h.bodies.acquire(context.Background(), budget)
	if err != nil || held != budget {
		t.Fatal(held, err)
	}
	large := post(srv.URL, bodyOf(600<<10))
	waitFor(t, waiting(1))
	if a := <-post(srv.URL, bodyOf(10<<10)); a.err != nil || a.status != http.StatusOK {
		t.Fatalf("a small body behind a taken budget: %+v", a)
	}
	select {
	case a := <-large:
		t.Fatalf("the large body was served while the budget was taken: %+v", a)
	default:
	}
	h.bodies.release(held)
	if a := <-large; a.err != nil || a.status != http.StatusOK {
		t.Fatalf("the large body once the budget came back: %+v", a)
	}
	if a := <-post(srv.URL, bodyOf(3<<20)); a.err != nil || a.status != http.StatusOK {
		t.Fatalf("a body larger than the budget: %+v", a)
	}

	// Past the body timeout.
	short := NewHandler(agent, WithBodyMemory(budget), WithBodyTimeout(200*time.Millisecond)).(*handler[NoState])
	srv2 := httptest.NewServer(short)
	defer srv2.Close()
	held, _ = short.bodies.acquire(context.Background(), budget)
	a := <-post(srv2.URL, bodyOf(600<<10))
	if a.err != nil || a.status != http.StatusServiceUnavailable || a.code != agui.HTTPCodeOverloaded || a.retryAfter != "1" {
		t.Fatalf("a large body that never got its turn: %+v", a)
	}
	short.bodies.release(held)
	if short.bodies.avail != budget || len(short.bodies.waiters) != 0 {
		t.Fatalf("%d available, %d waiting", short.bodies.avail, len(short.bodies.waiters))
	}
	// The next large body gets the budget. It goes through a handler
	// that shares short's budget with a longer body timeout: 600 KiB may
	// take a loaded machine longer than 200ms to read.
	patient := NewHandler(agent, WithBodyMemory(budget), WithBodyTimeout(time.Hour)).(*handler[NoState])
	patient.bodies = short.bodies
	srv3 := httptest.NewServer(patient)
	defer srv3.Close()
	if a := <-post(srv3.URL, bodyOf(600<<10)); a.err != nil || a.status != http.StatusOK {
		t.Fatalf("the next large body: %+v", a)
	}
	short.bodies.mu.Lock()
	kept := budget - short.bodies.avail
	short.bodies.mu.Unlock()
	if kept != 0 {
		t.Fatalf("the next large body kept %d bytes of the budget", kept)
	}
	if h.bodies.avail != budget {
		t.Fatalf("the handler kept %d bytes of its budget", budget-h.bodies.avail)
	}
}
