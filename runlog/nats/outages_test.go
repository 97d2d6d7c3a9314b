//go:build faults

package natslog_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// The runs of the fault suite: faultEvents deltas, one every faultPace, so
// that a run is well under way when a fault hits and goes on after it.
// faultLease is the replicas' lease: 5s, the default, and three times that
// under the race detector (leaseScale), whose slowdown on a busy machine
// kept an owner from renewing, or from answering the lease watch's ping,
// for seconds after an outage, so that a live run was ended as lost (seen
// under four busy loops: TestFaultOutages, 1s and 3m SIGTERM outages).
const (
	faultEvents = 100
	faultPace   = 50 * time.Millisecond
	faultLease  = 5 * time.Second * leaseScale
)

// stream reads an SSE body to its end in a goroutine: started is closed at
// the first frame (or the end), and frames gives every frame at the end.
type stream struct {
	started chan struct{}
	done    chan []frame
}

func follow(body io.ReadCloser) *stream {
	s := &stream{started: make(chan struct{}), done: make(chan []frame, 1)}
	go func() {
		defer body.Close()
		var out []frame
		var cur frame
		once := sync.OnceFunc(func() { close(s.started) })
		defer once()
		sc := bufio.NewScanner(body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			switch line := sc.Text(); {
			case line == "":
				if cur.data != "" {
					out = append(out, cur)
					once()
				}
				cur = frame{}
			case strings.HasPrefix(line, "id: "):
				cur.id = line[4:]
			case strings.HasPrefix(line, "data: "):
				cur.data = line[6:]
			}
		}
		s.done <- out
	}()
	return s
}

// terminal reports whether an event's JSON is RUN_FINISHED or RUN_ERROR.
func terminal(data string) bool {
	return strings.Contains(data, `"type":"RUN_FINISHED"`) || strings.Contains(data, `"type":"RUN_ERROR"`)
}

// errorCode is a RUN_ERROR's code ("" for another event).
func errorCode(data string) string {
	var ev struct{ Type, Code string }
	_ = json.Unmarshal([]byte(data), &ev)
	if ev.Type != "RUN_ERROR" {
		return ""
	}
	return ev.Code
}

// checkReader checks what one reader got against the run's whole log: the
// log's events from the first on, in order, none twice, and exactly one
// terminal event, last: the log's own, or (no id) RUN_LOG_UNAVAILABLE from a
// replica that gave up following the run.
func checkReader(got, whole []frame) error {
	if len(got) == 0 {
		return fmt.Errorf("no event at all")
	}
	end := got[len(got)-1]
	if !terminal(end.data) {
		return fmt.Errorf("%d events and no terminal one; the last: %s", len(got), end.data)
	}
	body := got[:len(got)-1]
	if end.id != "" {
		body = got
	} else if c := errorCode(end.data); c != "RUN_LOG_UNAVAILABLE" {
		return fmt.Errorf("a terminal event without an id, code %q: %s", c, end.data)
	}
	for i, f := range body {
		if i >= len(whole) || f.id != whole[i].id || f.data != whole[i].data {
			return fmt.Errorf("event %d (id %q) is not the log's: %s", i, f.id, f.data)
		}
		if terminal(f.data) && i != len(got)-1 {
			return fmt.Errorf("a terminal event at %d of %d", i, len(got))
		}
	}
	return nil
}

// wholeLog reads run from its start on r, following it to its end.
func wholeLog(t *testing.T, r *replica, run string) []frame {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Minute} // a hang guard
	var resp *http.Response
	for try := 0; ; try++ {
		req, _ := http.NewRequest(http.MethodGet, r.url+"/agent/runs/"+run+"/events", nil)
		var err error
		if resp, err = c.Do(req); err != nil {
			t.Fatalf("%s: whole log: %v", run, err)
		}
		// A 503 says to try again (a cluster electing a leader, a
		// connection reconnecting), as a client does.
		if resp.StatusCode != http.StatusServiceUnavailable || try == 60 {
			break
		}
		resp.Body.Close()
		time.Sleep(time.Second)
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("%s: whole log: %d %s", run, resp.StatusCode, data)
	}
	return <-follow(resp.Body).done
}

