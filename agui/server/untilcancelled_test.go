package server_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"

	"go.uber.org/goleak"
)

// wantCancelled checks that err is the CANCELLED *Error reaching cause.
func wantCancelled(t *testing.T, err, cause error) {
	t.Helper()
	var e *server.Error
	if !errors.As(err, &e) || e.Code != agui.CodeCancelled || !server.IsCancelled(err) || !errors.Is(err, cause) {
		t.Fatalf("got %#v (%v), want the CANCELLED *Error with cause %v", err, err, cause)
	}
}

// A function that honours its context leaves nothing behind once cancellation
// wins: not its goroutine, not anything of UntilCancelled's own, even when the
// function would otherwise block forever.
func TestUntilCancelledLeavesNothingBehind(t *testing.T) {
	defer settle(t, 0, goleak.IgnoreCurrent())
	errLeft := errors.New("the client left")
	for _, tc := range []struct {
		name string
		f    func(ctx context.Context) (string, error)
	}{
		{"blocks on ctx.Done", func(ctx context.Context) (string, error) {
			<-ctx.Done() // and nothing else: never answers otherwise
			return "", ctx.Err()
		}},
		{"blocks on ctx.Done and returns no error", func(ctx context.Context) (string, error) {
			<-ctx.Done()
			return "partial", nil
		}},
		{"selects on ctx.Done", func(ctx context.Context) (string, error) {
			select {
			case <-ctx.Done():
				return "", context.Cause(ctx)
			case <-time.After(time.Hour):
				return "late", nil
			}
		}},
		{"fans out to a goroutine that honours ctx", func(ctx context.Context) (string, error) {
			var wg sync.WaitGroup
			wg.Go(func() { <-ctx.Done() })
			wg.Wait()
			return "", ctx.Err()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			probe := startProbe(t)
			for range 50 {
				ctx, cancel := context.WithCancelCause(context.Background())
				started := make(chan struct{})
				go func() { <-started; cancel(errLeft) }()
				at := time.Now()
				v, err := server.UntilCancelled(ctx, func(ctx context.Context) (string, error) {
					close(started)
					return tc.f(ctx)
				})
				probe.withinBound(t, "UntilCancelled returning once cancelled", at, time.Since(at), time.Second)
				if v != "" {
					t.Fatalf("value %q after cancellation won", v)
				}
				// Deterministic: f's reaction to the cancellation does not
				// replace the cancellation itself.
				wantCancelled(t, err, errLeft)
			}
			probe.end()
			settle(t, 0, ignore)
		})
	}
}

// A function that ignores its context cannot be stopped: UntilCancelled still
// returns as soon as cancellation wins, and the function's goroutine stays
// until the function returns on its own, then exits.
func TestUntilCancelledReturnsWhileFIgnoresCtx(t *testing.T) {
	defer settle(t, 0, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancelCause(context.Background())
	hold := make(chan struct{})
	started := make(chan struct{})
	returned := make(chan struct{})
	go func() { <-started; cancel(server.ErrDeadline) }()
	_, err := server.UntilCancelled(ctx, func(ctx context.Context) (int, error) {
		close(started)
		defer close(returned)
		<-hold // ignores ctx
		return 42, nil
	})
	wantCancelled(t, err, server.ErrDeadline)
	select {
	case <-returned:
		t.Fatal("f returned although it was still held")
	default:
	}
	close(hold) // f returns by itself: its goroutine must not block on the way out
	<-returned
}

// Until cancellation wins, UntilCancelled is f: its result, its panic (as a
// *PanicError carrying f's stack), its runtime.Goexit.
func TestUntilCancelledIsTransparent(t *testing.T) {
	defer settle(t, 0, goleak.IgnoreCurrent())
	ctx := t.Context()

	errModel := errors.New("model overloaded")
	if v, err := server.UntilCancelled(ctx, func(ctx context.Context) (int, error) { return 7, errModel }); v != 7 || err != errModel {
		t.Fatalf("got %v, %v", v, err)
	}

	t.Run("panic", func(t *testing.T) {
		var p any
		func() {
			defer func() { p = recover() }()
			_, _ = server.UntilCancelled(ctx, func(ctx context.Context) (int, error) { panicInModelCall(); return 0, nil })
		}()
		pe, ok := p.(*server.PanicError)
		if !ok || pe.Value != "model SDK bug" {
			t.Fatalf("recovered %#v, want a *PanicError with the value", p)
		}
		if !strings.Contains(string(pe.Stack), "panicInModelCall") {
			t.Fatalf("the stack is not f's:\n%s", pe.Stack)
		}
	})

	t.Run("goexit", func(t *testing.T) {
		after := make(chan bool, 1)
		go func() {
			reached := false
			defer func() { after <- reached }()
			_, _ = server.UntilCancelled(context.Background(), func(ctx context.Context) (int, error) {
				runtime.Goexit()
				return 0, nil
			})
			reached = true
		}()
		select {
		case reached := <-after:
			if reached {
				t.Fatal("UntilCancelled returned normally after f called runtime.Goexit")
			}
		case <-time.After(giveUp):
			t.Fatal("UntilCancelled never returned after f called runtime.Goexit")
		}
	})
}

//go:noinline
func panicInModelCall() { panic("model SDK bug") }

// An agent whose raced call panics ends with AGENT_PANIC, and the stack logged
// is the one of the call that panicked; the process goes on.
func TestUntilCancelledPanicInRun(t *testing.T) {
	var logs bytes.Buffer
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		_, err := server.UntilCancelled(ctx, func(ctx context.Context) (string, error) { panicInModelCall(); return "", nil })
		return server.Success(), err
	})
	var last agui.Event
	for ev, err := range server.Run(context.Background(), agent, input(), server.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))) {
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	re, ok := last.(*agui.RunError)
	if !ok || re.Code == nil || *re.Code != string(agui.CodeAgentPanic) {
		t.Fatalf("terminal %#v", last)
	}
	if s := logs.String(); !strings.Contains(s, "panicInModelCall") || !strings.Contains(s, "panic=\"model SDK bug\"") {
		t.Fatalf("log:\n%s", s)
	}
}
