//go:build faults

package natslog_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui/server"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// The fault suite (build tag faults, `make faults`) runs nats-server as a
// process of its own, built from the module this one requires, so that an
// outage is a real one: the process is stopped with SIGTERM or SIGKILL and
// started again on the same address and store directory.

// natsBinary builds nats-server once per test process.
var natsBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "agui-faults-")
	if err != nil {
		return "", err
	}
	mainCleanups = append(mainCleanups, func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "nats-server")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2")
	// The server is the thing under fault, not under test: built without
	// the race detector even when the suite runs with it.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build nats-server: %v\n%s", err, out)
	}
	return bin, nil
})

// natsProc is one nats-server process, restartable on the same port and
// store directory.
type natsProc struct {
	t    *testing.T
	name string
	port int
	args []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	exit chan struct{}
	errs *syncBuffer
}

// freePort returns a TCP port for a nats-server of the suite: nothing
// listens on it now, no other server of this process had it, and it lies
// below the kernel's ephemeral range, so that no listener on port 0 (an
// httptest server, another test's probe) gets it while its server is down.
// A port from that range, freed for the three minutes of an outage, was
// taken by another test's nats-server; the replicas of the first then
// reconnected to the second, and their appends landed there.
func freePort(t *testing.T) int {
	t.Helper()
	ports.Lock()
	defer ports.Unlock()
	if ports.used == nil {
		ports.used = map[int]bool{}
		ports.lo, ports.hi = 20000, 30000
		if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
			var lo, hi int
			if _, err := fmt.Sscan(string(b), &lo, &hi); err == nil && lo > 11000 {
				ports.lo, ports.hi = 10000, lo
			}
		}
		ports.next = ports.lo + os.Getpid()%(ports.hi-ports.lo) // apart from a suite running beside this one
	}
	for range ports.hi - ports.lo {
		port := ports.next
		if ports.next++; ports.next >= ports.hi {
			ports.next = ports.lo
		}
		if ports.used[port] {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		l.Close()
		ports.used[port] = true
		return port
	}
	t.Fatal("no free port below the ephemeral range")
	return 0
}

var ports struct {
	sync.Mutex
	used         map[int]bool
	lo, hi, next int
}

// newNATSProc starts a JetStream nats-server named name; js is more of its
// configuration's jetstream block ("sync_interval: always", say), extra
// more command-line arguments (a cluster's). It is killed when the test
// ends.
func newNATSProc(t *testing.T, name string, port int, js string, extra ...string) *natsProc {
	t.Helper()
	p := &natsProc{t: t, name: name, port: port}
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats.conf")
	text := fmt.Sprintf("server_name: %s\nlisten: \"127.0.0.1:%d\"\njetstream {\n  store_dir: %q\n  %s\n}\n", name, port, filepath.Join(dir, "store"), js)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	p.args = append([]string{"-c", conf}, extra...)
	p.start()
	t.Cleanup(func() { p.stop(syscall.SIGKILL) })
	return p
}

func (p *natsProc) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", p.port) }

// start runs the process and waits until it accepts connections.
func (p *natsProc) start() {
	p.t.Helper()
	bin, err := natsBinary()
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errs = &syncBuffer{}
	p.cmd = exec.Command(bin, p.args...)
	p.cmd.Stdout, p.cmd.Stderr = p.errs, p.errs
	// Killed with this process, should it die before its cleanups run (a
	// test binary killed on timeout): no server outlives the suite.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.exit = make(chan struct{})
	go func(cmd *exec.Cmd, exit chan struct{}) { _ = cmd.Wait(); close(exit) }(p.cmd, p.exit)
	deadline := time.Now().Add(time.Minute) // a hang guard
	for {
		// Ready by its own word, not by the port alone: a port that
		// answers may be another listener's.
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p.port), time.Second)
		if err == nil {
			c.Close()
			if strings.Contains(p.errs.String(), "Server is ready") {
				return
			}
		}
		select {
		case <-p.exit:
			p.t.Fatalf("nats-server %s exited at start:\n%s", p.name, p.errs.String())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("nats-server %s does not accept connections after a minute:\n%s", p.name, p.errs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop signals the process and waits for it to exit.
func (p *natsProc) stop(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.exit:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exit
	}
	p.cmd = nil
}

// connect is natslog.Connect to urls, logging to logs, closed with the test.
func connectLogged(t *testing.T, urls string, logs io.Writer) *nats.Conn {
	t.Helper()
	nc, err := natslog.Connect(urls, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// openLog is natslog.New on nc with opts (a lease of 5s unless set), closed
// with the test.
func openLog(t *testing.T, nc *nats.Conn, opts natslog.Options) *natslog.Log {
	t.Helper()
	// A hang guard: a new cluster beside the suite's other servers on a
	// busy machine has taken over a minute to elect its leaders.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		// Each try on its own clock: a request sent before a new cluster
		// has its leader may never be answered.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		l, err := natslog.New(ctx, nc, opts)
		cancel()
		if err == nil {
			t.Cleanup(l.Close)
			return l
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // a cluster still electing its leader
	}
}

// replicaMain, with AGUI_FAULTS_REPLICA=<nats url> in the environment,
// makes the test binary a replica process: it serves the paced agent with
// durable runs on that NATS and prints its address, until it is killed.
func init() {
	replicaMain = func(natsURL string) {
		nc, err := natslog.Connect(natsURL, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: faultLease})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		h := server.NewHandler(pacedAgent(childEvents, faultPace), server.WithDurableRuns(server.DurableConfig{Log: l, Authorize: server.AllowAll, Detach: time.Minute, Replica: "child"}))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println("listening", ln.Addr().String())
		mux := http.NewServeMux()
		server.Mount(mux, "/agent", h)
		_ = http.Serve(ln, mux)
	}
}

// childEvents is the length of the child replica's runs: far longer than
// the test that kills it waits (half a second into the run), so that the
// kill comes while the run is live however slow a loaded machine makes
// the wait. At the suite's 100 events one run once ended before the kill,
// on a machine at load 10 (the log ended RUN_FINISHED, not RUN_LOST).
const childEvents = 40 * faultEvents

// startReplicaProcess runs this test binary as a replica on natsURL and
// returns its base URL and the process, killed when the test ends.
func startReplicaProcess(t *testing.T, natsURL string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AGUI_FAULTS_REPLICA="+natsURL)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// What the replica logs (its runs' outages) goes to the test's own
	// output: shown when it fails or with -v. Wait, in the cleanup, has
	// copied all of it before the test ends.
	cmd.Stderr = t.Output()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the replica process did not start: %v", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if !ok {
		t.Fatalf("the replica process said %q", line)
	}
	return "http://" + addr, cmd
}