// doRetrying sends the request newReq makes until it is answered with
// something other than 503, waiting Retry-After in between, as a client
// does, for up to a minute: with a thousand runs at once on a busy machine
// a replica may shed a request (the log slow to answer). Any other status
// than 200 is an error with the body's text.
func doRetrying(c *http.Client, shed *atomic.Int64, newReq func() *http.Request) (*http.Response, error) {
	for try := 0; ; try++ {
		resp, err := c.Do(newReq())
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusOK {
			return resp, nil
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || try == 60 {
			return nil, fmt.Errorf("%d %s (after %d tries)", resp.StatusCode, body, try+1)
		}
		shed.Add(1)
		time.Sleep(time.Second)
	}
}

// expect503 checks that a request during an outage gets a clear 503: a
// Retry-After header and a JSON body with a code.
func expect503(t *testing.T, what string, req *http.Request) {
	t.Helper()
	c := &http.Client{Timeout: time.Minute} // a hang guard
	resp, err := c.Do(req)
	if err != nil {
		t.Errorf("%s during the outage: %v", what, err)
		return
	}
	defer resp.Body.Close()
	var body struct {
		Error struct{ Code, Message string }
	}
	data, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(data, &body)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || body.Error.Code == "" {
		t.Errorf("%s during the outage: %d, Retry-After %q, body %s", what, resp.StatusCode, resp.Header.Get("Retry-After"), data)
	}
}

// faultMaxOutage is the replicas' Options.MaxOutage: AGUI_FAULTS_MAX_OUTAGE
// or the default, a minute.
func faultMaxOutage(t *testing.T) time.Duration {
	if s := os.Getenv("AGUI_FAULTS_MAX_OUTAGE"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("AGUI_FAULTS_MAX_OUTAGE: %v", err)
		}
		return d
	}
	return time.Minute
}

// rawRun lists the messages of a run's subject as the stream holds them,
// for a failure's message: stream sequence, Agui-Seq, writer, terminal.
func rawRun(t *testing.T, nc *nats.Conn, run string) string {
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, "AGUI_RUNLOG")
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for seq := uint64(1); ; seq++ {
		m, err := st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(natslog.EventSubject(run)))
		if err != nil {
			fmt.Fprintf(&b, "(end: %v)", err)
			return b.String()
		}
		fmt.Fprintf(&b, "%d: seq %s writer %s terminal %q\n", m.Sequence, m.Header.Get("Agui-Seq"), m.Header.Get("Agui-Writer"), m.Header.Get("Agui-Terminal"))
		seq = m.Sequence
	}
}

// outages are the outage lengths TestFaultOutages tries:
// AGUI_FAULTS_OUTAGES (say "1s,6s") or 1s, 6s, 30s and 180s.
func outages(t *testing.T) []time.Duration {
	s := os.Getenv("AGUI_FAULTS_OUTAGES")
	if s == "" {
		return []time.Duration{time.Second, 6 * time.Second, 30 * time.Second, 180 * time.Second}
	}
	var out []time.Duration
	for f := range strings.SplitSeq(s, ",") {
		d, err := time.ParseDuration(f)
		if err != nil {
			t.Fatalf("AGUI_FAULTS_OUTAGES: %v", err)
		}
		out = append(out, d)
	}
	return out
}

// nats-server stopped mid-run (SIGTERM: it shuts down; SIGKILL: it is
// killed) and started again after an outage, while runs stream on two
// replicas, each run read by the client that started it and by a reader on
// the other replica. Every reader gets the log's events in order, once,
// and exactly one terminal event; a run outlives an outage shorter than
// MaxOutage (1 minute) whole, and one longer ends, in the log and for every
// reader, with RUN_LOG_UNAVAILABLE. Requests during the outage get 503
// with Retry-After; both replicas log that they reconnected.
func TestFaultOutages(t *testing.T) {
	t.Parallel() // every fault test at once: the outages are mostly waiting
	for _, window := range writers {
		for _, d := range outages(t) {
			for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
				name := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL"}[sig]
				t.Run(fmt.Sprintf("window=%d/%v/%s", window, d, name), func(t *testing.T) {
					t.Parallel()
					testOutage(t, window, d, sig)
				})
			}
		}
	}
}

