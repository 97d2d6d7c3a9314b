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

// Busy streams that follow each other hand their batches to the writer
// goroutines the earlier ones left waiting, instead of starting a new one
// each time; the waiting writers end once their wait is over.
//
// Whether a writer is still waiting when the next stream has a batch
// depends on the machine as much as on the code: with the 20ms wait
// (writerLinger), a loaded machine that pauses the test between two runs
// for longer sees every writer gone. The test lengthens the wait to judge
// the reuse on the logic: a quarter of a second, and, if the goroutines
// counted say the writers were not reused, again at 1s and at 4s, where
// only a broken handoff still starts a writer per batch.
func TestBusyStreamsReuseWriters(t *testing.T) {
	lingers := []time.Duration{250 * time.Millisecond, time.Second, 4 * time.Second}
	for i, linger := range lingers {
		perRun := busyGoroutinesPerRun(t, linger)
		// A request on a kept-alive connection starts a goroutine or two
		// in net/http, and every batch a run hands off starts one when no
		// writer waits: about eight a run here. Reused, about one a run
		// (up to two under -race).
		t.Logf("%.2f goroutines started per 100 KiB run with writers waiting up to %v", perRun, linger)
		if perRun < 4 {
			return
		}
		if i == len(lingers)-1 {
			t.Fatalf("%.2f goroutines started per run, with writers waiting up to %v for the next batch: the writers are not reused", perRun, linger)
		}
		t.Logf("the writers were not reused; a pause of the machine may have outlasted their wait: trying again with %v", lingers[i+1])
	}
}

// busyGoroutinesPerRun sets the writers' wait to linger, counts the
// goroutines started per busy run, checks that the writers left waiting end
// once their wait is over, and puts the wait back.
func busyGoroutinesPerRun(t *testing.T, linger time.Duration) float64 {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	old, err := server.SetWriterLinger(linger, giveUp)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := server.SetWriterLinger(old, linger+giveUp); err != nil {
			t.Fatal(err)
		}
	}()
	delta := strings.Repeat("x", 100)
	h := server.NewHandler(server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for range 1000 {
			if err := m.Append(delta); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), m.End()
	}),
		// No flush timer fires when a loaded machine pauses the agent
		// mid-batch (each fire is a goroutine of its own, not a writer):
		// only full batches and the terminal event are written.
		server.WithFlushLatency(time.Hour))
	srv := httptest.NewServer(h)
	hc := srv.Client()
	busyRun(t, hc, srv.URL) // connections, pools, the first writers

	const runs = 20
	before := goroutinesCreated(t)
	for range runs {
		busyRun(t, hc, srv.URL)
	}
	perRun := float64(goroutinesCreated(t)-before) / runs

	// Once the streams stop, the waiting writers end: every goroutine the
	// test started is gone once their wait is over.
	hc.CloseIdleConnections()
	srv.Close()
	settle(t, linger, ignore)
	return perRun
}
