package adaptertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/internal/interop"
)

// replayProvider answers each request with the next recorded stream of the
// adapter's testdata and keeps the request bodies.
type replayProvider struct {
	errBody string
	mu      sync.Mutex
	files   []string
	reqs    []map[string]any
}

func (r *replayProvider) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var decoded map[string]any
	_ = json.Unmarshal(body, &decoded)
	r.mu.Lock()
	n := len(r.reqs)
	r.reqs = append(r.reqs, decoded)
	r.mu.Unlock()
	if n >= len(r.files) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, r.errBody)
		return
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", r.files[n]))
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Write(data)
}

// nodeDir returns the interop harness's Node project, installed, and the
// node binary. Without Node 20+ the test is skipped on a developer's machine
// and fails in CI (CI set).
func nodeDir(t testing.TB) (dir, node string) {
	t.Helper()
	missing := func(msg string) {
		msg += " (the interop test runs the TypeScript HttpAgent with Node 20+ and npm)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir, err := interop.NodeDir()
	if err != nil {
		missing(err.Error())
	}
	node, err = exec.LookPath("node")
	if err != nil {
		missing("node not found")
	}
	out, _ := exec.Command(node, "--version").Output()
	major := 0
	if m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(out); m != nil {
		major, _ = strconv.Atoi(string(m[1]))
	}
	if major < 20 {
		missing("node " + strings.TrimSpace(string(out)) + " is too old")
	}
	return dir, node
}

type runReport struct {
	Types     []string                        `json:"types"`
	Rejection *string                         `json:"rejection"`
	RunError  *struct{ Message, Code string } `json:"runError"`
	Finished  *struct {
		Outcome            string   `json:"outcome"`
		PendingToolCallIDs []string `json:"pendingToolCallIds"`
	} `json:"finished"`
	Messages []struct {
		ID         string          `json:"id"`
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"toolCallId"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"toolCalls"`
	} `json:"messages"`
}

// Interop describes one adapter's example agent for HTTPAgentInterop.
type Interop struct {
	// ErrBody is the provider's JSON error once the recorded streams run out.
	ErrBody string
	// Files are the recorded streams (in the adapter's testdata, two levels
	// up from the example's directory): a call of the frontend tool
	// confirm_booking, then a text answer.
	Files []string
	// CallID is the id of that tool call.
	CallID string
	// Run runs the example agent, as `go run` would, against the replay
	// server at providerURL, writing its log to out, until ctx is done.
	Run func(ctx context.Context, providerURL string, out io.Writer) error
}

// HTTPAgentInterop serves the example agent against a replay server, and has
// the reference TypeScript HttpAgent drive two runs through it: a frontend
// tool call left pending, then the run carrying its result. The client must
// warn about nothing.
func HTTPAgentInterop(t testing.TB, c Interop) {
	t.Helper()
	dir, node := nodeDir(t)
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "testdata", "httpagent.mjs")
	source, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	provider := &replayProvider{errBody: c.ErrBody, files: c.Files}
	ps := httptest.NewServer(provider)
	defer ps.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srvCtx, stop := context.WithCancel(ctx)
	out := &lineWriter{lines: make(chan string, 4)}
	done := make(chan error, 1)
	go func() {
		done <- c.Run(srvCtx, ps.URL, out)
	}()
	var url string
	select {
	case line := <-out.lines:
		url = regexp.MustCompile(`http://\S+/agent`).FindString(line)
	case err := <-done:
		t.Fatalf("the example exited: %v", err)
	}
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("the example did not shut down cleanly: %v", err)
		}
	}()

	cmd := exec.CommandContext(ctx, node, "--input-type=module", "--eval", string(source))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGUI_URL="+url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var rep struct {
		First, Second runReport
		Warnings      []string
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout.String())
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("the client warned:\n%s", strings.Join(rep.Warnings, "\n"))
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		t.Errorf("node wrote to stderr:\n%s", s)
	}
	first, second := rep.First, rep.Second
	for name, r := range map[string]runReport{"first": first, "second": second} {
		if r.Rejection != nil {
			t.Fatalf("%s run: runAgent rejected: %s", name, *r.Rejection)
		}
		if r.RunError != nil {
			t.Fatalf("%s run ended with RUN_ERROR %+v", name, *r.RunError)
		}
	}
	if first.Finished == nil || first.Finished.Outcome != "success" || !slices.Equal(first.Finished.PendingToolCallIDs, []string{c.CallID}) {
		t.Fatalf("first run finished %+v, want success with %s pending", first.Finished, c.CallID)
	}
	if m := first.Messages; len(m) != 2 || m[1].Role != "assistant" || len(m[1].ToolCalls) != 1 ||
		m[1].ToolCalls[0].Function.Name != "confirm_booking" || m[1].ToolCalls[0].Function.Arguments != `{"question":"Book a table for two?"}` {
		t.Errorf("the client's messages after the first run: %+v", m)
	}
	if second.Finished == nil || second.Finished.Outcome != "success" || len(second.Finished.PendingToolCallIDs) != 0 {
		t.Fatalf("second run finished %+v", second.Finished)
	}
	roles := make([]string, len(second.Messages))
	for i, m := range second.Messages {
		roles[i] = m.Role
	}
	last := second.Messages[len(second.Messages)-1]
	if strings.Join(roles, ",") != "user,assistant,tool,assistant" || string(last.Content) != `"It is sunny in Paris."` {
		t.Errorf("the client's messages after the second run: roles %v, last %s", roles, last.Content)
	}

	// What the provider was sent: the run's tool and the backend one, then
	// the tool's result in the second request.
	provider.mu.Lock()
	defer provider.mu.Unlock()
	if len(provider.reqs) != 2 {
		t.Fatalf("%d provider requests, want 2", len(provider.reqs))
	}
	tools, _ := json.Marshal(provider.reqs[0]["tools"])
	if !strings.Contains(string(tools), `"confirm_booking"`) || !strings.Contains(string(tools), `"current_time"`) {
		t.Errorf("tools sent %s", tools)
	}
	body, _ := json.Marshal(provider.reqs[1])
	if !strings.Contains(string(body), c.CallID) || !strings.Contains(string(body), `{\"confirmed\":true}`) {
		t.Errorf("the second request does not carry the tool result: %s", body)
	}
}

// lineWriter hands over each line written to it.
type lineWriter struct {
	mu    sync.Mutex
	buf   []byte
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		select {
		case w.lines <- string(w.buf[:i]):
		default:
		}
		w.buf = w.buf[i+1:]
	}
}
