package aguiotel_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/internal/leakcheck"
	aguiotel "github.com/agui-go/sdk/otel"
	"github.com/agui-go/sdk/otel/oteltest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// No goroutine of a run or of the handler outlives the tests. The runs
// log through slog.Default only when a test gives them no logger.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	leakcheck.Main(m, 5*time.Second)
}

// telemetry is an SDK tracer provider recording every span and a meter
// provider read by hand.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	tel := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tel.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	tel.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		_ = tel.tp.Shutdown(context.Background())
		_ = tel.mp.Shutdown(context.Background())
	})
	return tel
}

func (tel *telemetry) opts() []aguiotel.Option {
	return []aguiotel.Option{aguiotel.WithTracerProvider(tel.tp), aguiotel.WithMeterProvider(tel.mp), aguiotel.WithAgentName("travel")}
}

// handler is the real handler of agent, observed by tel, logging into log.
func (tel *telemetry) handler(t *testing.T, agent server.Agent[server.NoState], log io.Writer, opts ...server.HandlerOption) http.Handler {
	t.Helper()
	obs, err := aguiotel.Server(tel.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	if log == nil {
		log = io.Discard
	}
	logger := slog.New(aguiotel.LogHandler(slog.NewJSONHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	return server.NewHandler(agent, append([]server.HandlerOption{server.WithObserver(obs), server.WithLogger(logger)}, opts...)...)
}

// ended waits for a span named name to end and returns the ended spans.
func (tel *telemetry) ended(t *testing.T, name string) []sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		spans := tel.spans.Ended()
		if slices.ContainsFunc(spans, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == name }) {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("no span %q ended; ended: %d", name, len(spans))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (tel *telemetry) metrics(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

const runSpan = "invoke_agent travel"

func post(t *testing.T, url string, header map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"threadId":"thread-1","runId":"run-1","messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func ptr[T any](v T) *T { return &v }

// spanCtx records the span of the agent's context.
type spanCtx struct {
	mu sync.Mutex
	sc trace.SpanContext
}

func (s *spanCtx) keep(ctx context.Context) {
	s.mu.Lock()
	s.sc = trace.SpanContextFromContext(ctx)
	s.mu.Unlock()
}

func (s *spanCtx) get() trace.SpanContext {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sc
}

// The runs with a fixed telemetry, compared with golden files.
func TestServerGolden(t *testing.T) {
	tests := []struct {
		name  string
		agent func(ctx context.Context, rc *server.Stateless) (server.Outcome, error)
	}{
		{"success", func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			tc, err := rc.StartToolCall("weather", server.WithID("call-1"))
			if err != nil {
				return server.Outcome{}, err
			}
			_ = tc.ArgsJSON(map[string]string{"city": "Lisbon"})
			_ = tc.ResultJSON(map[string]string{"forecast": "sunny"})
			_ = rc.Say("Sunny in Lisbon.")
			return server.Success().WithUsage(
				agui.TokenUsage{Model: ptr("m1"), InputTokens: ptr[int64](12), OutputTokens: ptr[int64](7)},
				agui.TokenUsage{Model: ptr("m2"), InputTokens: ptr[int64](3), OutputTokens: ptr[int64](1), CachedInputTokens: ptr[int64](2)},
			), nil
		}},
		{"interrupt", func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			tc, err := rc.StartToolCall("book", server.WithID("call-2"))
			if err != nil {
				return server.Outcome{}, err
			}
			// A client-side tool: the call ends without a result here.
			if err := tc.End(); err != nil {
				return server.Outcome{}, err
			}
			return server.Interrupted(agui.Interrupt{ID: "int-1", Reason: "approval", ToolCallID: ptr("call-2")}), nil
		}},
		{"failure", func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			_ = rc.Say("Looking.")
			return server.Outcome{}, server.ErrorWithUsage(errors.New("the provider broke off"), agui.TokenUsage{InputTokens: ptr[int64](5)})
		}},
		{"panic", func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			panic("boom")
		}},
		{"violation", func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return server.Success(), rc.Emit(agui.NewTextMessageContent("nope", "x"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tel := newTelemetry(t)
			srv := httptest.NewServer(tel.handler(t, server.Func(tt.agent), nil))
			defer srv.Close()
			resp := post(t, srv.URL, nil)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			spans := tel.ended(t, runSpan)
			golden(t, tt.name, oteltest.Spans(spans)+"\n"+oteltest.Metrics(tel.metrics(t), ""))
		})
	}
}

// An incoming traceparent continues the caller's trace; the agent's
// context carries the run's span, and the run's log records its ids.
func TestServerTraceparent(t *testing.T) {
	tel := newTelemetry(t)
	var agentSpan spanCtx
	var log bytes.Buffer
	var logMu sync.Mutex
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		agentSpan.keep(ctx)
		return server.Outcome{}, errors.New("boom") // logged, with the span's ids
	})
	srv := httptest.NewServer(tel.handler(t, agent, lockedWriter{&logMu, &log}))
	defer srv.Close()
	const traceID, parentID = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	resp := post(t, srv.URL, map[string]string{"Traceparent": "00-" + traceID + "-" + parentID + "-01"})
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	spans := tel.ended(t, runSpan)
	run := find(t, spans, runSpan)
	if got := run.SpanContext().TraceID().String(); got != traceID {
		t.Errorf("trace id %s, want the caller's %s", got, traceID)
	}
	if got := run.Parent().SpanID().String(); got != parentID || !run.Parent().IsRemote() {
		t.Errorf("parent %s (remote %v), want the caller's %s", got, run.Parent().IsRemote(), parentID)
	}
	if run.SpanKind() != trace.SpanKindServer {
		t.Errorf("kind %v", run.SpanKind())
	}
	if got := agentSpan.get(); got.SpanID() != run.SpanContext().SpanID() {
		t.Errorf("the agent's context carries span %s, not the run's %s", got.SpanID(), run.SpanContext().SpanID())
	}
	logMu.Lock()
	defer logMu.Unlock()
	found := false
	for line := range strings.Lines(log.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] == "agui/server: run failed" {
			found = true
			if rec["trace_id"] != traceID || rec["span_id"] != run.SpanContext().SpanID().String() {
				t.Errorf("the run's log record carries trace %v span %v", rec["trace_id"], rec["span_id"])
			}
		}
	}
	if !found {
		t.Errorf("no record of the failure in the log:\n%s", log.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(b)
}

// A client that leaves mid-run: the span says the run was cancelled, and
// the metrics count it.
func TestServerDisconnect(t *testing.T) {
	tel := newTelemetry(t)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("first"); err != nil {
			return server.Outcome{}, err
		}
		<-ctx.Done()
		return server.Outcome{}, ctx.Err()
	})
	srv := httptest.NewServer(tel.handler(t, agent, nil))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"threadId":"thread-1","runId":"run-1","messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readFrames(t, resp.Body, 4) // RUN_STARTED and the message
	cancel()
	resp.Body.Close()
	run := find(t, tel.ended(t, runSpan), runSpan)
	attrs := attrMap(run.Attributes())
	if o := attrs["agui.run.outcome"]; o != "error" && o != "disconnected" {
		t.Errorf("outcome %q", o)
	}
	if c := attrs["error.type"]; c != "CANCELLED" && c != "DISCONNECTED" {
		t.Errorf("error.type %q", c)
	}
	if !slices.ContainsFunc(run.Events(), func(e sdktrace.Event) bool {
		return e.Name == "agui.cancelled" && attrMap(e.Attributes)["agui.cause"] == server.ErrClientDisconnected.Error()
	}) {
		t.Errorf("no agui.cancelled event naming the client: %v", run.Events())
	}
	if run.Status().Code.String() != "Error" {
		t.Errorf("status %v", run.Status())
	}
	rm := tel.metrics(t)
	if n := sumOf(rm, "agui.server.runs.active"); n != 0 {
		t.Errorf("%d runs still active", n)
	}
	if n := sumOf(rm, "agui.server.runs"); n != 1 {
		t.Errorf("%d runs counted", n)
	}
}

