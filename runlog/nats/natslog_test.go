package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"go.uber.org/goleak"

	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// mainCleanups run once every test is done (the fault suite's nats-server
// binary is removed so).
var mainCleanups []func()

// replicaMain, set by the fault suite, makes the test binary a replica
// process when AGUI_FAULTS_REPLICA names a NATS server.
var replicaMain func(natsURL string)

func TestMain(m *testing.M) {
	if url := os.Getenv("AGUI_FAULTS_REPLICA"); url != "" && replicaMain != nil {
		replicaMain(url)
		return
	}
	// Handlers log through slog.Default unless a test gives them a logger;
	// the outages the tests cause on purpose are not worth a line of the
	// suite's output.
	slog.SetDefault(slog.New(slog.DiscardHandler))
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		for _, f := range mainCleanups {
			f()
		}
		os.Exit(code)
	}))
}

// startNATS runs a real nats-server with JetStream in this process.
func startNATS(t testing.TB) string { return startNATSLimits(t, natsserver.JSLimitOpts{}) }

// startNATSLimits is startNATS with JetStream limits other than the
// defaults.
func startNATSLimits(t testing.TB, limits natsserver.JSLimitOpts) string {
	t.Helper()
	s, err := natsserver.NewServer(&natsserver.Options{
		Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
		JetStreamLimits: limits,
	})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s.ClientURL()
}

// newLog connects to url and opens the log, its appends one at a time
// (Window -1: newWindowLog pipelines them); both close with the test.
func newLog(t testing.TB, url string, lease time.Duration) (*natslog.Log, *nats.Conn) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: lease, Memory: true, Window: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); nc.Close() })
	return l, nc
}

func read(t *testing.T, l runlog.Log, runID string, after uint64) ([]runlog.Entry, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	var out []runlog.Entry
	for e, err := range l.Read(ctx, runID, after) {
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

func TestAppendReadResumeCancel(t *testing.T) {
	l, _ := newLog(t, startNATS(t), steadyLease)
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "run/1", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "run/1", Owner: "b"}); !errors.Is(err, runlog.ErrExists) {
		t.Fatalf("second start: %v", err)
	}
	buf := make([]byte, 0, 16)
	for i := range 5 {
		buf = fmt.Appendf(buf[:0], `{"n":%d}`, i)
		seq, err := w.Append(buf, false)
		if err != nil || seq != uint64(i+1) {
			t.Fatalf("append %d: %d %v", i, seq, err)
		}
	}
	if err := l.Cancel(ctx, "run/1", "stop"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Cancelled():
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("the owner did not see the cancel")
	}
	if w.CancelReason() != "stop" {
		t.Fatalf("reason %q", w.CancelReason())
	}
	if _, err := w.Append([]byte(`{"end":true}`), true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append([]byte(`{}`), false); !errors.Is(err, runlog.ErrEnded) {
		t.Fatalf("append after the end: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	all, err := read(t, l, "run/1", 0)
	if err != nil || len(all) != 6 || !all[5].Terminal || string(all[2].Data) != `{"n":2}` {
		t.Fatalf("read: %v %+v", err, all)
	}
	tail, err := read(t, l, "run/1", 4)
	if err != nil || len(tail) != 2 || tail[0].Seq != 5 {
		t.Fatalf("resume: %v %+v", err, tail)
	}
	if _, err := read(t, l, "run/1", 7); !errors.Is(err, runlog.ErrFuture) {
		t.Fatalf("future cursor: %v", err)
	}
	if err := l.Cancel(ctx, "run/1", "late"); !errors.Is(err, runlog.ErrEnded) {
		t.Fatalf("cancel after the end: %v", err)
	}
	if _, err := l.Info(ctx, "nope"); !errors.Is(err, runlog.ErrNotFound) {
		t.Fatalf("unknown run: %v", err)
	}
	info, err := l.Info(ctx, "run/1")
	if err != nil || !info.Ended || info.Last != 6 || info.ThreadID != "t" {
		t.Fatalf("info %+v %v", info, err)
	}
}

// A reader that attaches mid-run follows it live to the end.
func TestFollowLive(t *testing.T) {
	url := startNATS(t)
	a, _ := newLog(t, url, steadyLease)
	b, _ := newLog(t, url, steadyLease)
	w, err := a.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, _ = w.Append([]byte("0"), false)
	got := make(chan []runlog.Entry)
	go func() {
		all, _ := read(t, b, "r", 0)
		got <- all
	}()
	for i := 1; i < 50; i++ {
		if _, err := w.Append(fmt.Appendf(nil, "%d", i), i == 49); err != nil {
			t.Error(err)
		}
	}
	all := <-got
	if len(all) != 50 {
		t.Fatalf("%d entries", len(all))
	}
	for i, e := range all {
		if e.Seq != uint64(i+1) || string(e.Data) != fmt.Sprint(i) {
			t.Fatalf("entry %d: %+v", i, e)
		}
	}
}

// An owner that stops renewing its lease gets its run ended by another
// replica with one RUN_LOST; the owner's late append then fails. An owner
// whose lease lapsed before it died (its renewals not scheduled in time on a
// loaded machine) is tried again with a longer lease.
func TestLostOwner(t *testing.T) {
	scaled(t, func(t *testing.T, k time.Duration) string {
		url := startNATS(t)
		lease := 300 * time.Millisecond * k
		a, ncA := newLog(t, url, lease)
		b, _ := newLog(t, url, lease)
		w, err := a.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: "r", Owner: "replica-a"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := w.Append([]byte(`{"type":"RUN_STARTED"}`), false); errors.Is(err, runlog.ErrLeaseLost) {
			return "the run was lost before its owner died"
		} else if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		ncA.Close() // replica A is gone: no renewals, no appends
		all, err := read(t, b, "r", 0)
		took := time.Since(t0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("declared lost after %v (lease %v)", took, lease)
		last := all[len(all)-1]
		if len(all) != 2 || !last.Terminal || !strings.Contains(string(last.Data), `"code":"RUN_LOST"`) {
			t.Fatalf("log %+v", all)
		}
		if _, err := w.Append([]byte(`{"late":true}`), false); err == nil {
			t.Fatal("the owner's late append succeeded")
		}
		return ""
	})
}
