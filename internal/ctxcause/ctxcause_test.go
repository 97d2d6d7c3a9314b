package ctxcause_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agui-go/sdk/internal/ctxcause"
)

type stop struct{}

func (stop) Error() string { return "user pressed stop" }

func TestErr(t *testing.T) {
	errStop := errors.New("user pressed stop")

	live := context.Background()
	if err := ctxcause.Err(live); err != nil {
		t.Fatalf("live context: %v", err)
	}

	plain, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ctxcause.Err(plain); err != context.Canceled {
		t.Fatalf("plain cancel: %v, want context.Canceled itself", err)
	}

	caused, cancelCause := context.WithCancelCause(context.Background())
	cancelCause(errStop)
	err := ctxcause.Err(caused)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errStop) {
		t.Fatalf("cancel with cause: %v matches Canceled %v, cause %v", err, errors.Is(err, context.Canceled), errors.Is(err, errStop))
	}
	if err.Error() != "user pressed stop" {
		t.Fatalf("message %q", err.Error())
	}

	typed, cancelTyped := context.WithCancelCause(context.Background())
	cancelTyped(stop{})
	var s stop
	if err := ctxcause.Err(typed); !errors.As(err, &s) || !errors.Is(err, context.Canceled) {
		t.Fatalf("typed cause: %v", err)
	}

	late, cancelLate := context.WithTimeoutCause(context.Background(), time.Nanosecond, errStop)
	defer cancelLate()
	<-late.Done()
	if err := ctxcause.Err(late); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errStop) || errors.Is(err, context.Canceled) {
		t.Fatalf("deadline with cause: %v", err)
	}
}
