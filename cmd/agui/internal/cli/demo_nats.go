package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/server/threads"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// natsTimeout bounds connecting to the NATS server and creating the run
// log's stream and buckets, so that a wrong URL fails the command quickly
// rather than leaving it waiting.
const natsTimeout = 10 * time.Second

// openNATS connects to the NATS server at url and opens the JetStream run
// log and thread store on it. The returned close function stops the log's
// lease watch and then closes the connection; it must run after the server
// has stopped, since runs still ending append (and record their threads)
// through the connection.
func openNATS(ctx context.Context, url string) (runlog.Log, threads.Store, func(), error) {
	// natslog.Connect reconnects however long an outage lasts and logs
	// each disconnect and reconnect (to slog.Default, the demo's log).
	nc, err := natslog.Connect(url, nil, nats.Name("agui demo"), nats.Timeout(natsTimeout))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("connecting to NATS at %s: %w", url, err)
	}
	ctx, cancel := context.WithTimeout(ctx, natsTimeout)
	defer cancel()
	l, err := natslog.New(ctx, nc, natslog.Options{})
	if err != nil {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("opening the run log on NATS at %s (is JetStream enabled?): %w", url, err)
	}
	s, err := natslog.NewThreads(ctx, nc, natslog.ThreadsOptions{})
	if err != nil {
		l.Close()
		nc.Close()
		return nil, nil, nil, fmt.Errorf("opening the thread store on NATS at %s: %w", url, err)
	}
	return l, s, func() { l.Close(); nc.Close() }, nil
}