// writers are the Options.Window of the fault tests: AGUI_FAULTS_WINDOW
// (say "-1", or "0,-1"), by default 0, the default window (pipelined); -1
// appends one at a time. CI runs the suite once for each writer rather
// than both at once: the two together kept two cores so busy under -race
// that lease renewals took longer than the 5-second lease.
var writers = func() []int {
	var w []int
	for f := range strings.SplitSeq(os.Getenv("AGUI_FAULTS_WINDOW"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			w = append(w, n)
		}
	}
	if len(w) == 0 {
		w = []int{0}
	}
	return w
}()

// logStacks is the stacks of the goroutines of this package (the runs'
// writers, readers and lease watches), for a failure that shows a run
// nobody ends.
func logStacks() string {
	buf := make([]byte, 16<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "sdk/runlog/nats.(") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

func testOutage(t *testing.T, window int, outage time.Duration, sig syscall.Signal) {
	// Every write synced: a single server killed with SIGKILL otherwise
	// loses the writes of its last moments, acknowledged or not (see
	// TestFaultKilledServerLosesAcknowledgedEvents for what a run does
	// then).
	p := newNATSProc(t, "n1", freePort(t), "sync_interval: always")
	var logsA, logsB syncBuffer
	agent := pacedAgent(faultEvents, faultPace)
	maxOutage := faultMaxOutage(t)
	ncA := connectLogged(t, p.url(), &logsA)
	a := serveReplica(t, openLog(t, ncA, natslog.Options{Lease: faultLease, Window: window, MaxOutage: maxOutage}), "a", agent)
	b := serveReplica(t, openLog(t, connectLogged(t, p.url(), &logsB), natslog.Options{Lease: faultLease, Window: window, MaxOutage: maxOutage}), "b", agent)
	reps := []*replica{a, b}

	const runs = 4
	type reader struct {
		name string
		s    *stream
	}
	var readers []reader
	for i := range runs {
		run := fmt.Sprintf("run-%d", i)
		home, other := reps[i%2], reps[(i+1)%2]
		resp := home.post(t, "t-"+run, run)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: POST %d", run, resp.StatusCode)
		}
		s := follow(resp.Body)
		<-s.started
		readers = append(readers, reader{run + " (its POST)", s})
		readers = append(readers, reader{run + " (a reader on the other replica)", follow(other.events(t, run, "").Body)})
	}
	time.Sleep(10 * faultPace) // well under way
	p.stop(sig)
	down := time.Now()
	t.Logf("nats-server stopped (%s)", sig)
	var probes sync.WaitGroup
	if outage >= 6*time.Second {
		// While the server is down (each waits out the log's 5s request
		// timeout at most, and both at once).
		post, _ := http.NewRequest(http.MethodPost, a.url+"/agent",
			strings.NewReader(`{"threadId":"t-new","runId":"run-new","messages":[]}`))
		post.Header.Set("Content-Type", "application/json")
		get, _ := http.NewRequest(http.MethodGet, b.url+"/agent/runs/run-0/events", nil)
		probes.Go(func() { expect503(t, "a POST", post) })
		probes.Go(func() { expect503(t, "a GET of a run's events", get) })
	}
	time.Sleep(outage - time.Since(down))
	probes.Wait()
	p.start()
	t.Logf("nats-server back after %v", time.Since(down).Round(time.Millisecond))

	want := uncut(t, agent, "t", "r")
	for i := range runs {
		run := fmt.Sprintf("run-%d", i)
		whole := wholeLog(t, b, run)
		if err := checkWhole(t, whole, nil); err != nil {
			t.Errorf("%s: the log: %v\n%s\nthe log's goroutines:\n%s", run, err, rawRun(t, ncA, run), logStacks())
			continue
		}
		end := whole[len(whole)-1].data
		if outage < maxOutage {
			if len(whole) != len(want) || !strings.Contains(end, "RUN_FINISHED") {
				t.Errorf("%s: the log has %d events, ending %s; the uncut run has %d", run, len(whole), end, len(want))
			}
		} else if errorCode(end) != "RUN_LOG_UNAVAILABLE" && (len(whole) != len(want) || !strings.Contains(end, "RUN_FINISHED")) {
			// Stopped by the outage, or done before it: a pipelined run
			// runs ahead of its log, and on a busy machine one that began
			// seconds before the last had all its events in when the
			// server went.
			t.Errorf("%s: after an outage of %v the log has %d events, ending %s", run, outage, len(whole), end)
		}
		for _, r := range readers[2*i : 2*i+2] {
			var got []frame
			select {
			case got = <-r.s.done:
			case <-time.After(5 * time.Minute):
				t.Fatalf("%s: still reading five minutes after the outage", r.name)
			}
			if err := checkReader(got, whole); err != nil {
				t.Errorf("%s: %v", r.name, err)
			}
		}
	}
	for name, logs := range map[string]*syncBuffer{"a": &logsA, "b": &logsB} {
		if !strings.Contains(logs.String(), "reconnected to NATS") {
			t.Errorf("replica %s did not log its reconnection:\n%s", name, logs.String())
		}
	}
}

