package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// agui run --thread T --connect shows a thread's history as one replayed
// run: the messages and state a run left.
func TestRunConnect(t *testing.T) {
	h := demo.Handler(server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll}))
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	url := srv.URL + "/agent"

	input := `{"threadId":"t","runId":"run-1","messages":[{"id":"u","role":"user","content":"hello"}]}`
	if code := Main([]string{"run", url, "--input", "-", "--json"}, strings.NewReader(input), &bytes.Buffer{}, &bytes.Buffer{}); code != ExitOK {
		t.Fatalf("the first run exited %d", code)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"run", url, "--thread", "t", "--connect", "--json"}, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("connect exited %d\n%s", code, &stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) < 4 || !strings.Contains(lines[0], `"RUN_STARTED"`) || !strings.Contains(lines[1], `"MESSAGES_SNAPSHOT"`) ||
		!strings.Contains(lines[1], `"id":"u"`) || !strings.Contains(lines[len(lines)-1], `"RUN_FINISHED"`) {
		t.Fatalf("stdout:\n%s", &stdout)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"unknown thread", []string{"--thread", "nope", "--connect"}, ExitRejected},
		{"no thread", []string{"--connect"}, ExitUsage},
		{"with a message", []string{"--thread", "t", "--connect", "--message", "hi"}, ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := Main(append([]string{"run", url}, tc.args...), strings.NewReader(""), &bytes.Buffer{}, &stderr); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, &stderr)
			}
		})
	}
}
