//go:build linux

package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// The write deadline of a durable stream bounds the time without progress,
// as for the handler's other streams: a client reading slowly but steadily
// keeps its stream although one write takes it several intervals. The run
// goes on whatever happens to its stream (a durable run's agent writes to
// the log): what a cut shows is a stream without its RUN_FINISHED.
func TestDurableWriteTimeoutSparesSteadySlowReader(t *testing.T) {
	spareSteadySlowReader(t, func(interval time.Duration) (http.Handler, <-chan error) {
		ended := make(chan error, 1)
		return server.NewHandler(bigEvents(4, 96<<10, ended), server.WithWriteTimeout(interval),
			server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll})), ended
	})
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
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll})))
	dialSmall(t, srv) // and never read the body
	wantCut(t, ended, "a durable client that stopped reading")
}
