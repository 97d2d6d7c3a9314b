package server_test

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/sse"
)

// The load test runs loadRuns concurrent runs through a hardened server on
// loopback: one run in ten has its client disconnect while the run is open,
// one in ten has its agent panic, the rest finish. The clients live in a
// child process (this test binary, running TestLoadClient), so that the
// server's file descriptors and memory are measured alone and 10,000 runs fit
// the usual descriptor limit on each side.
//
// The normal suite runs 500 (100 under the race detector);
// AGUI_LOAD_RUNS=10000 runs the full scale:
//
//	AGUI_LOAD_RUNS=10000 go test -run TestLoad -v ./agui/server/
const defaultLoadRuns = 500

// Run kinds, by run index.
func loadKind(i int) string {
	switch i % 10 {
	case 1:
		return "disconnect"
	case 2:
		return "panic"
	}
	return "finish"
}

func TestLoad(t *testing.T) {
	n := defaultLoadRuns
	if raceEnabled {
		n = 100 // the race detector multiplies the cost of every run
	}
	if s := os.Getenv("AGUI_LOAD_RUNS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 10 || n > 20_000 {
			t.Fatalf("AGUI_LOAD_RUNS=%q: want a number from 10 to 20000", s)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute) // the whole test stops by itself
	defer cancel()

	release := make(chan struct{})
	var mu sync.Mutex
	seen := map[int]time.Time{} // when each disconnect run's agent saw its cancellation
	var badCause []string
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		i, _ := strconv.Atoi(strings.TrimPrefix(rc.Input().RunID, "r-"))
		switch loadKind(i) {
		case "disconnect":
			<-ctx.Done()
			at := time.Now()
			mu.Lock()
			seen[i] = at
			if cause := context.Cause(ctx); !errors.Is(cause, server.ErrClientDisconnected) {
				badCause = append(badCause, fmt.Sprintf("run %d: %v", i, cause))
			}
			mu.Unlock()
			return server.Outcome{}, ctx.Err()
		case "panic":
			<-release
			panic("load test: the agent panics")
		}
		if err := rc.Say("hello"); err != nil {
			return server.Outcome{}, err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return server.Outcome{}, ctx.Err()
		}
		return server.Success(), nil
	})
	quiet := slog.New(slog.DiscardHandler) // a panic per run in ten would flood the test log
	srv := server.NewHTTPServer("", server.NewHandler(agent, server.WithLogger(quiet)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	baseBytes, _, baseG := liveBytes()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer srv.Close()

	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLoadClient$", "-test.v")
	cmd.Env = append(os.Environ(), "AGUI_LOAD_CLIENT="+ln.Addr().String(), "AGUI_LOAD_N="+strconv.Itoa(n))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	expect := func(prefix string) string {
		t.Helper()
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, prefix) {
				return strings.TrimPrefix(l, prefix)
			}
		}
		cmd.Wait()
		t.Fatalf("the client process ended before %q", prefix)
		return ""
	}

	start := time.Now()
	expect("OPEN")
	openTook := time.Since(start)
	openBytes, _, openG := liveBytes()
	perRun := float64(int64(openBytes)-int64(baseBytes)) / float64(n)
	t.Logf("%d runs open in %v: %.0f B (%.1f KiB) per open run in the server process, %.2f goroutines per run",
		n, openTook, perRun, perRun/1024, float64(openG-baseG)/float64(n))

	probe := startProbe(t)
	io.WriteString(stdin, "DISCONNECT\n")
	closed := map[int]time.Time{}
	for l := expect("CLOSED "); l != "END"; l = expect("CLOSED ") {
		var i int
		var ns int64
		fmt.Sscan(l, &i, &ns)
		closed[i] = time.Unix(0, ns)
	}
	// Wait until every disconnect is seen, or give up after a while.
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		got := len(seen)
		mu.Unlock()
		if got >= len(closed) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	io.WriteString(stdin, "READ\n")
	result := expect("RESULT ")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("client process: %v (%s)", err, result)
	}

	mu.Lock()
	defer mu.Unlock()
	var lat []time.Duration
	var first, last time.Time // the first disconnect, the last one seen
	for i, c := range closed {
		if first.IsZero() || c.Before(first) {
			first = c
		}
		s, ok := seen[i]
		if !ok {
			t.Errorf("run %d: its client disconnected and its agent never saw it", i)
			continue
		}
		if s.After(last) {
			last = s
		}
		lat = append(lat, s.Sub(c))
	}
	slices.SortFunc(lat, cmp.Compare)
	if len(lat) > 0 {
		p := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
		t.Logf("disconnect seen by the agent: %d runs, p50 %v, p99 %v, max %v", len(lat), p(0.5), p(0.99), lat[len(lat)-1])
		// On the time the scheduler let the server process run: on a
		// loaded machine it can wait a second for a processor.
		probe.withinBoundDuring(t, "p99 of disconnect detection", p(0.99), time.Second, first, last)
	}
	for _, b := range badCause {
		t.Errorf("disconnect cause: %s", b)
	}
	t.Logf("client: %s", result)
	if !strings.HasPrefix(result, "ok ") {
		t.Errorf("client: %s", result)
	}

	shutCtx, shutCancel := context.WithTimeout(ctx, 10*time.Second)
	defer shutCancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	<-served
	// Every goroutine of every run is gone: the count returns to where it was.
	probe.end() // the probe's goroutine is not the runs'
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		g := runtime.NumGoroutine()
		if g <= baseG {
			t.Logf("goroutines: %d before, %d with the runs open, %d after", baseG, openG, g)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d before, %d thirty seconds after the runs ended", baseG, g)
		}
	}
}

