package aguiotel_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agui-go/sdk/agui/server"
	aguiotel "github.com/agui-go/sdk/otel"
)

// discardWriter is an http.ResponseWriter (and Flusher) that drops the body.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Flush()                      {}

// benchOptions are the handler's options without the module and with it:
// an SDK tracer provider that samples every span (and exports nowhere)
// and an SDK meter provider with a reader.
func benchOptions(b *testing.B) map[string][]server.HandlerOption {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	obs, err := aguiotel.Server(aguiotel.WithTracerProvider(tp), aguiotel.WithMeterProvider(mp), aguiotel.WithAgentName("bench"))
	if err != nil {
		b.Fatal(err)
	}
	return map[string][]server.HandlerOption{"none": nil, "otel": {server.WithObserver(obs)}}
}

func serve(h http.Handler) {
	req, _ := http.NewRequest(http.MethodPost, "/agent", strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
}

// BenchmarkEmitTextDelta is the server's benchmark of the same name (one
// text delta through the handler's emit path) without the module and with
// it: what the module costs per event.
func BenchmarkEmitTextDelta(b *testing.B) {
	opts := benchOptions(b)
	for _, name := range []string{"none", "otel"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
				m, err := rc.StartTextMessage(server.WithID("msg-1"))
				if err != nil {
					return server.Outcome{}, err
				}
				b.ResetTimer()
				for range b.N {
					if err := m.Append("Hello, wor"); err != nil {
						return server.Outcome{}, err
					}
				}
				b.StopTimer()
				return server.Success(), m.End()
			})
			serve(server.NewHandler(agent, opts[name]...))
		})
	}
}

// BenchmarkRun is one short run through the handler (RUN_STARTED, a text
// message of one delta, a tool call with its result, RUN_FINISHED) without
// the module and with it: what the module costs per run.
func BenchmarkRun(b *testing.B) {
	opts := benchOptions(b)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if _, err := rc.EmitToolCall("weather", map[string]string{"city": "Lisbon"}, "sunny", server.WithID("call-1")); err != nil {
			return server.Outcome{}, err
		}
		return server.Success(), rc.Say("Sunny.")
	})
	for _, name := range []string{"none", "otel"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			h := server.NewHandler(agent, opts[name]...)
			for b.Loop() {
				serve(h)
			}
		})
	}
}
