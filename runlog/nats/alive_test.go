package natslog_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// A lease that was not renewed does not make a run lost while its owner
// answers: the lease watch asks the owner first (on a busy machine
// renewals land late, and runs of live owners ended as lost). Once the
// owner is gone (its connection closed), the run ends with RUN_LOST.
func TestLeaseExpiredOwnerAlive(t *testing.T) {
	const lease = time.Second
	url := startNATS(t)
	open := func() (*natslog.Log, *nats.Conn) {
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: lease, Memory: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close(); nc.Close() })
		return l, nc
	}
	owner, ncOwner := open()
	watcher, _ := open()
	ctx := context.Background()
	w, err := owner.Start(ctx, runlog.Info{ThreadID: "t", RunID: "slow-owner", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append([]byte(`{"n":1}`), false); err != nil {
		t.Fatal(err)
	}
	natslog.StopRenewals(w)
	// Four leases unrenewed, a sweep every quarter lease on both logs.
	time.Sleep(4 * lease)
	info, err := watcher.Info(ctx, "slow-owner")
	if err != nil {
		t.Fatal(err)
	}
	if info.Ended {
		got, _ := read(t, watcher, "slow-owner", 0)
		t.Fatalf("the run of a live owner ended: %s", got[len(got)-1].Data)
	}
	ncOwner.Close() // the owner is gone
	defer w.Close()
	got, err := read(t, watcher, "slow-owner", 0)
	if err != nil {
		t.Fatalf("reading the run: %v", err)
	}
	if end := got[len(got)-1]; !end.Terminal || !strings.Contains(string(end.Data), "RUN_LOST") {
		t.Fatalf("the run ends %s", end.Data)
	}
}
