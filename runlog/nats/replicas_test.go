package natslog_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/verify"
	"github.com/agui-go/sdk/internal/stall"
	"github.com/agui-go/sdk/internal/tcpcut"
	"github.com/agui-go/sdk/internal/testlog"
)

// frame is one SSE frame: its id and its data.
type frame struct{ id, data string }

func readSSE(t testing.TB, r io.Reader, max int) []frame {
	t.Helper()
	var out []frame
	var cur frame
	sc := bufio.NewScanner(r)
	for (max < 0 || len(out) < max) && sc.Scan() {
		switch line := sc.Text(); {
		case line == "":
			if cur.data != "" {
				out = append(out, cur)
			}
			cur = frame{}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		}
	}
	return out
}

// gatedAgent streams n deltas; after delta pause it waits for gate.
func gatedAgent(n, pause int, gate <-chan struct{}) server.Agent[server.NoState] {
	return deltaAgent(n, func(ctx context.Context, i int) error {
		if i == pause && gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
}

// pacedAgent streams n deltas, one every pace.
func pacedAgent(n int, pace time.Duration) server.Agent[server.NoState] {
	return deltaAgent(n, func(ctx context.Context, _ int) error {
		select {
		case <-time.After(pace):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// deltaAgent streams n deltas of one text message, calling after once
// each delta is emitted (its error ends the run).
func deltaAgent(n int, after func(ctx context.Context, i int) error) server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage(server.WithID("m"))
		if err != nil {
			return server.Outcome{}, err
		}
		for i := range n {
			if err := m.Append(fmt.Sprintf("d%d ", i)); err != nil {
				return server.Outcome{}, err
			}
			if err := after(ctx, i); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), m.End()
	})
}

// replica is one handler on the shared NATS server.
type replica struct {
	url   string
	srv   *httptest.Server
	reads atomic.Int32 // requests to the run routes
}

func newReplica(t *testing.T, natsURL, name string, lease time.Duration, agent server.Agent[server.NoState]) *replica {
	t.Helper()
	l, _ := newLog(t, natsURL, lease)
	return serveReplica(t, l, name, agent)
}

// serveReplica serves agent with durable runs on l (detach grace: a
// minute), counting the requests to the run routes.
func serveReplica(t *testing.T, l runlog.Log, name string, agent server.Agent[server.NoState]) *replica {
	t.Helper()
	return serveReplicaGrace(t, l, name, agent, time.Minute)
}

// serveReplicaGrace is serveReplica with a detach grace of its own (0: no
// Detach).
func serveReplicaGrace(t *testing.T, l runlog.Log, name string, agent server.Agent[server.NoState], grace time.Duration) *replica {
	t.Helper()
	h := server.NewHandler(agent, server.WithDurableRuns(server.DurableConfig{Log: l, Authorize: server.AllowAll, Detach: grace, Replica: name}), server.WithLogger(testlog.New(t)))
	r := &replica{}
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.Contains(req.URL.Path, "/runs/") {
			r.reads.Add(1)
		}
		h.ServeHTTP(w, req)
	}))
	r.srv = httptest.NewServer(mux)
	r.url = r.srv.URL
	t.Cleanup(r.srv.Close)
	return r
}

