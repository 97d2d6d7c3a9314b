package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// agui run --reattach reads a durable run again: the whole run, or the events
// after --after.
func TestRunResume(t *testing.T) {
	h := demo.Handler(server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll}))
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	url := srv.URL + "/agent"

	var first bytes.Buffer
	input := `{"threadId":"t","runId":"run-1","messages":[{"id":"u","role":"user","content":"hello"}]}`
	if code := Main([]string{"run", url, "--input", "-", "--json"}, strings.NewReader(input), &first, &bytes.Buffer{}); code != ExitOK {
		t.Fatalf("the first run exited %d", code)
	}
	lines := strings.Split(strings.TrimSpace(first.String()), "\n")
	for _, tc := range []struct {
		name string
		args []string
		want []string
		code int
	}{
		{"whole run", []string{"--reattach", "run-1"}, lines, ExitOK},
		{"after 2", []string{"--reattach", "run-1", "--after", "2"}, lines[2:], ExitOK},
		{"after the last event", []string{"--reattach", "run-1", "--after", strconv.Itoa(len(lines))}, []string{""}, ExitOK},
		{"after past the end", []string{"--reattach", "run-1", "--after", strconv.Itoa(len(lines) + 1)}, []string{""}, ExitRejected},
		{"unknown run", []string{"--reattach", "nope"}, nil, ExitRejected},
		{"after without reattach", []string{"--after", "2"}, nil, ExitUsage},
		{"reattach with a message", []string{"--reattach", "run-1", "--message", "hi"}, nil, ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"run", url, "--json"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, &stderr)
			}
			if tc.want != nil && strings.TrimSpace(stdout.String()) != strings.Join(tc.want, "\n") {
				t.Fatalf("stdout:\n%s\nwant:\n%s", &stdout, strings.Join(tc.want, "\n"))
			}
		})
	}
}
