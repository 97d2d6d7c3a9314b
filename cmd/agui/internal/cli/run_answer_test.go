package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// seatsURL serves an agent that asks how many seats to book, as interrupt
// "seats" with a response schema, and on the run that answers it says what
// the answer was: "seats: PAYLOAD", or "seats: declined".
func seatsURL(t *testing.T) string {
	t.Helper()
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if r := rc.Resume(); len(r) > 0 {
			if r[0].Status == agui.ResumeStatusCancelled {
				return server.Success(), rc.Say("seats: declined")
			}
			return server.Success(), rc.Say("seats: " + string(r[0].Payload))
		}
		q := server.NewInterrupt("input", "How many seats?")
		q.ID = "seats"
		q.ResponseSchema = json.RawMessage(`{"type":"object","properties":{"seats":{"type":"integer"}}}`)
		return server.Interrupted(q), rc.Say("I need a number.")
	})
	srv := httptest.NewServer(server.NewHandler(agent))
	t.Cleanup(srv.Close)
	return srv.URL
}

// agui run answers interrupts from its flags or by asking, and runs the
// thread again until a run ends otherwise.
func TestRunAnswersInterrupts(t *testing.T) {
	demo, seats := demoURL(t), seatsURL(t)
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout []string // substrings, in order
		stderr []string
		not    []string // absent from stdout
	}{
		{"approve", []string{demo, "--message", "interrupt me", "--approve"}, "", ExitOK,
			[]string{"finished: interrupted", "⏸ interrupt", "Booked: a table for two at 8pm.", "finished: success"},
			[]string{"answering interrupt", "(approved)"}, nil},
		{"decline", []string{demo, "--message", "interrupt me", "--decline"}, "", ExitOK,
			[]string{"finished: interrupted", "Understood, I will not book.", "finished: success"},
			[]string{"(declined)"}, []string{"Booked"}},
		{"resume with a payload", []string{seats, "--message", "book", "--resume-with", `seats={"seats":4}`}, "", ExitOK,
			[]string{"I need a number.", "finished: interrupted", `seats: {"seats":4}`, "finished: success"},
			[]string{`answering interrupt seats with {"seats":4}`}, nil},
		{"a payload wins over --decline", []string{seats, "--message", "book", "--decline", "--resume-with", "seats=2"}, "", ExitOK,
			[]string{"seats: 2"}, nil, []string{"declined"}},
		{"no answer for the interrupt", []string{seats, "--message", "book", "--resume-with", "table=1"}, "", ExitRejected,
			[]string{"finished: interrupted"},
			[]string{"no answer for interrupt seats (input: How many seats?)", "--resume-with table: no interrupt had this id"}, []string{"seats:"}},
		{"ask: yes", []string{demo, "--message", "interrupt me", "--ask"}, "y\n", ExitOK,
			[]string{"Booked"}, []string{"approval: Book a table for two at 8pm?", "y approves, n declines"}, nil},
		{"ask: no", []string{demo, "--message", "interrupt me", "--ask"}, "no\n", ExitOK,
			[]string{"Understood, I will not book."}, nil, nil},
		{"ask: a payload after a wrong line", []string{seats, "--message", "book", "--ask"}, "four\n{\"seats\":4}\n", ExitOK,
			[]string{`seats: {"seats":4}`}, []string{`the answer's schema: {"type":"object"`, `"four" is neither y, n nor a JSON value`}, nil},
		{"ask: the input ends", []string{demo, "--message", "interrupt me", "--ask"}, "", ExitOK,
			[]string{"finished: interrupted"}, []string{"the input ended"}, []string{"Booked", "Understood"}},
		{"no answer wanted", []string{demo, "--message", "interrupt me"}, "", ExitOK,
			[]string{"finished: interrupted", "⏸ interrupt"}, nil, []string{"Booked", "Understood"}},
		{"the old flag", []string{demo, "--resume", "r"}, "", ExitUsage, nil, []string{"--resume is now --reattach"}, nil},
		{"approve and decline", []string{demo, "--approve", "--decline"}, "", ExitUsage, nil, []string{"exclude each other"}, nil},
		{"answers for a reattached run", []string{demo, "--reattach", "r", "--approve"}, "", ExitUsage, nil, []string{"need a run this command starts"}, nil},
		{"--final - with --json", []string{demo, "--json", "--final", "-"}, "", ExitUsage, nil, []string{"give --final a file"}, nil},
		{"a payload that is not JSON", []string{demo, "--resume-with", "seats=four"}, "", ExitUsage, nil, []string{"is not a JSON value"}, nil},
		{"a null payload", []string{demo, "--resume-with", "seats=null"}, "", ExitUsage, nil, []string{"null is not an answer"}, nil},
		{"no id", []string{demo, "--resume-with", "=1"}, "", ExitUsage, nil, []string{"want ID=JSON"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, tc.args, tc.stdin)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			rest := stdout.String()
			for _, s := range tc.stdout {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Fatalf("stdout lacks %q after what came before:\n%s\nstderr:\n%s", s, stdout, stderr)
				}
				rest = rest[i+len(s):]
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(stdout.String(), s) {
					t.Errorf("stdout has %q:\n%s", s, stdout)
				}
			}
		})
	}
}