func (r *replica) post(t testing.TB, thread, run string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.url+"/agent",
		// Declaring the current version, as the Go client does, so that a
		// run posted here and one the client starts are the same stream.
		strings.NewReader(fmt.Sprintf(`{"threadId":%q,"runId":%q,"protocolVersion":%q,"messages":[]}`, thread, run, agui.ProtocolVersion)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (r *replica) events(t testing.TB, run, lastID string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, r.url+"/agent/runs/"+run+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET events: %d %s", resp.StatusCode, data)
	}
	return resp
}

// checkWhole checks a reassembled stream: ids 1…n in order, the server
// verifier accepts it, and it equals want when want is given.
func checkWhole(t testing.TB, frames []frame, want []string) error {
	docs := make([][]byte, len(frames))
	for i, f := range frames {
		if f.id != strconv.Itoa(i+1) {
			return fmt.Errorf("frame %d has id %q", i, f.id)
		}
		docs[i] = []byte(f.data)
		if want != nil && (i >= len(want) || want[i] != f.data) {
			return fmt.Errorf("frame %d differs: %s", i, f.data)
		}
	}
	if want != nil && len(frames) != len(want) {
		return fmt.Errorf("%d frames, want %d", len(frames), len(want))
	}
	if rep := verify.Check(verify.ServerProfile, docs); !rep.OK() {
		return fmt.Errorf("the verifier rejects it at %d: %v", rep.Index, rep.Err)
	}
	return nil
}

// uncut is the stream of an uncut run of the agent, without durable runs.
func uncut(t *testing.T, agent server.Agent[server.NoState], thread, run string) []string {
	srv := httptest.NewServer(server.NewHandler(agent))
	defer srv.Close()
	r := &replica{url: srv.URL}
	resp := r.post(t, thread, run)
	defer resp.Body.Close()
	var out []string
	for _, f := range readSSE(t, resp.Body, -1) {
		out = append(out, f.data)
	}
	return out
}

// Start on A through a proxy that resets the TCP connection mid-run (the
// run waits at a gate meanwhile, so the cut is in its middle), then reattach
// on B with Last-Event-ID: B serves exactly the missing events, following
// the run live, and the halves make the uncut run.
func TestReattachOnOtherReplica(t *testing.T) {
	natsURL := startNATS(t)
	gate := make(chan struct{})
	agent := gatedAgent(40, 9, gate)
	a := newReplica(t, natsURL, "a", steadyLease, agent)
	b := newReplica(t, natsURL, "b", steadyLease, agent)
	// The response up to the gate is about 1 KiB: the cut falls before it.
	proxy := tcpcut.New(t, 600, a.srv.Listener.Addr().String())
	resp := (&replica{url: proxy.URL()}).post(t, "t", "r1")
	head := readSSE(t, resp.Body, -1) // until the reset
	resp.Body.Close()
	if proxy.Cuts() != 1 || len(head) == 0 || len(head) > 11 {
		t.Fatalf("%d cuts, %d events before the cut", proxy.Cuts(), len(head))
	}
	close(gate)
	resp = b.events(t, "r1", head[len(head)-1].id)
	defer resp.Body.Close()
	tail := readSSE(t, resp.Body, -1)
	if err := checkWhole(t, append(head, tail...), uncut(t, gatedAgent(40, -1, nil), "t", "r1")); err != nil {
		t.Fatal(err)
	}
}

// The Go client, cut off from A by a TCP reset, reconnects by itself with
// Last-Event-ID; the proxy sends the new connection to B, which serves the
// rest from the shared log. What the client delivers equals an uncut run.
func TestClientReattachesToOtherReplica(t *testing.T) {
	natsURL := startNATS(t)
	agent := gatedAgent(300, -1, nil)
	a := newReplica(t, natsURL, "a", steadyLease, agent)
	b := newReplica(t, natsURL, "b", steadyLease, agent)
	proxy := tcpcut.New(t, 4<<10, a.srv.Listener.Addr().String(), b.srv.Listener.Addr().String())
	c, err := client.New(proxy.URL() + "/agent")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for d, err := range c.Run(context.Background(), &agui.RunAgentInput{ThreadID: "t", RunID: "r1"}) {
		ev := d.Event
		if err != nil {
			t.Fatal(err)
		}
		data, err := ev.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	if proxy.Cuts() != 1 || b.reads.Load() != 1 || a.reads.Load() != 0 {
		t.Fatalf("%d cuts, %d reattaches to A, %d to B; want 1, 0, 1", proxy.Cuts(), a.reads.Load(), b.reads.Load())
	}
	want := uncut(t, agent, "t", "r1")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the client delivered %d events, an uncut run has %d", len(got), len(want))
	}
}

// A cancel through B reaches the run on A.
func TestCancelThroughOtherReplica(t *testing.T) {
	natsURL := startNATS(t)
	started := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		close(started)
		<-ctx.Done()
		return server.Outcome{}, ctx.Err()
	})
	a := newReplica(t, natsURL, "a", steadyLease, agent)
	b := newReplica(t, natsURL, "b", steadyLease, agent)
	resp := a.post(t, "t", "r1")
	defer resp.Body.Close()
	<-started
	t0 := time.Now()
	stalled := stall.Probe()
	c, err := http.Post(b.url+"/agent/runs/r1/cancel", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Body.Close()
	if c.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %d", c.StatusCode)
	}
	frames := readSSE(t, resp.Body, -1)
	took, stall := time.Since(t0), stalled()
	t.Logf("cancel through B to the terminal event on A: %v, of which the process was stalled %v", took, stall)
	// The bound issue 12 sets, on the time the process could run: a
	// loaded machine's stalls are not the cancel's latency, while a cancel
	// that waits for something (a lease renewal, a poll) waits idle and
	// still fails.
	if took-stall > 100*time.Millisecond {
		t.Errorf("took %v, %v of it not stalled", took, took-stall)
	}
	last := frames[len(frames)-1].data
	if !strings.Contains(last, `"outcome":{"type":"cancelled"}`) {
		t.Fatalf("last event %s", last)
	}
	if err := checkWhole(t, frames, nil); err != nil {
		t.Fatal(err)
	}
}

