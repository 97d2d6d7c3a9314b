package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"go.uber.org/goleak"
)

// startNATS runs a real nats-server with JetStream in this process, as the
// run log's own tests do; jetstream false starts one without it. shutdown
// stops it (again at the test's end, harmlessly): a test that checks for
// leaks calls it first, since the server's goroutines end with it.
func startNATS(t *testing.T, jetstream bool) (url string, shutdown func()) {
	t.Helper()
	s, err := natsserver.NewServer(&natsserver.Options{
		Host: "127.0.0.1", Port: -1, JetStream: jetstream, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	shutdown = func() { s.Shutdown(); s.WaitForShutdown() }
	t.Cleanup(shutdown)
	return s.ClientURL(), shutdown
}

// serveDemo runs `agui demo --addr 127.0.0.1:0 args...` in process until
// stop, which returns its exit status and standard error.
func serveDemo(t *testing.T, args ...string) (url string, stop func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	saved := demoContext
	demoContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { demoContext = saved }()

	out, w := io.Pipe()
	stderr := &syncBuffer{}
	code := make(chan int, 1)
	go func() {
		code <- runDemo(&Env{Stdin: strings.NewReader(""), Stdout: w, Stderr: stderr}, append([]string{"--addr", "127.0.0.1:0"}, args...))
		w.Close()
	}()
	stop = func() (int, string) {
		cancel()
		return <-code, stderr.String()
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		c, e := stop()
		t.Fatalf("agui demo %s printed nothing; exit %d, stderr: %s", strings.Join(args, " "), c, e)
	}
	url = regexp.MustCompile(`http://\S+/agent`).FindString(lines.Text())
	go io.Copy(io.Discard, out) // the rest of the banner
	if url == "" {
		stop()
		t.Fatalf("no URL in %q", lines.Text())
	}
	return url, stop
}

// Two `agui demo --nats` sharing one NATS server are replicas of one agent:
// a run served by A is read again through B by `agui run --reattach`, whole
// or after a sequence; its thread, kept on NATS, is served by B; and both
// demos stop cleanly (nothing leaks: the
// NATS connection and the lease watch end with the command).
func TestDemoNATS(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	natsURL, shutdown := startNATS(t, true)
	defer shutdown()
	urlA, stopA := serveDemo(t, "--nats", natsURL)
	urlB, stopB := serveDemo(t, "--nats", natsURL)
	defer func() {
		for _, stop := range []func() (int, string){stopA, stopB} {
			if code, stderr := stop(); code != ExitOK {
				t.Errorf("demo exited %d: %s", code, stderr)
			}
		}
	}()

	var first, stderr bytes.Buffer
	input := `{"threadId":"t","runId":"nats-run","messages":[{"id":"u","role":"user","content":"hello"}]}`
	if code := Main([]string{"run", urlA, "--input", "-", "--json"}, strings.NewReader(input), &first, &stderr); code != ExitOK {
		t.Fatalf("the run on A exited %d: %s", code, &stderr)
	}
	lines := strings.Split(strings.TrimSpace(first.String()), "\n")
	if len(lines) < 10 || !strings.Contains(lines[len(lines)-1], `"RUN_FINISHED"`) {
		t.Fatalf("the run on A streamed %d events, the last %s", len(lines), lines[len(lines)-1])
	}
	resp, err := http.Get(urlB + "/threads/t")
	if err != nil {
		t.Fatal(err)
	}
	var thread struct {
		Messages []json.RawMessage `json:"messages"`
		Runs     []struct {
			RunID   string `json:"runId"`
			Outcome string `json:"outcome"`
		} `json:"runs"`
	}
	err = json.NewDecoder(resp.Body).Decode(&thread)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(thread.Runs) != 1 || thread.Runs[0].RunID != "nats-run" ||
		thread.Runs[0].Outcome != "succeeded" || len(thread.Messages) < 2 || !strings.Contains(string(thread.Messages[0]), `"hello"`) {
		t.Fatalf("the thread on B: %d %v %+v", resp.StatusCode, err, thread)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
		code int
	}{
		{"whole run on B", []string{"--reattach", "nats-run"}, lines, ExitOK},
		{"after 5 on B", []string{"--reattach", "nats-run", "--after", "5"}, lines[5:], ExitOK},
		{"unknown run on B", []string{"--reattach", "no-such-run"}, nil, ExitRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"run", urlB, "--json"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, &stderr)
			}
			if tc.want != nil && strings.TrimSpace(stdout.String()) != strings.Join(tc.want, "\n") {
				t.Fatalf("stdout:\n%s\nwant:\n%s", &stdout, strings.Join(tc.want, "\n"))
			}
		})
	}
}

// A NATS server that is not there, or has no JetStream, fails the command
// at once with a message that says so.
func TestDemoNATSUnavailable(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	noJS, shutdown := startNATS(t, false)
	defer shutdown()
	for _, tc := range []struct {
		name, url, want string
	}{
		{"nothing listening", "nats://127.0.0.1:1", "connecting to NATS at nats://127.0.0.1:1"},
		{"no JetStream", noJS, "is JetStream enabled?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main([]string{"demo", "--addr", "127.0.0.1:0", "--nats", tc.url}, strings.NewReader(""), &stdout, &stderr)
			if code != ExitRejected || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, &stderr, ExitRejected, tc.want)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer that the command writes while the test
// reads it.
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

// Every scenario of the exercise (a tour, an interrupt and its resumption,
// a failure, a run abandoned midway) ends as promised with its runs in the
// JetStream log.
func TestDemoExerciseNATS(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	natsURL, shutdown := startNATS(t, true)
	defer shutdown()
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"demo", "--exercise", "--nats", natsURL}, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, &stdout, &stderr)
	}
	if !strings.Contains(stdout.String(), "All scenarios ended as expected.") {
		t.Fatalf("stdout:\n%s", &stdout)
	}
}