// --final writes the thread after the last run as an input document, and
// --input with --message continues it: a conversation over three runs from
// the shell.
func TestRunFinalContinuesTheThread(t *testing.T) {
	url := demoURL(t)
	file := filepath.Join(t.TempDir(), "thread.json")
	if code, _, stderr := runMain(t, []string{url, "--message", "interrupt me", "--approve", "--thread", "th-final", "--final", file}, ""); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var doc struct {
		ThreadID string `json:"threadId"`
		Messages []struct {
			Role    string
			Content any
		}
		State map[string]any
	}
	read := func() {
		t.Helper()
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%v in %s", err, data)
		}
	}
	read()
	texts := func() string {
		var b strings.Builder
		for _, m := range doc.Messages {
			fmt.Fprintf(&b, "%s: %v\n", m.Role, m.Content)
		}
		return b.String()
	}
	if doc.ThreadID != "th-final" || !strings.Contains(texts(), "user: interrupt me") || !strings.Contains(texts(), "Booked: a table for two at 8pm.") {
		t.Fatalf("thread %q, messages:\n%s", doc.ThreadID, texts())
	}
	if doc.State["approved"] != true {
		t.Fatalf("state %v, want the approval the second run recorded", doc.State)
	}
	before := len(doc.Messages)
	if code, _, stderr := runMain(t, []string{url, "--input", file, "--message", "weather in Paris?", "--final", file}, ""); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	read()
	if doc.ThreadID != "th-final" || len(doc.Messages) <= before+1 || !strings.Contains(texts(), "user: weather in Paris?") ||
		!strings.Contains(texts(), "user: interrupt me") || strings.Contains(texts(), "activity:") {
		t.Fatalf("after the next turn: thread %q, messages:\n%s", doc.ThreadID, texts())
	}
}

// On a real terminal agui run asks without being told to. The command runs
// under script(1), which gives it a pseudo-terminal as standard input and
// types what the test writes.
func TestRunAsksOnATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("script(1) is util-linux's")
	}
	script, err := exec.LookPath("script")
	if err != nil {
		t.Fatal("script(1) is part of Debian's essential bsdutils; without it this test cannot give the command a terminal:", err)
	}
	bin := filepath.Join(t.TempDir(), "agui")
	build := []string{"build", "-o", bin}
	if raceEnabled {
		build = append(build, "-race") // as this test was built: the packages come from the cache
	}
	if out, err := exec.Command("go", append(build, "github.com/agui-go/sdk/cmd/agui")...).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	url := demoURL(t)
	cmd := exec.CommandContext(t.Context(), script, "-qec", bin+" run "+url+" --message 'interrupt me'", "/dev/null")
	cmd.Stdin = strings.NewReader("y\n")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, &out)
	}
	for _, s := range []string{"y approves, n declines", "answering interrupt", "Booked: a table for two at 8pm."} {
		if !strings.Contains(out.String(), s) {
			t.Fatalf("the terminal shows no %q:\n%s", s, &out)
		}
	}
}