// A single nats-server with its default syncing (every two minutes) killed
// mid-run: it may come back without writes it acknowledged, or not (the
// kill races its writer; TestLogThatLostAcknowledgedEvents makes the loss
// certain). Either way the reader gets one terminal event, last, and the
// log is numbered without a gap up to its end, which is numbered past
// every event the reader may have seen.
func TestFaultServerKilledUnsynced(t *testing.T) {
	t.Parallel()
	p := newNATSProc(t, "n1", freePort(t), "")
	var logs syncBuffer
	agent := pacedAgent(faultEvents, 5*time.Millisecond)
	a := serveReplica(t, openLog(t, connectLogged(t, p.url(), &logs), natslog.Options{Lease: faultLease}), "a", agent)
	resp := a.post(t, "t", "run")
	s := follow(resp.Body)
	<-s.started
	time.Sleep(50 * time.Millisecond)
	p.stop(syscall.SIGKILL)
	time.Sleep(time.Second)
	p.start()
	got := <-s.done
	whole := wholeLog(t, a, "run")
	end := whole[len(whole)-1]
	t.Logf("the reader got %d events, the log kept %d, ending %s", len(got), len(whole), end.data)
	if !terminal(got[len(got)-1].data) || !terminal(end.data) {
		t.Fatalf("no terminal event: the reader's last %s, the log's last %s", got[len(got)-1].data, end.data)
	}
	for i, f := range whole[:len(whole)-1] {
		if f.id != strconv.Itoa(i+1) {
			t.Fatalf("the log's event %d has id %q", i, f.id)
		}
	}
	if n, _ := strconv.Atoi(end.id); n < len(whole) {
		t.Fatalf("the log's end has id %q after %d events", end.id, len(whole)-1)
	}
}

// A 3-node JetStream cluster (three nats-server processes) holding the log
// with three replicas loses the node that leads the stream (SIGKILL)
// mid-run: every run still ends whole, with RUN_FINISHED, for every reader.
func TestFaultClusterNodeKilled(t *testing.T) {
	t.Parallel()
	for _, window := range writers {
		t.Run(fmt.Sprint("window=", window), func(t *testing.T) {
			t.Parallel()
			testClusterNodeKilled(t, window)
		})
	}
}