// TestLoadClient is the client side of TestLoad, in a child process; it does
// nothing in a normal run.
func TestLoadClient(t *testing.T) {
	addr := os.Getenv("AGUI_LOAD_CLIENT")
	if addr == "" {
		t.Skip("the client process of TestLoad")
	}
	n, _ := strconv.Atoi(os.Getenv("AGUI_LOAD_N"))
	in := bufio.NewScanner(os.Stdin)
	wait := func(word string) {
		for in.Scan() && in.Text() != word {
		}
	}
	type run struct {
		c  net.Conn
		br *bufio.Reader
	}
	runs := make([]run, n)
	errs := make(chan error, n)
	parallel(n, func(i int) {
		body := fmt.Sprintf(`{"threadId":"t","runId":"r-%d","messages":[]}`, i)
		c, err := net.Dial("tcp", addr)
		if err != nil {
			errs <- err
			return
		}
		fmt.Fprintf(c, "POST /agent HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
		resp, err := http.ReadResponse(bufio.NewReaderSize(c, 512), nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			errs <- fmt.Errorf("run %d: %v %v", i, resp, err)
			return
		}
		br := bufio.NewReaderSize(resp.Body, 512) // the body without its chunked framing
		// RUN_STARTED: the run is open.
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				errs <- fmt.Errorf("run %d: %w", i, err)
				return
			}
			if strings.Contains(l, `"RUN_STARTED"`) {
				break
			}
		}
		runs[i] = run{c, br}
	})
	if len(errs) > 0 {
		fmt.Printf("RESULT opening: %v\n", <-errs)
		return
	}
	fmt.Println("OPEN")
	wait("DISCONNECT")
	disconnects := 0
	for i := range runs {
		if loadKind(i) == "disconnect" {
			disconnects++
			runs[i].c.Close()
			at := time.Now() // after the close: a pause of this process before it is not the server's
			fmt.Printf("CLOSED %d %d\n", i, at.UnixNano())
		}
	}
	fmt.Println("CLOSED END")
	wait("READ")
	var bad []string
	var badMu sync.Mutex
	parallel(n, func(i int) {
		if loadKind(i) == "disconnect" {
			return
		}
		defer runs[i].c.Close()
		runs[i].c.SetReadDeadline(time.Now().Add(2 * time.Minute))
		var terminals []agui.Event
		for data, err := range sse.Frames(runs[i].br) {
			if err != nil {
				break
			}
			ev, err := agui.DecodeEvent(data)
			if err != nil {
				badMu.Lock()
				bad = append(bad, fmt.Sprintf("run %d: %v", i, err))
				badMu.Unlock()
				return
			}
			if t := ev.Type(); t == agui.EventTypeRunFinished || t == agui.EventTypeRunError {
				terminals = append(terminals, ev)
			}
		}
		want := agui.EventTypeRunFinished
		if loadKind(i) == "panic" {
			want = agui.EventTypeRunError
		}
		ok := len(terminals) == 1 && terminals[0].Type() == want
		if ok && want == agui.EventTypeRunError {
			code := terminals[0].(*agui.RunError).Code
			ok = code != nil && *code == string(agui.CodeAgentPanic)
		}
		if !ok {
			badMu.Lock()
			bad = append(bad, fmt.Sprintf("run %d (%s): terminal events %v", i, loadKind(i), terminals))
			badMu.Unlock()
		}
	})
	if len(bad) > 0 {
		fmt.Printf("RESULT %d streams did not end with exactly one expected terminal event, e.g. %s\n", len(bad), bad[0])
		return
	}
	fmt.Printf("RESULT ok %d streams (%d disconnected) each ended with exactly one terminal event\n", n-disconnects, disconnects)
}

// parallel calls f(0), …, f(n-1) on 64 goroutines.
func parallel(n int, f func(int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 64 {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
