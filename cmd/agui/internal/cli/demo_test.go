package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestDemoServes runs `agui demo --addr 127.0.0.1:0` in process: it prints
// the agent's URL, a POST there streams a whole run, and an interrupt stops
// it with exit status 0.
func TestDemoServes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		durable bool
	}{
		{"plain", nil, false},
		{"resumable", []string{"--resumable"}, true},
		{"detach", []string{"--detach", "1s"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) { testDemoServes(t, tc.args, tc.durable) })
	}
}

// testDemoServes is TestDemoServes with extra flags; durable says whether
// the stream must carry ids and the run be readable again.
func testDemoServes(t *testing.T, args []string, durable bool) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	saved := demoContext
	demoContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { demoContext = saved }()

	out, w := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- runDemo(&Env{Stdin: strings.NewReader(""), Stdout: w, Stderr: &stderr}, append([]string{"--addr", "127.0.0.1:0"}, args...))
		w.Close()
	}()
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("no output; stderr: %s", stderr.String())
	}
	url := regexp.MustCompile(`http://\S+/agent`).FindString(lines.Text())
	if url == "" {
		t.Fatalf("no URL in %q", lines.Text())
	}
	go io.Copy(io.Discard, out) // the rest of the banner

	body := `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hello"}]}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	stream, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(stream), `"type":"RUN_FINISHED"`) {
		t.Fatalf("status %d:\n%s", resp.StatusCode, stream)
	}
	if strings.Contains(string(stream), "id: 1\n") != durable {
		t.Fatalf("ids in the stream: %v, want %v", !durable, durable)
	}
	if durable {
		resp, err := http.Get(url + "/runs/r/events?after=1")
		if err != nil {
			t.Fatal(err)
		}
		replay, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(replay), "id: 2\n") || !strings.HasSuffix(string(stream), string(replay)) {
			t.Fatalf("replay after 1: status %d:\n%s", resp.StatusCode, replay)
		}
	}
	http.DefaultClient.CloseIdleConnections()

	cancel() // Ctrl-C
	if c := <-code; c != ExitOK {
		t.Fatalf("exit %d; stderr: %s", c, stderr.String())
	}
}

// TestDemoExercise runs `agui demo --exercise` in process: every scenario
// ends as promised, and the output names no host or port, since the server
// it ran against is gone by the time anyone reads it.
func TestDemoExercise(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var stdout, stderr bytes.Buffer
	code := runDemo(&Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}, []string{"--exercise"})
	if code != ExitOK {
		t.Fatalf("exit %d; stderr: %s\nstdout:\n%s", code, stderr.String(), stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{"temporary local server", "== tour: POST /agent", "hung up mid-stream", "All scenarios ended as expected."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if addr := regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1?\]):\d+`).FindString(out); addr != "" {
		t.Errorf("output advertises %s, a server that is gone:\n%s", addr, out)
	}
	if strings.Contains(out, "curl") {
		t.Errorf("output suggests curl against a server that is gone:\n%s", out)
	}
}
