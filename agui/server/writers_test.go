package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime/metrics"
	"strings"
	"testing"

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
// each time; the waiting writers end soon after the streams stop.
func TestBusyStreamsReuseWriters(t *testing.T) {
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
	}))
	srv := httptest.NewServer(h)
	hc := srv.Client()
	busyRun(t, hc, srv.URL) // connections, pools, the first writers

	const runs = 20
	before := goroutinesCreated(t)
	for range runs {
		busyRun(t, hc, srv.URL)
	}
	perRun := float64(goroutinesCreated(t)-before) / runs
	// A request on a kept-alive connection starts a goroutine or two in
	// net/http, and every batch a run hands off starts one when no writer
	// waits: about eight a run here. Reused, about one a run (up to two
	// under -race), and more only when a pause on a loaded machine
	// outlasted the writers' wait.
	t.Logf("%.2f goroutines started per 100 KiB run", perRun)
	if perRun >= 4 {
		t.Errorf("%.2f goroutines started per run: the writers are not reused", perRun)
	}

	// Once the streams stop, the waiting writers end: goleak waits for
	// every goroutine but the test's own to be gone.
	hc.CloseIdleConnections()
	srv.Close()
	goleak.VerifyNone(t)
}
