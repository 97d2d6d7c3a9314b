package cli

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agui-go/sdk/otel/otlptest"
)

// `agui demo --exercise --otel` exports the exercise's runs over OTLP/HTTP
// to the endpoint of OTEL_EXPORTER_OTLP_ENDPOINT, a local receiver here,
// and flushes them before it exits: each run's "invoke_agent demo" span
// arrives with its thread, run id and outcome, the tour's tool call as an
// execute_tool child of its run, the run metrics under the resource
// agui-demo, and the demo's log record of the failed run carries that
// run's trace and span ids.
func TestDemoOTel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rec := otlptest.NewReceiver()
	defer rec.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.URL)
	var log syncBuffer
	saved := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&log, nil)))
	defer slog.SetDefault(saved)

	var stdout, stderr bytes.Buffer
	if code := Main([]string{"demo", "--exercise", "--otel"}, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, &stdout, &stderr)
	}
	if err := rec.Err(); err != nil {
		t.Fatalf("the receiver refused: %v", err)
	}

	runs := map[string]otlptest.Span{}
	var tools []otlptest.Span
	for _, s := range rec.Spans() {
		switch {
		case s.GetName() == "invoke_agent demo":
			runs[s.Attrs()["agui.run.id"]] = s
		case strings.HasPrefix(s.GetName(), "execute_tool "):
			tools = append(tools, s)
		}
	}
	for _, tc := range []struct {
		run, thread string
		outcomes    []string // the abandoned run may be seen gone or cancelled
	}{
		{"r-tour", "t-tour", []string{"success"}},
		{"r-hitl-1", "t-hitl", []string{"interrupt"}},
		{"r-hitl-2", "t-hitl", []string{"success"}},
		{"r-fail", "t-fail", []string{"error"}},
		{"r-slow", "t-slow", []string{"error", "disconnected"}},
	} {
		s, ok := runs[tc.run]
		if !ok {
			t.Errorf("no span of run %s; runs seen: %v", tc.run, slices.Sorted(maps.Keys(runs)))
			continue
		}
		a := s.Attrs()
		if a["gen_ai.conversation.id"] != tc.thread || a["gen_ai.agent.name"] != "demo" || !slices.Contains(tc.outcomes, a["agui.run.outcome"]) {
			t.Errorf("run %s: attributes %v, want thread %s, agent demo, outcome in %v", tc.run, a, tc.thread, tc.outcomes)
		}
		if got := otlptest.Attrs(s.Resource.GetAttributes())["service.name"]; got != "agui-demo" {
			t.Errorf("run %s: service.name %q", tc.run, got)
		}
	}
	if a := runs["r-fail"].Attrs(); a["error.type"] != "AGENT_ERROR" {
		t.Errorf("the failed run's error.type is %q", a["error.type"])
	}
	tour := runs["r-tour"]
	found := false
	for _, s := range tools {
		if s.GetName() == "execute_tool get_weather" && bytes.Equal(s.GetParentSpanId(), tour.GetSpanId()) && bytes.Equal(s.GetTraceId(), tour.GetTraceId()) {
			found = true
		}
	}
	if !found {
		t.Errorf("no execute_tool get_weather span under the tour's run among %d tool spans", len(tools))
	}

	var counted int64
	for _, m := range rec.Metrics() {
		if m.GetName() == "agui.server.runs" {
			counted = 0 // cumulative: the last export holds the totals
			for _, p := range m.GetSum().GetDataPoints() {
				counted += p.GetAsInt()
			}
		}
	}
	if counted != 5 {
		t.Errorf("agui.server.runs counts %d runs, want the exercise's 5", counted)
	}

	failed := false
	for line := range strings.Lines(log.String()) {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if r["msg"] == "agui/server: run failed" && r["runId"] == "r-fail" {
			failed = true
			fail := runs["r-fail"]
			if r["trace_id"] != hex.EncodeToString(fail.GetTraceId()) || r["span_id"] != hex.EncodeToString(fail.GetSpanId()) {
				t.Errorf("the failed run's log record carries trace %v span %v, not its span's", r["trace_id"], r["span_id"])
			}
		}
	}
	if !failed {
		t.Errorf("no log record of the failed run:\n%s", log.String())
	}
}

// A gRPC protocol in the environment is refused at once: the demo speaks
// OTLP over HTTP only.
func TestDemoOTelGRPC(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"demo", "--exercise", "--otel"}, strings.NewReader(""), &stdout, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), "OTLP over HTTP") {
		t.Fatalf("exit %d, stderr %q", code, &stderr)
	}
}

// `agui demo --otel` serving until Ctrl-C flushes on exit what it holds:
// the span of a run served a moment before is at the receiver once the
// command has returned, and nothing leaks.
func TestDemoOTelServe(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rec := otlptest.NewReceiver()
	defer rec.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.URL)
	t.Setenv("OTEL_SERVICE_NAME", "my-demo")
	url, stop := serveDemo(t, "--otel")
	body := `{"threadId":"t","runId":"served","messages":[{"id":"u","role":"user","content":"hello"}]}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		stop()
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	if code, stderr := stop(); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var run *otlptest.Span
	for _, s := range rec.Spans() {
		if s.GetName() == "invoke_agent demo" && s.Attrs()["agui.run.id"] == "served" {
			run = &s
		}
	}
	if run == nil {
		t.Fatalf("no span of the served run among %d", len(rec.Spans()))
	}
	if got := otlptest.Attrs(run.Resource.GetAttributes())["service.name"]; got != "my-demo" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", got)
	}
}

// An export refused at the exit's flush (here a 404: the traces endpoint
// names no OTLP route) makes the exit status 1 and says why, although
// every scenario ended as expected.
func TestDemoOTelFlushFails(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rec := otlptest.NewReceiver()
	defer rec.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rec.URL+"/not-otlp")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"demo", "--exercise", "--otel"}, strings.NewReader(""), &stdout, &stderr)
	if code != ExitRejected || !strings.Contains(stderr.String(), "agui demo: --otel: flushing the spans") {
		t.Fatalf("exit %d, stderr %q", code, &stderr)
	}
	if !strings.Contains(stdout.String(), "All scenarios ended as expected.") {
		t.Errorf("stdout:\n%s", &stdout)
	}
}
