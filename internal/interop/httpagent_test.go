package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/internal/interop"
	"go.uber.org/goleak"
)

// nodeDir returns the pinned Node project (node/, installed with npm ci from
// the committed lock file) and the node binary. Without Node 20+ the test is
// skipped on a developer's machine and fails in CI (CI=true): it is never
// skipped silently there.
func nodeDir(t *testing.T) (dir, node string) {
	t.Helper()
	missing := func(msg string) {
		msg += " (the HttpAgent interop test runs the TypeScript client with Node 20+ and npm; Debian: apt-get install nodejs npm)"
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
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		missing("node --version failed: " + err.Error())
	}
	major := 0
	if m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(bytes.TrimSpace(out)); m != nil {
		major, _ = strconv.Atoi(string(m[1]))
	}
	if major < 20 {
		missing("node " + strings.TrimSpace(string(out)) + " is too old")
	}
	return dir, node
}

type finished struct {
	Outcome            string            `json:"outcome"`
	Result             json.RawMessage   `json:"result"`
	PendingToolCallIDs []string          `json:"pendingToolCallIds"`
	Interrupts         []json.RawMessage `json:"interrupts"`
}

type message struct {
	ID             string          `json:"id"`
	Role           string          `json:"role"`
	Content        json.RawMessage `json:"content"`
	ActivityType   string          `json:"activityType"`
	ToolCallID     string          `json:"toolCallId"`
	SubagentRunID  string          `json:"subagentRunId"`
	EncryptedValue string          `json:"encryptedValue"`
	ToolCalls      []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"toolCalls"`
}

func (m message) text() string {
	var s string
	_ = json.Unmarshal(m.Content, &s)
	return s
}

type runReport struct {
	Types             []string                        `json:"types"`
	Rejection         *string                         `json:"rejection"`
	RunError          *struct{ Message, Code string } `json:"runError"`
	Finished          *finished                       `json:"finished"`
	Result            json.RawMessage                 `json:"result"`
	Messages          []message                       `json:"messages"`
	State             json.RawMessage                 `json:"state"`
	PendingInterrupts []json.RawMessage               `json:"pendingInterrupts"`
}

type report struct {
	Plain, Interrupt, Resume, Fail, Abort runReport
	Warnings                              []string
}

// recorder wraps the demo agent to report how each run's agent returned.
type recorder struct {
	inner server.Agent[demo.State]
	errs  chan returned
}

// returned is how an agent returned: its error, and the cause of its run's
// cancellation (nil for a run that was not cancelled).
type returned struct{ err, cause error }

func (r *recorder) Run(ctx context.Context, rc *server.RunContext[demo.State]) (server.Outcome, error) {
	out, err := r.inner.Run(ctx, rc)
	r.errs <- returned{err, context.Cause(ctx)}
	return out, err
}

// TestHTTPAgent runs the reference client's HttpAgent against the demo agent
// over HTTP: the plain run, an interrupt and its resumption, a failure, and an
// abort mid-stream. The client must print no warning and reject nothing, and
// end with the expected messages, state and outcome. It is the package's one
// test that is not parallel: goleak must see only its own goroutines (the
// parallel tests wait until the sequential ones are done).
func TestHTTPAgent(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir, node := nodeDir(t)

	agent := &recorder{
		inner: demo.NewAgent(demo.Config{SlowDelay: 50 * time.Millisecond, SlowWords: 400}),
		errs:  make(chan returned, 16),
	}
	mux := http.NewServeMux()
	mux.Handle("/agent", server.NewHandler[demo.State](agent))
	srv := httptest.NewServer(mux) // 127.0.0.1
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "httpagent.mjs", srv.URL+"/agent")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node httpagent.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var rep report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout.String())
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("the client warned:\n%s", strings.Join(rep.Warnings, "\n"))
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		t.Errorf("node wrote to stderr:\n%s", s)
	}
	for name, r := range map[string]runReport{"plain": rep.Plain, "interrupt": rep.Interrupt, "resume": rep.Resume, "fail": rep.Fail, "abort": rep.Abort} {
		if r.Rejection != nil {
			t.Errorf("%s: runAgent rejected: %s", name, *r.Rejection)
		}
		if len(r.Types) == 0 || r.Types[0] != "RUN_STARTED" {
			t.Errorf("%s: stream does not start with RUN_STARTED: %v", name, r.Types)
		}
	}

	t.Run("plain", func(t *testing.T) { checkPlain(t, rep.Plain) })
	t.Run("interrupt", func(t *testing.T) { checkInterrupt(t, rep.Interrupt, rep.Resume) })
	t.Run("failure", func(t *testing.T) {
		r := rep.Fail
		if r.RunError == nil || r.RunError.Code != "AGENT_ERROR" || r.RunError.Message != "agent error: the demo was asked to fail" {
			t.Errorf("run error %+v, want AGENT_ERROR \"agent error: the demo was asked to fail\"", r.RunError)
		}
		if r.Finished != nil {
			t.Errorf("a failed run also finished: %+v", r.Finished)
		}
		if last := r.Types[len(r.Types)-1]; last != "RUN_ERROR" {
			t.Errorf("last event %s", last)
		}
		if n := len(r.Messages); n != 2 || r.Messages[1].text() != "Calling the flaky service…" {
			t.Errorf("messages %+v", r.Messages)
		}
	})
	t.Run("abort", func(t *testing.T) {
		// The client aborting mid-stream is its own RUN_ERROR ("abort"); on
		// the server the agent saw the run cancelled because the client left.
		r := rep.Abort
		if r.RunError == nil || r.RunError.Code != "abort" {
			t.Errorf("client-side run error %+v, want code abort", r.RunError)
		}
	})

	// Every run's agent returned: five runs, the abort one cancelled with
	// cause ErrClientDisconnected.
	var cancelled int
	for range 5 {
		select {
		case r := <-agent.errs:
			// The demo answers cancellation with ctx.Err(); the cause is
			// the context's.
			if r.err != nil && server.IsCancelled(r.err) {
				if !errors.Is(r.cause, server.ErrClientDisconnected) {
					t.Errorf("cancelled with cause %v, want ErrClientDisconnected", r.cause)
				}
				cancelled++
			}
		case <-time.After(5 * time.Second):
			t.Fatal("an agent did not return")
		}
	}
	if cancelled != 1 {
		t.Errorf("%d runs were cancelled, want 1 (the aborted one)", cancelled)
	}
}

func checkPlain(t *testing.T, r runReport) {
	if r.Finished == nil || r.Finished.Outcome != "success" {
		t.Fatalf("finished %+v, want success", r.Finished)
	}
	if got := string(r.Result); got != `{"summary":"Paris: sunny, up to 24 °C."}` {
		t.Errorf("result %s", got)
	}
	var state demo.State
	if err := json.Unmarshal(r.State, &state); err != nil {
		t.Fatal(err)
	}
	if state.Topic != "weather" || strings.Join(state.Steps, ",") != "plan,weather,summary" || state.Forecast == nil || state.Forecast.Sky != "sunny" {
		t.Errorf("state %s", r.State)
	}
	for _, want := range []string{"STATE_SNAPSHOT", "STATE_DELTA", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "SUBAGENT_STARTED", "SUBAGENT_FINISHED", "STEP_STARTED", "REASONING_START", "REASONING_ENCRYPTED_VALUE", "TOOL_CALL_RESULT"} {
		if !contains(r.Types, want) {
			t.Errorf("the client saw no %s", want)
		}
	}
	roles := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		roles[i] = m.Role
	}
	if got := strings.Join(roles, ","); got != "user,reasoning,assistant,tool,activity,assistant,assistant" {
		t.Fatalf("message roles %s", got)
	}
	m := r.Messages
	if m[1].EncryptedValue == "" || !strings.HasPrefix(m[1].text(), "The user wants the weather.") {
		t.Errorf("reasoning message %+v", m[1])
	}
	if m[2].text() != "Let me check the weather in Paris." || len(m[2].ToolCalls) != 1 ||
		m[2].ToolCalls[0].Function.Name != "get_weather" || m[2].ToolCalls[0].Function.Arguments != `{"city":"Paris"}` {
		t.Errorf("assistant message with the tool call %+v", m[2])
	}
	if m[3].ToolCallID != m[2].ToolCalls[0].ID || !strings.Contains(m[3].text(), `"sky":"sunny"`) {
		t.Errorf("tool message %+v", m[3])
	}
	if m[4].ActivityType != "progress" || !strings.Contains(string(m[4].Content), `"percent":100`) {
		t.Errorf("activity %+v", m[4])
	}
	if m[5].SubagentRunID == "" || m[5].text() != "Paris: sunny, up to 24 °C." {
		t.Errorf("subagent message %+v", m[5])
	}
	if m[6].SubagentRunID != "" || m[6].text() != "It will be sunny in Paris, up to 24 °C." {
		t.Errorf("final message %+v", m[6])
	}
}

func checkInterrupt(t *testing.T, r, resumed runReport) {
	if r.Finished == nil || r.Finished.Outcome != "interrupt" || len(r.Finished.Interrupts) != 1 {
		t.Fatalf("finished %+v, want one interrupt", r.Finished)
	}
	if len(r.PendingInterrupts) != 1 || !strings.Contains(string(r.PendingInterrupts[0]), `"reason":"approval"`) {
		t.Errorf("pending interrupts %s", r.PendingInterrupts)
	}
	if !contains(r.Types, "SUBAGENT_FINISHED") {
		t.Errorf("no suspended subagent: %v", r.Types)
	}
	if resumed.Finished == nil || resumed.Finished.Outcome != "success" {
		t.Fatalf("resumed run finished %+v, want success", resumed.Finished)
	}
	if len(resumed.PendingInterrupts) != 0 {
		t.Errorf("pending interrupts after resume %s", resumed.PendingInterrupts)
	}
	var state demo.State
	if err := json.Unmarshal(resumed.State, &state); err != nil {
		t.Fatal(err)
	}
	if state.Approved == nil || !*state.Approved || state.Topic != "booking" {
		t.Errorf("state after resume %s", resumed.State)
	}
	last := resumed.Messages[len(resumed.Messages)-1]
	if last.text() != "Booked: a table for two at 8pm." {
		t.Errorf("last message after resume %+v", last)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