// A durable run stopped through the cancel route ends with the cancelled
// outcome: not a failure. A reader that reattaches is a replay.
func TestServerCancelRouteAndReplay(t *testing.T) {
	tel := newTelemetry(t)
	started := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("working"); err != nil {
			return server.Outcome{}, err
		}
		close(started)
		<-ctx.Done()
		return server.Outcome{}, ctx.Err()
	})
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", tel.handler(t, agent, nil,
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp := post(t, srv.URL+"/agent", nil)
	defer resp.Body.Close()
	<-started
	cresp, err := http.Post(srv.URL+"/agent/runs/run-1/cancel", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	cresp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	find(t, tel.ended(t, runSpan), runSpan)

	rreq, _ := http.NewRequest(http.MethodGet, srv.URL+"/agent/runs/run-1/events?after=2", nil)
	rresp, err := http.DefaultClient.Do(rreq)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, rresp.Body)
	rresp.Body.Close()
	golden(t, "cancel_route", oteltest.Spans(tel.ended(t, "agui.replay"))+"\n"+oteltest.Metrics(tel.metrics(t), ""))
}

// The client's run is the parent of the server's: its request carries the
// trace context.
func TestClientServer(t *testing.T) {
	tel := newTelemetry(t)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say("Hello!")
	})
	srv := httptest.NewServer(tel.handler(t, agent, nil))
	defer srv.Close()
	obs, err := aguiotel.Client(tel.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(srv.URL, client.WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range c.Run(t.Context(), &agui.RunAgentInput{ThreadID: "thread-1", RunID: "run-1"}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	spans := tel.ended(t, runSpan)
	var cl, sv sdktrace.ReadOnlySpan
	for _, s := range spans {
		switch s.SpanKind() {
		case trace.SpanKindClient:
			cl = s
		case trace.SpanKindServer:
			sv = s
		default:
		}
	}
	if cl == nil || sv == nil {
		t.Fatalf("spans %s", oteltest.Spans(spans))
	}
	if sv.Parent().SpanID() != cl.SpanContext().SpanID() || sv.SpanContext().TraceID() != cl.SpanContext().TraceID() {
		t.Errorf("the server's span is not the client's child")
	}
	golden(t, "client", oteltest.Spans([]sdktrace.ReadOnlySpan{cl})+"\n"+oteltest.Metrics(tel.metrics(t), "agui.client."))
}

// readFrames reads n SSE frames.
func readFrames(t *testing.T, r io.Reader, n int) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for got := 0; got < n && sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "data: ") {
			got++
		}
	}
}