func testClusterNodeKilled(t *testing.T, window int) {
	ports := []int{freePort(t), freePort(t), freePort(t)}
	cports := []int{freePort(t), freePort(t), freePort(t)}
	var routes []string
	for _, cp := range cports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", cp))
	}
	procs := map[string]*natsProc{}
	var urls []string
	for i := range 3 {
		name := fmt.Sprintf("n%d", i+1)
		procs[name] = newNATSProc(t, name, ports[i], "", "--cluster_name", "agui", "--cluster", routes[i], "--routes", strings.Join(routes, ","))
		urls = append(urls, procs[name].url())
	}
	var logsA, logsB syncBuffer
	ncA := connectLogged(t, urls[0]+","+urls[1]+","+urls[2], &logsA)
	ncB := connectLogged(t, urls[1]+","+urls[2]+","+urls[0], &logsB)
	opts := natslog.Options{Lease: faultLease, Replicas: 3, Window: window}
	agent := pacedAgent(faultEvents, faultPace)
	a := serveReplica(t, openLog(t, ncA, opts), "a", agent)
	b := serveReplica(t, openLog(t, ncB, opts), "b", agent)
	reps := []*replica{a, b}

	const runs = 6
	var readers []*stream
	for i := range runs {
		run := fmt.Sprintf("run-%d", i)
		resp := reps[i%2].post(t, "t-"+run, run)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: POST %d", run, resp.StatusCode)
		}
		s := follow(resp.Body)
		<-s.started
		readers = append(readers, s, follow(reps[(i+1)%2].events(t, run, "").Body))
	}
	time.Sleep(10 * faultPace)
	js, _ := jetstream.New(ncA)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	st, err := js.Stream(ctx, "AGUI_RUNLOG")
	cancel()
	if err != nil || st.CachedInfo().Cluster == nil {
		t.Fatalf("stream info: %v", err)
	}
	leader := st.CachedInfo().Cluster.Leader
	if procs[leader] == nil {
		t.Fatalf("the stream's leader is %q", leader)
	}
	procs[leader].stop(syscall.SIGKILL)
	t.Logf("killed %s, the stream's leader", leader)

	want := uncut(t, agent, "t", "r")
	for i := range runs {
		run := fmt.Sprintf("run-%d", i)
		whole := wholeLog(t, reps[(i+1)%2], run)
		if err := checkWhole(t, whole, nil); err != nil || len(whole) != len(want) {
			t.Errorf("%s: the log (%d events, want %d): %v", run, len(whole), len(want), err)
			continue
		}
		for k, s := range readers[2*i : 2*i+2] {
			select {
			case got := <-s.done:
				if err := checkReader(got, whole); err != nil || len(got) != len(want) {
					t.Errorf("%s, reader %d (%d events): %v", run, k, len(got), err)
				}
			case <-time.After(5 * time.Minute):
				t.Fatalf("%s, reader %d: still reading five minutes after the node died\n%s\nthe log's goroutines:\n%s", run, k, rawRun(t, ncB, run), logStacks())
			}
		}
	}
}

// The replica running a run is a process of its own, killed (SIGKILL)
// mid-run: the reader on the other replica gets the events up to then and
// RUN_LOST, within a few leases, and that is the log's end.
func TestFaultReplicaKilled(t *testing.T) {
	t.Parallel()
	p := newNATSProc(t, "n1", freePort(t), "")
	childURL, child := startReplicaProcess(t, p.url())
	a := &replica{url: childURL}
	var logs syncBuffer
	b := serveReplica(t, openLog(t, connectLogged(t, p.url(), &logs), natslog.Options{Lease: faultLease}), "b", pacedAgent(faultEvents, faultPace))

	resp := a.post(t, "t", "run")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %d", resp.StatusCode)
	}
	home := follow(resp.Body)
	<-home.started
	other := follow(b.events(t, "run", "").Body)
	<-other.started
	time.Sleep(10 * faultPace)
	_ = child.Process.Kill()
	killed := time.Now()
	var got []frame
	select {
	case got = <-other.done:
	case <-time.After(time.Minute):
		t.Fatal("the reader on the other replica still reads a minute after the owner died")
	}
	took := time.Since(killed)
	t.Logf("the run ended as lost %v after its owner was killed (lease %v)", took, faultLease)
	whole := wholeLog(t, b, "run")
	if err := checkReader(got, whole); err != nil {
		t.Fatal(err)
	}
	if c := errorCode(whole[len(whole)-1].data); c != "RUN_LOST" {
		t.Fatalf("the log ends %s", whole[len(whole)-1].data)
	}
	<-home.done // cut by the kill
}

