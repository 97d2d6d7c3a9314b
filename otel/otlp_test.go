package aguiotel_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"maps"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
	aguiotel "github.com/agui-go/sdk/otel"
	"github.com/agui-go/sdk/otel/otlptest"
)

// A real run, client and server, exported over OTLP/HTTP by the SDK's
// batching span processor and periodic metric reader to a local receiver
// that decodes the protobuf export requests: the run's invoke_agent span,
// its tool call's execute_tool child and the client's span arrive with
// their attributes, parentage and resource, and so do the run's metrics.
// The traces go gzipped, the metrics plain, so that both encodings cross.
func TestOTLPExport(t *testing.T) {
	rec := otlptest.NewReceiver()
	defer rec.Close()
	ctx := t.Context()
	texp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(rec.URL+"/v1/traces"), otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
	if err != nil {
		t.Fatal(err)
	}
	mexp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(rec.URL+"/v1/metrics"))
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "aguiotel-e2e"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(texp), sdktrace.WithResource(res))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)), sdkmetric.WithResource(res))
	opts := []aguiotel.Option{aguiotel.WithTracerProvider(tp), aguiotel.WithMeterProvider(mp), aguiotel.WithAgentName("travel")}

	sobs, err := aguiotel.Server(opts...)
	if err != nil {
		t.Fatal(err)
	}
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		tc, err := rc.StartToolCall("weather", server.WithID("call-1"))
		if err != nil {
			return server.Outcome{}, err
		}
		_ = tc.ArgsJSON(map[string]string{"city": "Lisbon"})
		_ = tc.ResultJSON(map[string]string{"forecast": "sunny"})
		_ = rc.Say("Sunny in Lisbon.")
		return server.Success().WithUsage(agui.TokenUsage{InputTokens: ptr[int64](12), OutputTokens: ptr[int64](7)}), nil
	})
	srv := httptest.NewServer(server.NewHandler(agent, server.WithObserver(sobs)))
	defer srv.Close()
	cobs, err := aguiotel.Client(opts...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(srv.URL, client.WithObserver(cobs))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range c.Run(ctx, &agui.RunAgentInput{ThreadID: "thread-1", RunID: "run-1"}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The run has ended on both sides: the client's span when the stream
	// ended, the server's before its last frame was written. Shutting the
	// providers down flushes both to the receiver.
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatalf("flushing the spans: %v", err)
	}
	if err := mp.Shutdown(ctx); err != nil {
		t.Fatalf("flushing the metrics: %v", err)
	}
	if err := rec.Err(); err != nil {
		t.Fatalf("the receiver refused: %v", err)
	}

	var run, tool, cl *otlptest.Span
	spans := rec.Spans()
	for i, s := range spans {
		switch {
		case s.GetName() == runSpan && s.GetKind() == tracepb.Span_SPAN_KIND_SERVER:
			run = &spans[i]
		case s.GetName() == runSpan && s.GetKind() == tracepb.Span_SPAN_KIND_CLIENT:
			cl = &spans[i]
		case s.GetName() == "execute_tool weather":
			tool = &spans[i]
		}
	}
	if run == nil || tool == nil || cl == nil {
		t.Fatalf("received %d spans; server run %v, tool %v, client run %v", len(spans), run != nil, tool != nil, cl != nil)
	}
	for k, want := range map[string]string{
		"gen_ai.operation.name":      "invoke_agent",
		"gen_ai.agent.name":          "travel",
		"gen_ai.conversation.id":     "thread-1",
		"agui.run.id":                "run-1",
		"agui.run.outcome":           "success",
		"agui.run.events":            "9",
		"gen_ai.usage.input_tokens":  "12",
		"gen_ai.usage.output_tokens": "7",
	} {
		if got, ok := run.Attrs()[k]; !ok || got != want {
			t.Errorf("the run's span: %s = %q (present %v), want %q", k, got, ok, want)
		}
	}
	if got := tool.Attrs()["gen_ai.tool.call.id"]; got != "call-1" {
		t.Errorf("the tool's span: gen_ai.tool.call.id = %q", got)
	}
	if !bytes.Equal(tool.GetParentSpanId(), run.GetSpanId()) || !bytes.Equal(tool.GetTraceId(), run.GetTraceId()) {
		t.Errorf("the tool's span is not the run's child")
	}
	if !bytes.Equal(run.GetParentSpanId(), cl.GetSpanId()) || !bytes.Equal(run.GetTraceId(), cl.GetTraceId()) {
		t.Errorf("the server's span (trace %s) is not the client's (trace %s) child", hex.EncodeToString(run.GetTraceId()), hex.EncodeToString(cl.GetTraceId()))
	}
	if got := otlptest.Attrs(run.Resource.GetAttributes())["service.name"]; got != "aguiotel-e2e" {
		t.Errorf("resource service.name = %q", got)
	}
	if got := run.Scope.GetName(); got != "github.com/agui-go/sdk/otel" {
		t.Errorf("scope %q", got)
	}

	// The last export of each metric holds its totals (cumulative).
	last := map[string]otlptest.Metric{}
	for _, m := range rec.Metrics() {
		last[m.GetName()] = m
	}
	for _, tc := range []struct {
		name  string
		attrs map[string]string
		want  int64
	}{
		{"agui.server.runs", map[string]string{"agui.run.outcome": "success", "gen_ai.agent.name": "travel"}, 1},
		{"agui.server.runs.active", map[string]string{"gen_ai.agent.name": "travel"}, 0},
		{"agui.client.runs", map[string]string{"agui.run.outcome": "success", "gen_ai.agent.name": "travel"}, 1},
	} {
		m, ok := last[tc.name]
		if !ok {
			t.Errorf("no metric %s received", tc.name)
			continue
		}
		pts := m.GetSum().GetDataPoints()
		if len(pts) != 1 || pts[0].GetAsInt() != tc.want || !maps.Equal(otlptest.Attrs(pts[0].GetAttributes()), tc.attrs) {
			t.Errorf("%s: points %v, want one of %d with %v", tc.name, pts, tc.want, tc.attrs)
		}
	}
	for _, name := range []string{"agui.server.run.duration", "agui.server.run.time_to_first_event", "agui.client.run.duration"} {
		m, ok := last[name]
		if !ok {
			t.Errorf("no metric %s received", name)
			continue
		}
		if pts := m.GetHistogram().GetDataPoints(); len(pts) != 1 || pts[0].GetCount() != 1 || m.GetUnit() != "s" {
			t.Errorf("%s (unit %q): points %v, want one of count 1", name, m.GetUnit(), pts)
		}
	}
	if pts := last["agui.server.run.events"].GetHistogram().GetDataPoints(); len(pts) != 1 || pts[0].GetSum() != 9 {
		t.Errorf("agui.server.run.events: points %v, want one summing 9", pts)
	}
}
