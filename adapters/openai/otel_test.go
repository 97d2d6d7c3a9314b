package openai

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agui-go/sdk/agui/server"
	aguiotel "github.com/agui-go/sdk/otel"
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
	otelGolden(t, "otel_chat_backend_call", dumpSpans(ended)+"\n"+dumpMetrics(reader, "agui."))
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
			t.Fatalf("the spans did not end:\n%s", dumpSpans(ended))
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

// dumpSpans writes spans as otel/otel_test.go's helper of the same name
// does, with what varies from run to run (ids, times, the replay server's
// port, random message ids' bytes) left out: each span's name, kind,
// parent's name, status, sorted attributes and events; spans of one name in
// the order they started.
func dumpSpans(spans []sdktrace.ReadOnlySpan) string {
	names := map[trace.SpanID]string{}
	for _, s := range spans {
		names[s.SpanContext().SpanID()] = s.Name()
	}
	spans = slices.Clone(spans)
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int {
		if c := strings.Compare(a.Name(), b.Name()); c != 0 {
			return c
		}
		return a.StartTime().Compare(b.StartTime())
	})
	var b strings.Builder
	for _, s := range spans {
		parent := "-"
		if p := s.Parent(); p.IsValid() {
			parent = names[p.SpanID()]
			if parent == "" {
				parent = "(outside)"
			}
		}
		fmt.Fprintf(&b, "span %q kind=%s parent=%q status=%s", s.Name(), s.SpanKind(), parent, s.Status().Code)
		if d := s.Status().Description; d != "" {
			fmt.Fprintf(&b, " %q", d)
		}
		b.WriteString("\n")
		writeAttrs(&b, "  ", s.Attributes())
		for _, e := range s.Events() {
			fmt.Fprintf(&b, "  event %q\n", e.Name)
			writeAttrs(&b, "    ", e.Attributes)
		}
	}
	return b.String()
}

func writeAttrs(b *strings.Builder, indent string, kvs []attribute.KeyValue) {
	kvs = slices.Clone(kvs)
	slices.SortFunc(kvs, func(x, y attribute.KeyValue) int { return strings.Compare(string(x.Key), string(y.Key)) })
	for _, kv := range kvs {
		v := kv.Value.Emit()
		switch kv.Key {
		case "exception.stacktrace":
			v = "<stack>"
		case "agui.run.bytes":
			v = "<bytes>" // message ids are random
		case "server.port":
			v = "<port>"
		case "url.full":
			v = "http://127.0.0.1:<port>" + v[strings.Index(v[len("http://"):], "/")+len("http://"):]
		default:
		}
		fmt.Fprintf(b, "%s%s=%s\n", indent, kv.Key, v)
	}
}

// dumpMetrics writes the points of the metrics named with prefix: a sum's
// value, a histogram's count (and its sum for the counts of events).
func dumpMetrics(reader *sdkmetric.ManualReader, prefix string) string {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		return "collect: " + err.Error() + "\n"
	}
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if !strings.HasPrefix(m.Name, prefix) {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					lines = append(lines, fmt.Sprintf("%s %s value=%d", m.Name, setString(p.Attributes), p.Value))
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					line := fmt.Sprintf("%s %s count=%d", m.Name, setString(p.Attributes), p.Count)
					if strings.HasSuffix(m.Name, ".events") {
						line += fmt.Sprintf(" sum=%d", p.Sum)
					}
					lines = append(lines, line)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					lines = append(lines, fmt.Sprintf("%s %s count=%d", m.Name, setString(p.Attributes), p.Count))
				}
			default:
				lines = append(lines, fmt.Sprintf("%s %T", m.Name, d))
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

func setString(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.Emit())
	}
	return "{" + strings.Join(parts, ",") + "}"
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
