package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
	"go.uber.org/goleak"
)

func demoURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(server.NewHandler(demo.NewAgent(demo.Config{SlowDelay: 20 * time.Millisecond, SlowWords: 500})))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRunDemo(t *testing.T) {
	url := demoURL(t)
	deny := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"code":"UNAUTHENTICATED","message":"a token is required"}}`)
	}))
	defer deny.Close()
	refused := deny.URL
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream") // and not one event
	}))
	defer empty.Close()
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		stderr []string
		stdin  string
	}{
		{"input from stdin", []string{url, "--input", "-", "--json"}, ExitOK,
			[]string{`"threadId":"th-stdin"`, `"type":"RUN_FINISHED"`}, nil,
			`{"threadId":"th-stdin","messages":[{"id":"u","role":"user","content":"hello","futureProp":1}]}`},
		{"bad input", []string{url, "--input", "-"}, ExitUsage, nil, []string{"invalid input", ""},
			`{"messages":[{"id":"u","role":"user","content":42}]}`},
		{"tour", []string{url, "--message", "weather in Paris?"}, ExitOK,
			[]string{"thinking: The user wants the weather", "→ get_weather", "← get_weather result:", "state: {", "state Δ:", "subagent summariser", "assistant: It will be sunny"},
			[]string{"finished", "final state:"}, ""},
		{"failure", []string{"--message", "please fail", url}, ExitRunError,
			[]string{"✖ run error: AGENT_ERROR"}, []string{"RUN_ERROR"}, ""},
		{"interrupt", []string{url, "--message", "interrupt me", "--thread", "th-1"}, ExitOK,
			[]string{"finished: interrupted", "⏸ interrupt", "on thread th-1"}, nil, ""},
		{"json", []string{url, "--json", "--message", "hi", "-H", "X-Test: 1"}, ExitOK,
			[]string{`{"type":"RUN_STARTED"`}, []string{"finished"}, ""},
		{"timeout", []string{url, "--message", "slow", "--timeout", timeoutArg}, ExitRejected,
			[]string{"word1"}, []string{"deadline exceeded"}, ""},
		{"bad state", []string{url, "--state", "{nope"}, ExitUsage, nil, []string{"--state"}, ""},
		{"message after an input", []string{url, "--input", "-", "--message", "second", "--final", "-"}, ExitOK,
			[]string{`"content":"first"`, `"content":"second"`}, nil, `{"threadId":"th-2","messages":[{"id":"u0","role":"user","content":"first"}]}`},
		{"no url", []string{"--message", "a"}, ExitUsage, nil, []string{"one URL"}, ""},
		{"bad version", []string{url, "--max-protocol-version", "latest"}, ExitUsage, nil, []string{"MAJOR.MINOR"}, ""},
		{"bad header", []string{url, "-H", "nocolon"}, ExitUsage, nil, []string{"Key: Value"}, ""},
		{"refused", []string{refused, "--message", "a"}, ExitRejected, nil, []string{"HTTP 401", "UNAUTHENTICATED: a token is required"}, ""},
		{"an empty answer", []string{empty.URL, "--message", "a"}, ExitRejected, nil, []string{"the answer held no run"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, tt.args, tt.stdin)
			if tt.name == "input from stdin" && !strings.Contains(stderr.String(), "/messages/0/futureProp") {
				t.Errorf("the stripped member of the input is not reported:\n%s", stderr)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if strings.Contains(stdout.String(), "\x1b[") {
				t.Errorf("colour on a non-terminal")
			}
			if tt.name == "json" {
				for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
					if !strings.HasPrefix(line, "{") {
						t.Errorf("--json stdout holds a non-event line %q", line)
					}
				}
			}
		})
	}
}

// TestRunInterrupted: Ctrl-C aborts the request and exits 130, leaving no
// goroutine behind once the server is gone.
func TestRunInterrupted(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := httptest.NewServer(server.NewHandler(demo.NewAgent(demo.Config{SlowDelay: 20 * time.Millisecond, SlowWords: 500})))
	defer srv.Close()
	url := srv.URL
	old := runContext
	defer func() { runContext = old }()
	runContext = func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(150*time.Millisecond, cancel) // the "signal"
		return ctx, cancel
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"run", url, "--message", "slow"}, strings.NewReader(""), &stdout, &stderr)
	if code != ExitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %d\n%s", code, &stderr)
	}
	// Stopped midway, not once the answer ended (its 500th word, 10s on).
	if strings.Contains(stdout.String(), "word500") {
		t.Errorf("the run went on to its end:\n%s", &stdout)
	}
}

// TestRunColour: escape codes only when the printer was told it writes to
// a terminal, and never in --json output.
func TestRunColour(t *testing.T) {
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &out}
	if isTerminal(env.Stdout) {
		t.Fatal("a buffer is not a terminal")
	}
	p := newPrinter(env, false)
	p.color = true
	p.line(p.paint(red, "x"))
	if !strings.Contains(out.String(), "\x1b[31mx\x1b[0m") {
		t.Errorf("no colour: %q", out.String())
	}
	out.Reset()
	p = newPrinter(env, true)
	p.color = true
	p.event(&agui.RunError{Message: "m"})
	if strings.Contains(out.String(), "\x1b[") {
		t.Errorf("colour in --json output: %q", out.String())
	}
}

// TestRunInterleaved: deltas of two messages that interleave each go on a
// line labelled with their message.
func TestRunInterleaved(t *testing.T) {
	var out bytes.Buffer
	p := newPrinter(&Env{Stdout: &out, Stderr: &out}, false)
	for _, ev := range []agui.Event{
		&agui.TextMessageStart{MessageID: "a"},
		agui.NewTextMessageContent("a", "one "),
		&agui.TextMessageStart{MessageID: "b"},
		agui.NewTextMessageContent("b", "two "),
		agui.NewTextMessageContent("a", "three"),
	} {
		p.event(ev)
	}
	p.endLine()
	want := "assistant: one \nassistant: two \n… message a: three\n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
}

// TestRunProto runs the demo with --proto: the server answers in protobuf
// and the output is what the SSE runs above show.
func TestRunProto(t *testing.T) {
	// The handler reports the Content-Type it answered with once it
	// returns, which after a client timeout is later than Main's return
	// (and a request a timeout cut before it arrived has no answer).
	var mu sync.Mutex
	started, answers := 0, []string(nil)
	demoH := server.NewHandler(demo.NewAgent(demo.Config{SlowDelay: 20 * time.Millisecond, SlowWords: 500}))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		started++
		mu.Unlock()
		demoH.ServeHTTP(w, r)
		mu.Lock()
		answers = append(answers, w.Header().Get("Content-Type"))
		mu.Unlock()
	}))
	defer srv.Close()
	// checkAnswers waits until every request that arrived was answered,
	// and checks that each was answered in protobuf.
	checkAnswers := func(t *testing.T) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) { // a hang guard
			mu.Lock()
			done, got := len(answers) == started, answers
			if done {
				started, answers = 0, nil
			}
			mu.Unlock()
			if done {
				if len(got) == 0 {
					t.Error("the server was not asked")
				}
				for _, ct := range got {
					if ct != "application/vnd.ag-ui.event+proto" {
						t.Errorf("the server answered %q, want protobuf", ct)
					}
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the handler did not return")
			}
		}
	}
	url := srv.URL
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"tour", []string{url, "--proto", "--message", "weather in Paris?"}, ExitOK,
			[]string{"thinking: The user wants the weather", "→ get_weather", "← get_weather result:", "state Δ:", "subagent summariser", "assistant: It will be sunny"},
			[]string{"finished", "final state:"}},
		{"failure", []string{url, "--proto", "--message", "please fail"}, ExitRunError,
			[]string{"✖ run error: AGENT_ERROR"}, []string{"RUN_ERROR"}},
		{"interrupt", []string{url, "--proto", "--message", "interrupt me"}, ExitOK,
			[]string{"finished: interrupted", "⏸ interrupt"}, nil},
		{"json", []string{url, "--proto", "--json", "--message", "hi"}, ExitOK,
			[]string{`{"type":"RUN_STARTED"`, `{"type":"RUN_FINISHED"`}, nil},
		{"timeout", []string{url, "--proto", "--message", "slow", "--timeout", timeoutArg}, ExitRejected,
			[]string{"word1"}, []string{"deadline exceeded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, tt.args, "")
			checkAnswers(t)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
}

// timeoutArg, in a test's arguments, stands for the --timeout that
// runMain chooses.
const timeoutArg = "<timeout>"

// runMain runs `agui run args…` with stdin. Arguments holding timeoutArg
// run with --timeout 150ms, then, while the deadline fell before the demo's
// slow answer said its first word (a loaded machine can take that long to
// answer at all), with 600ms and 2.4s: a timeout that cuts the answer
// midway, well before its 10s end, is what such a case checks.
func runMain(t *testing.T, args []string, stdin string) (code int, stdout, stderr *bytes.Buffer) {
	t.Helper()
	timeouts := []string{""}
	if slices.Contains(args, timeoutArg) {
		timeouts = []string{"150ms", "600ms", "2400ms"}
	}
	for i, timeout := range timeouts {
		stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
		run := append([]string{"run"}, args...)
		if timeout != "" {
			run[slices.Index(run, timeoutArg)] = timeout
		}
		code = Main(run, strings.NewReader(stdin), stdout, stderr)
		early := timeout != "" && code == ExitRejected && strings.Contains(stderr.String(), "deadline exceeded") && !strings.Contains(stdout.String(), "word1")
		if !early || i == len(timeouts)-1 {
			break
		}
		t.Logf("--timeout %s passed before the first word; again with a longer one", timeout)
	}
	return code, stdout, stderr
}
