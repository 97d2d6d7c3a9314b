package natslog_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// An outage longer than MaxOutage: the owner's Append fails with
// ErrUnavailable once MaxOutage is over, and Close returns at once; once
// NATS is back, the owner itself ends the run with RUN_LOG_UNAVAILABLE (not
// a lease story: the owner was alive all along), numbered after the last
// event, and a read then gets the whole log and that end. The append given
// up on sat in nats.go's reconnect buffer and lands when the connection is
// back, numbered as the end would have been: the end goes after it (it
// once took that append for its own end, and the run never ended).
func TestOutageLongerThanMaxOutage(t *testing.T) {
	opts := &natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	s := runNATS(t, opts)
	opts.Port = s.Addr().(*net.TCPAddr).Port
	var logs syncBuffer
	nc, err := natslog.Connect(s.ClientURL(), slog.New(slog.NewTextHandler(&logs, nil)),
		nats.ReconnectWait(10*time.Millisecond), nats.ReconnectJitter(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	const maxOutage = time.Second
	l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: time.Second, MaxOutage: maxOutage})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := w.Append([]byte(`{"type":"X"}`), false); err != nil {
			t.Fatal(err)
		}
	}
	s.Shutdown()
	s.WaitForShutdown()
	waitUntil(t, func() bool { return nc.Status() == nats.RECONNECTING })
	t0 := time.Now()
	_, err = w.Append([]byte(`{"type":"X"}`), false)
	if !errors.Is(err, runlog.ErrUnavailable) {
		t.Fatalf("an append through an outage: %v, want ErrUnavailable", err)
	}
	if took := time.Since(t0); took < maxOutage {
		t.Fatalf("the append gave up after %v, before MaxOutage %v", took, maxOutage)
	}
	closed := make(chan struct{})
	go func() { w.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("Close waits for the log")
	}
	time.Sleep(3 * maxOutage) // the outage goes on
	runNATS(t, opts)
	waitUntil(t, nc.IsConnected)
	var all []runlog.Entry
	waitUntil(t, func() bool {
		info, err := l.Info(context.Background(), "r")
		return err == nil && info.Ended
	})
	all, err = read(t, l, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	last := all[len(all)-1]
	if n := len(all); !last.Terminal || last.Seq != uint64(n) || !strings.Contains(string(last.Data), `"code":"RUN_LOG_UNAVAILABLE"`) {
		t.Fatalf("%d entries, the last %d %s", n, last.Seq, last.Data)
	}
	if n := len(all); n != 5 || all[3].Terminal || string(all[3].Data) != `{"type":"X"}` {
		t.Fatalf("%d entries, want the three, the one given up on and the end", n)
	}
}