// A dies mid-run: B's reader gets RUN_LOST within the lease time (three
// leases, to leave room for the lease watch's period and the read). A B
// slower than that on a loaded machine is tried again with longer leases.
func TestOwnerDiesMidRun(t *testing.T) {
	scaled(t, func(t *testing.T, k time.Duration) string {
		natsURL := startNATS(t)
		lease := 300 * time.Millisecond * k
		gate := make(chan struct{})
		defer close(gate) // lets A's agent return (its emits fail) so nothing leaks
		agent := gatedAgent(10, 2, gate)
		la, ncA := newLog(t, natsURL, lease)
		ha := server.NewHandler(agent, server.WithDurableRuns(server.DurableConfig{Log: la, Authorize: server.AllowAll, Detach: time.Minute}), server.WithLogger(testlog.New(t)))
		muxA := http.NewServeMux()
		muxA.Handle("/agent", ha)
		srvA := httptest.NewServer(muxA)
		defer srvA.Close()
		a := &replica{url: srvA.URL}
		b := newReplica(t, natsURL, "b", lease, agent)

		resp := a.post(t, "t", "r1")
		head := readSSE(t, resp.Body, 3)
		resp.Body.Close()
		t0 := time.Now()
		srvA.CloseClientConnections()
		ncA.Close() // A is gone from NATS: no renewals, no appends
		resp = b.events(t, "r1", head[len(head)-1].id)
		defer resp.Body.Close()
		tail := readSSE(t, resp.Body, -1)
		took := time.Since(t0)
		t.Logf("B ended the run as lost %v after A died (lease %v)", took, lease)
		whole := append(head, tail...)
		last := whole[len(whole)-1].data
		if !strings.Contains(last, `"code":"RUN_LOST"`) {
			t.Fatalf("last event %s", last)
		}
		for i, f := range whole {
			if f.id != strconv.Itoa(i+1) {
				t.Fatalf("frame %d id %q", i, f.id)
			}
		}
		if took > 3*lease {
			return fmt.Sprintf("B took %v to end the run, over 3 leases of %v", took, lease)
		}
		return ""
	})
}

// 200 runs (40 under the race detector) across both replicas; a fifth of the clients are cut and
// reattach to the other replica. Every stream is whole: no event lost,
// duplicated or reordered.
func TestManyRunsCutAndReattached(t *testing.T) {
	if testing.Short() {
		t.Skip("200 runs")
	}
	natsURL := startNATS(t)
	agent := gatedAgent(20, -1, nil)
	reps := []*replica{
		newReplica(t, natsURL, "a", steadyLease, agent),
		newReplica(t, natsURL, "b", steadyLease, agent),
	}
	const runs = manyRuns
	// Every fifth run goes through a proxy that resets its connection
	// after a few hundred bytes (made here: a helper may fail the test only
	// from the test's goroutine).
	proxies := map[int]*tcpcut.Proxy{}
	for i := 0; i < runs; i += 5 {
		proxies[i] = tcpcut.New(t, int64(200+i%7*80), reps[i%2].srv.Listener.Addr().String())
	}
	errs := make(chan error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := fmt.Sprintf("run-%d", i)
			home, other := reps[i%2], reps[(i+1)%2]
			if p := proxies[i]; p != nil {
				home = &replica{url: p.URL()}
			}
			resp := home.post(t, "thread-"+run, run)
			if resp.StatusCode != http.StatusOK {
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				errs <- fmt.Errorf("%s: POST %d %s", run, resp.StatusCode, data)
				return
			}
			var frames []frame
			if p := proxies[i]; p != nil { // cut by the proxy, reattach elsewhere
				frames = readSSE(t, resp.Body, -1)
				resp.Body.Close()
				if p.Cuts() != 1 {
					errs <- fmt.Errorf("%s: the proxy did not cut the connection", run)
					return
				}
				last := "" // a cut before the first event: read the whole run
				if len(frames) > 0 {
					last = frames[len(frames)-1].id
				}
				r2 := other.events(t, run, last)
				frames = append(frames, readSSE(t, r2.Body, -1)...)
				r2.Body.Close()
			} else {
				frames = readSSE(t, resp.Body, -1)
				resp.Body.Close()
			}
			if err := checkWhole(t, frames, nil); err != nil {
				errs <- fmt.Errorf("%s: %w", run, err)
				return
			}
			if n := len(frames); n != 24 || !strings.Contains(frames[n-1].data, "RUN_FINISHED") {
				errs <- fmt.Errorf("%s: %d frames, last %s", run, n, frames[n-1].data)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkAppend is JetStream append throughput for one run (in process,
// memory storage), as events per second: "sync" is one publish acknowledged
// by the server per event (Options.Window -1); "window=N" queues up to N
// events and publishes them asynchronously (64 is the default). Each iteration
// is one event; the terminal event at the end, whose Append waits until
// everything is in the log, is timed too, so the figure counts only events
// that are in the log.
func BenchmarkAppend(b *testing.B) {
	url := startNATS(b)
	data := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello, wor"}`)
	for _, window := range []int{-1, 16, 64, 256} {
		name := "sync"
		if window > 0 {
			name = fmt.Sprintf("window=%d", window)
		}
		b.Run(name, func(b *testing.B) {
			l, _ := newWindowLog(b, url, window)
			w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: runlog.NewRunID(), Owner: "a"})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for range b.N {
				if _, err := w.Append(data, false); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := w.Append(data, true); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
