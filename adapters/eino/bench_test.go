package eino

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// repeat is a model implementing Eino's model interface that streams the
// same reply on every call: tokens chunks of text, then the usage.
type repeat struct{ chunks []*schema.Message }

func newRepeat(tokens int) *repeat {
	r := &repeat{}
	for range tokens {
		r.chunks = append(r.chunks, &schema.Message{Role: schema.Assistant, Content: " word"})
	}
	r.chunks = append(r.chunks, &schema.Message{Role: schema.Assistant, ResponseMeta: &schema.ResponseMeta{
		FinishReason: "stop", Usage: &schema.TokenUsage{PromptTokens: 10, CompletionTokens: tokens, TotalTokens: 10 + tokens}}})
	return r
}

func (r *repeat) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return schema.ConcatMessages(r.chunks)
}

func (r *repeat) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray(r.chunks), nil
}

func (r *repeat) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return r, nil }

// discard is a client that reads the stream as fast as it is written and
// keeps only its last bytes.
type discard struct {
	header http.Header
	code   int
	tail   []byte
}

func (d *discard) Header() http.Header { return d.header }
func (d *discard) WriteHeader(code int) {
	if d.code == 0 {
		d.code = code
	}
}
func (d *discard) Flush() {}
func (d *discard) Write(p []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	if len(p) > 256 {
		p = p[len(p)-256:]
	}
	d.tail = append(d.tail[:0], p...)
	return len(p), nil
}

// BenchmarkStream is the cost of a streamed token: "eino" is Eino's own
// (a ChatModelAgent on a model that streams from memory, built and run by
// its Runner, every chunk received), "agui" the same agent served by the
// adapter through the AG-UI handler, the SSE stream written to a client that discards it.
// The agui side reports its ns/token as a ratio over the eino side's of the
// same run (adapter-x).
func BenchmarkStream(b *testing.B) {
	const tokens = 1000
	m := newRepeat(tokens)
	cfg := &adk.ChatModelAgentConfig{Name: "assistant", Description: "An assistant.", Model: m}
	ctx := context.Background()
	var einoNs float64
	b.Run("eino", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			agent, err := adk.NewChatModelAgent(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: true})
			events := runner.Query(ctx, "What is the weather in Paris?")
			n := 0
			for {
				ev, ok := events.Next()
				if !ok {
					break
				}
				if ev.Err != nil {
					b.Fatal(ev.Err)
				}
				if mv := message(ev); mv != nil && mv.MessageStream != nil {
					for {
						chunk, err := mv.MessageStream.Recv()
						if err != nil {
							break
						}
						if chunk.Content != "" {
							n++
						}
					}
				}
			}
			if n != tokens {
				b.Fatalf("%d tokens, want %d", n, tokens)
			}
		}
		einoNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N) / tokens
		b.ReportMetric(einoNs, "ns/token")
	})
	b.Run("agui", func(b *testing.B) {
		b.ReportAllocs()
		h := server.NewHandler(New(ChatModel(cfg)))
		const input = `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"What is the weather in Paris?"}]}`
		for b.Loop() {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(input))
			req.Header.Set("Content-Type", "application/json")
			w := &discard{header: http.Header{}}
			h.ServeHTTP(w, req)
			if w.code != http.StatusOK || !strings.Contains(string(w.tail), "RUN_FINISHED") {
				b.Fatalf("HTTP %d: %s", w.code, w.tail)
			}
		}
		ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / tokens
		b.ReportMetric(ns, "ns/token")
		if einoNs > 0 {
			b.ReportMetric(ns/einoNs, "adapter-x")
		}
	})
}