func find(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range spans {
		if s.Name() == name {
			return s
		}
	}
	t.Fatalf("no span %q", name)
	return nil
}

func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// sumOf is the total of a sum's points.
func sumOf(rm metricdata.ResourceMetrics, name string) int64 {
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if d, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == name {
				for _, p := range d.DataPoints {
					n += p.Value
				}
			}
		}
	}
	return n
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to rewrite it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// A thread's connect streams are spans of their own: one after a run
// ended (the history replayed, no live run), one while a run is live (the
// history, then the live run followed to its end), and one whose reader
// leaves before the live run ends.
func TestServerThreadConnect(t *testing.T) {
	tel := newTelemetry(t)
	gate := make(chan struct{})
	live := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("turn " + rc.Input().RunID); err != nil {
			return server.Outcome{}, err
		}
		switch rc.Input().RunID {
		case "run-2": // live until the gate opens
			live <- struct{}{}
			<-gate
		case "run-3": // live until cancelled
			live <- struct{}{}
			<-ctx.Done()
			return server.Outcome{}, ctx.Err()
		}
		return server.Success(), nil
	})
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", tel.handler(t, agent, nil,
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	run := func(id string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/agent", strings.NewReader(`{"threadId":"thread-1","runId":"`+id+`","messages":[]}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	connect := func(ctx context.Context) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/agent/threads/thread-1/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("connect: %d", resp.StatusCode)
		}
		return resp
	}
	connects := func(n int) []sdktrace.ReadOnlySpan {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) { // a hang guard
			var got []sdktrace.ReadOnlySpan
			for _, s := range tel.spans.Ended() {
				if s.Name() == "agui.connect" {
					got = append(got, s)
				}
			}
			if len(got) >= n || time.Now().After(deadline) {
				return got
			}
		}
	}
	drain := func(resp *http.Response) {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	// After a run ended: the history alone.
	drain(run("run-1"))
	drain(connect(t.Context()))
	connects(1)

	// While a run is live: the history, then the run to its end.
	r2 := run("run-2")
	<-live
	c := connect(t.Context())
	readFrames(t, c.Body, 1)
	close(gate)
	drain(c)
	drain(r2)
	connects(2)

	// A reader that leaves while the run is live.
	r3 := run("run-3")
	<-live
	ctx, cancel := context.WithCancel(t.Context())
	c = connect(ctx)
	readFrames(t, c.Body, 1)
	cancel()
	c.Body.Close()
	spans := connects(3)
	cresp, err := http.Post(srv.URL+"/agent/runs/run-3/cancel", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	cresp.Body.Close()
	drain(r3)
	golden(t, "thread_connect", oteltest.Spans(spans)+"\n"+oteltest.Metrics(tel.metrics(t), "agui.server.connects"))
}
