package natslog_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// syncBuffer is a log destination that handlers of several goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A connection made with Connect outlives an outage: while nats-server is
// down it keeps trying (nats.go's default would close it for good after its
// budget of tries), says so in the log, and once the server is back on the
// same address the log serves again through it.
func TestConnectReconnectsAfterAnOutage(t *testing.T) {
	dir := t.TempDir()
	opts := &natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true}
	s := runNATS(t, opts)
	opts.Port = s.Addr().(*net.TCPAddr).Port // the same address after the restart
	var logs syncBuffer
	nc, err := natslog.Connect(s.ClientURL(), slog.New(slog.NewTextHandler(&logs, nil)),
		nats.ReconnectWait(10*time.Millisecond), nats.ReconnectJitter(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	s.Shutdown()
	s.WaitForShutdown()
	// At a try every 10ms, nats.go's default budget of 60 tries is spent
	// within a second (a refused dial on loopback fails at once); the
	// connection must still be reconnecting after several times that.
	waitUntil(t, func() bool { return nc.Status() == nats.RECONNECTING })
	time.Sleep(3 * time.Second)
	if st := nc.Status(); st != nats.RECONNECTING {
		t.Fatalf("during the outage the connection is %v, want RECONNECTING", st)
	}

	runNATS(t, opts)
	waitUntil(t, nc.IsConnected)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := startWhenReady(ctx, l)
	if err != nil {
		t.Fatalf("after the outage: %v", err)
	}
	if _, err := w.Append([]byte(`{}`), true); err != nil {
		t.Fatal(err)
	}
	w.Close()
	out := logs.String()
	for _, want := range []string{"disconnected from NATS", "reconnected to NATS"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log does not say %q:\n%s", want, out)
		}
	}
}

// runNATS starts nats-server with opts in this process.
func runNATS(t *testing.T, opts *natsserver.Options) *natsserver.Server {
	t.Helper()
	s, err := natsserver.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(20 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// startWhenReady starts a run, trying again while JetStream, just back,
// is not ready to answer yet.
func startWhenReady(ctx context.Context, l runlog.Log) (runlog.Writer, error) {
	for {
		w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "after", Owner: "a"})
		if err == nil || ctx.Err() != nil {
			return w, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitUntil waits for cond, failing the test after a generous bound (a hang
// guard, not a measure of speed).
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("gave up waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
