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
	r := newRestartable(t)
	nc := r.nc
	l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: 5 * time.Second, Window: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	r.stop()
	// At a try every 10ms, nats.go's default budget of 60 tries is spent
	// within a second (a refused dial on loopback fails at once); the
	// connection must still be reconnecting after several times that.
	waitUntil(t, func() bool { return nc.Status() == nats.RECONNECTING })
	time.Sleep(3 * time.Second)
	if st := nc.Status(); st != nats.RECONNECTING {
		t.Fatalf("during the outage the connection is %v, want RECONNECTING", st)
	}

	r.start()
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
	out := r.logs.String()
	for _, want := range []string{"disconnected from NATS", "reconnected to NATS"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log does not say %q:\n%s", want, out)
		}
	}
}

// restartable is a nats-server in this process that a test stops and
// starts again on the same address and store, and a connection to it made
// with Connect that tries again every 10ms (closed with the test), logging
// to logs.
type restartable struct {
	t    *testing.T
	opts *natsserver.Options
	s    *natsserver.Server
	nc   *nats.Conn
	logs syncBuffer
}

func newRestartable(t *testing.T) *restartable {
	t.Helper()
	r := &restartable{t: t, opts: &natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}}
	r.s = runNATS(t, r.opts)
	r.opts.Port = r.s.Addr().(*net.TCPAddr).Port // the same address after a restart
	nc, err := natslog.Connect(r.s.ClientURL(), slog.New(slog.NewTextHandler(&r.logs, nil)),
		nats.ReconnectWait(10*time.Millisecond), nats.ReconnectJitter(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	r.nc = nc
	return r
}

// stop shuts the server down; start runs it again.
func (r *restartable) stop() {
	r.s.Shutdown()
	r.s.WaitForShutdown()
}

func (r *restartable) start() { r.s = runNATS(r.t, r.opts) }

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
