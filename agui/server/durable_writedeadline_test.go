//go:build linux

package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// The write deadline of a durable stream bounds the time without progress,
// as for the handler's other streams: a client reading slowly but steadily
// keeps its stream although one write takes it several intervals.
//
// The interval is half a second, as in the plain handler's test: a durable
// stream is written by the reader of the log on a loaded machine's
// schedule, and a stall of the steady reader's goroutine past the interval
// is a cut the test did not mean; the 36 KiB a deadline covers take the
// reader 180ms.
func TestDurableWriteTimeoutSparesSteadySlowReader(t *testing.T) {
	const interval = 500 * time.Millisecond
	ended := make(chan error, 1)
	srv := startSmall(t, server.NewHandler(bigEvents(4, 96<<10, ended), server.WithWriteTimeout(interval),
		server.WithDurableRuns(runlog.NewMemory(runlog.MemoryOptions{}), server.AllowAll)))
	body, took := readSteadily(dialSmall(t, srv))
	if err := <-ended; err != nil {
		t.Fatalf("the run was cancelled: %v", err)
	}
	if !strings.Contains(body, `"type":"RUN_FINISHED"`) {
		t.Fatalf("the stream has no RUN_FINISHED (read %d bytes in %v)", len(body), took)
	}
	if took < 3*interval {
		t.Fatalf("reading took only %v; the reader was not slow enough to test anything", took)
	}
}

// A durable stream whose client stops reading is cut after the interval,
// and, being the run's last reader, cancels the run as disconnected.
func TestDurableWriteTimeoutCutsStalledReader(t *testing.T) {
	const interval = 250 * time.Millisecond
	ended := make(chan error, 1)
	text := strings.Repeat("z", 64<<10)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		for range 10 { // more than the socket buffers hold
			if err := rc.Say(text); err != nil {
				ended <- context.Cause(ctx)
				return server.Outcome{}, err
			}
		}
		<-ctx.Done() // the run lives on; only its reader can end it
		ended <- context.Cause(ctx)
		return server.Outcome{}, ctx.Err()
	})
	srv := startSmall(t, server.NewHandler(agent, server.WithWriteTimeout(interval),
		server.WithDurableRuns(runlog.NewMemory(runlog.MemoryOptions{}), server.AllowAll)))
	dialSmall(t, srv) // and never read the body
	wantCut(t, ended, "a durable client that stopped reading")
}
