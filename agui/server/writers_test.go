package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// goroutinesCreated is the runtime's count of goroutines started so far.
func goroutinesCreated(t *testing.T) uint64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Skip("this runtime does not count the goroutines it creates")
	}
	return s[0].Value.Uint64()
}

// busyRun posts a run with hc and reads it to its terminal event.
func busyRun(t *testing.T, hc *http.Client, url string) {
	t.Helper()
	resp, r := openRun(t, hc, url)
	defer resp.Body.Close()
	evs, err := rest(r)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(evs); n == 0 || evs[n-1].Type() != agui.EventTypeRunFinished {
		t.Fatalf("the run did not finish: %d events", n)
	}
}

// A busy stream is written by one writer goroutine of its own, however
// many batches it writes, and the writer ends once the stream has.
//
// The writer waits up to writerLinger (500µs) for its next batch before it
// ends; a loaded machine that pauses the agent longer than that mid-run
// makes the next batch start a writer again, which is the design, not a
// fault. The test lengthens the wait to judge the logic alone.
func TestBusyStreamKeepsOneWriter(t *testing.T) {
	const linger = 2 * time.Second
	old := server.SetWriterLinger(linger)
	defer server.SetWriterLinger(old)
	ignore := goleak.IgnoreCurrent()
	h := server.NewHandler(sizedDeltaAgent(1000, 0))
	srv := httptest.NewServer(h)
	hc := srv.Client()
	busyRun(t, hc, srv.URL) // connections and pools

	const runs = 20
	before := goroutinesCreated(t)
	for range runs {
		busyRun(t, hc, srv.URL)
	}
	perRun := float64(goroutinesCreated(t)-before) / runs
	// A request on a kept-alive connection starts a goroutine or two in
	// net/http, and the stream one writer: about two or three a run. A
	// writer per batch would be dozens: a 100 KiB run is written in
	// several batches at the least.
	t.Logf("%.2f goroutines started per 100 KiB run", perRun)
	if perRun >= 5 {
		t.Fatalf("%.2f goroutines started per run: the stream starts a writer per batch", perRun)
	}
	hc.CloseIdleConnections()
	srv.Close()
	settle(t, linger+giveUp, ignore) // the writers end once their wait is over
}

// A stream paced slower than writerLinger is written by the goroutine that
// emits: no writer goroutine starts, and no wake-up stands between an emit
// and the socket. The goroutines a paced run starts are those of a run that
// emits nothing but its first and last events.
func TestPacedStreamWritesOnTheEmittingGoroutine(t *testing.T) {
	count := func(agent server.Agent[server.NoState]) uint64 {
		srv := httptest.NewServer(server.NewHandler(agent))
		defer srv.Close()
		hc := srv.Client()
		busyRun(t, hc, srv.URL) // connections and pools
		before := goroutinesCreated(t)
		busyRun(t, hc, srv.URL)
		return goroutinesCreated(t) - before
	}
	empty := count(sizedDeltaAgent(0, 0))
	paced := count(sizedDeltaAgent(20, 2*time.Millisecond))
	t.Logf("goroutines started: %d by a run of 20 paced deltas, %d by an empty run", paced, empty)
	if paced > empty+1 {
		t.Fatalf("a run of 20 deltas 2ms apart started %d goroutines, an empty run %d: paced deltas are handed to a writer", paced, empty)
	}
}

// sizedDeltaAgent streams one text message of n deltas of 100 bytes, pause
// apart.
func sizedDeltaAgent(n int, pause time.Duration) server.Agent[server.NoState] {
	delta := strings.Repeat("x", 100)
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for range n {
			if pause > 0 {
				time.Sleep(pause)
			}
			if err := m.Append(delta); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), m.End()
	})
}