// 1,000 concurrent runs across two replicas; a fifth of the clients are cut
// mid-run and reattach on the other replica with Last-Event-ID. Every
// stream is whole: no event lost, duplicated or reordered, and one
// RUN_FINISHED at its end.
func TestFaultThousandRunsCutAndReattached(t *testing.T) {
	t.Parallel()
	for _, window := range writers {
		t.Run(fmt.Sprint("window=", window), func(t *testing.T) {
			t.Parallel()
			testThousandRuns(t, window)
		})
	}
}

func testThousandRuns(t *testing.T, window int) {
	p := newNATSProc(t, "n1", freePort(t), "")
	agent := pacedAgent(20, faultPace)
	var logsA, logsB syncBuffer
	reps := []*replica{
		serveReplica(t, openLog(t, connectLogged(t, p.url(), &logsA), natslog.Options{Lease: steadyLease, Window: window}), "a", agent),
		serveReplica(t, openLog(t, connectLogged(t, p.url(), &logsB), natslog.Options{Lease: steadyLease, Window: window}), "b", agent),
	}
	want := uncut(t, agent, "t", "r")
	const runs = 1000
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}, Timeout: 10 * time.Minute}
	errs := make(chan error, runs)
	var shed atomic.Int64 // requests answered 503 first
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			run := fmt.Sprintf("run-%d", i)
			home, other := reps[i%2], reps[(i+1)%2]
			resp, err := doRetrying(client, &shed, func() *http.Request {
				req, _ := http.NewRequest(http.MethodPost, home.url+"/agent",
					strings.NewReader(fmt.Sprintf(`{"threadId":"t-%s","runId":%q,"protocolVersion":%q,"messages":[]}`, run, run, agui.ProtocolVersion)))
				req.Header.Set("Content-Type", "application/json")
				return req
			})
			if err != nil {
				errs <- fmt.Errorf("%s: POST: %v", run, err)
				return
			}
			var got []frame
			sc := bufio.NewScanner(resp.Body)
			var cur frame
			cut := i%5 == 0
			for sc.Scan() {
				switch line := sc.Text(); {
				case line == "" && cur.data != "":
					got = append(got, cur)
					cur = frame{}
				case strings.HasPrefix(line, "id: "):
					cur.id = line[4:]
				case strings.HasPrefix(line, "data: "):
					cur.data = line[6:]
				}
				if cut && len(got) == 3+i%7 {
					break
				}
			}
			resp.Body.Close()
			if cut {
				resp, err := doRetrying(client, &shed, func() *http.Request {
					req, _ := http.NewRequest(http.MethodGet, other.url+"/agent/runs/"+run+"/events", nil)
					req.Header.Set("Last-Event-ID", got[len(got)-1].id)
					return req
				})
				if err != nil {
					errs <- fmt.Errorf("%s: reattach: %v", run, err)
					return
				}
				got = append(got, <-follow(resp.Body).done...)
			}
			mine := make([]string, len(want))
			for k, w := range want {
				mine[k] = strings.ReplaceAll(w, `"threadId":"t","runId":"r"`, fmt.Sprintf(`"threadId":"t-%s","runId":%q`, run, run))
			}
			if err := checkWhole(t, got, mine); err != nil {
				errs <- fmt.Errorf("%s: %w", run, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 20 {
			t.Error(err)
		}
	}
	if n > 0 {
		t.Errorf("%d of %d runs failed", n, runs)
	}
	if k := shed.Load(); k > 0 {
		t.Logf("%d requests were answered 503 (Retry-After) and tried again", k)
	}
	client.CloseIdleConnections()
}
