package openai

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agui-go/sdk/agui/server"
	aguiotel "github.com/agui-go/sdk/otel"
	"github.com/agui-go/sdk/otel/oteltest"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// An adapter run under aguiotel: the backend tool loop of
// TestBackendToolLoop, its OpenAI client's HTTP transport wrapped by
// otelhttp. The run's context carries the invoke_agent span, so each
// request to the model is a client span under it, next to the
// execute_tool span of the backend tool (issue 28).
func TestOtelBackendToolLoop(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	obs, err := aguiotel.Server(aguiotel.WithTracerProvider(tp), aguiotel.WithMeterProvider(mp), aguiotel.WithAgentName("weather"))
	if err != nil {
		t.Fatal(err)
	}

	r := newReplay(t, file(ChatCompletions, "backend_call"), file(ChatCompletions, "text"))
	base := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(base.CloseIdleConnections)
	hc := &http.Client{Transport: otelhttp.NewTransport(base, otelhttp.WithTracerProvider(tp), otelhttp.WithMeterProvider(mp))}
	client := oai.NewClient(option.WithBaseURL(r.Srv.URL+"/v1/"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0), option.WithHTTPClient(hc))
	var w weatherCalls
	agent := New(client, WithAPI(ChatCompletions), WithModel("gpt-4.1-mini"), WithSystemPrompt("You are a weather assistant."), WithState(), w.option())

	s := summarize(runHTTP(t, agent, baseInput, server.WithObserver(obs)))
	if s.Results["call_weather_9"] != `{"sky":"sunny","highC":24}` || len(r.requests()) != 2 {
		t.Fatalf("results %v after %d requests: not the backend tool loop", s.Results, len(r.requests()))
	}

	ended := waitSpans(t, spans, func(ended []sdktrace.ReadOnlySpan) bool {
		return count(ended, "invoke_agent weather") == 1 && count(ended, "HTTP POST") == 2
	})
	run := ended[slices.IndexFunc(ended, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "invoke_agent weather" })]
	for _, s := range ended {
		if s == run {
			continue
		}
		if s.SpanContext().TraceID() != run.SpanContext().TraceID() || s.Parent().SpanID() != run.SpanContext().SpanID() {
			t.Errorf("span %q (trace %s, parent %s) is not a child of the run's span (trace %s, span %s)", s.Name(),
				s.SpanContext().TraceID(), s.Parent().SpanID(), run.SpanContext().TraceID(), run.SpanContext().SpanID())
		}
	}
	for _, name := range []string{"execute_tool get_weather", "HTTP POST"} {
		if count(ended, name) == 0 {
			t.Errorf("no span %q", name)
		}
	}
	otelGolden(t, "otel_chat_backend_call", oteltest.Spans(ended)+"\n"+collect(t, reader, "agui."))
}

// waitSpans waits until the ended spans satisfy done and returns them: an
// otelhttp span ends when its response body is closed, which the run's
// span may beat by a moment.
func waitSpans(t *testing.T, rec *tracetest.SpanRecorder, done func([]sdktrace.ReadOnlySpan) bool) []sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ended := rec.Ended()
		if done(ended) {
			return ended
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spans did not end:\n%s", oteltest.Spans(ended))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func count(spans []sdktrace.ReadOnlySpan, name string) int {
	n := 0
	for _, s := range spans {
		if s.Name() == name {
			n++
		}
	}
	return n
}

// collect writes the points of reader's metrics named with prefix.
func collect(t *testing.T, reader *sdkmetric.ManualReader, prefix string) string {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return oteltest.Metrics(rm, prefix)
}

// otelGolden compares got with testdata/golden/name.golden; with -update it
// rewrites the file instead.
func otelGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
