package genkit

import (
	"context"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/adaptertest"
	"github.com/firebase/genkit/go/ai"
	gk "github.com/firebase/genkit/go/genkit"
)

// BenchmarkPerToken measures what the adapter adds to each streamed token
// over Genkit's own cost. A scripted model (genkit.DefineModel) streams
// tokens chunks of one word each; every iteration runs the same Generate
// call twice, interleaved so that both see the same machine: once as
// Genkit alone, with a streaming callback that drops the chunks, and once
// served as an AG-UI run (server.Run: events built, verified and handed
// over), and the SDK alone serves the same text from a plain agent. It
// reports ns per token of each, what is left for the adapter's own mapping
// (served − Genkit − SDK), and the ratio of served to Genkit alone.
func BenchmarkPerToken(b *testing.B) {
	const tokens = 500
	g := newGenkit(b, "http://127.0.0.1:1/v1/")
	gk.DefineModel(g, "bench/model", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true}},
		func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			for range tokens {
				if err := cb(ctx, &ai.ModelResponseChunk{Content: []*ai.Part{ai.NewTextPart("word ")}}); err != nil {
					return nil, err
				}
			}
			return &ai.ModelResponse{Message: ai.NewModelMessage(ai.NewTextPart("words")), FinishReason: ai.FinishReasonStop,
				Usage: &ai.GenerationUsage{InputTokens: 10, OutputTokens: tokens, TotalTokens: tokens + 10}}, nil
		})
	agent := New(g, WithModelName("bench/model"))
	in := adaptertest.Decode(b, `{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":"Talk."}]}`)
	ctx := context.Background()

	// The SDK alone: an agent that streams the same text without Genkit.
	plain := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for range tokens {
			if err := m.Append("word "); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), m.End()
	})
	drain := func(agent server.Agent[server.NoState]) int {
		contents := 0
		for ev, err := range server.Run(ctx, agent, in) {
			if err != nil {
				b.Fatal(err)
			}
			switch ev.(type) { //agui:nonexhaustive counts the streamed text and checks the end
			case *agui.TextMessageContent:
				contents++
			case *agui.RunError:
				b.Fatalf("run failed: %+v", ev)
			}
		}
		if contents != tokens {
			b.Fatalf("%d TEXT_MESSAGE_CONTENT, want %d", contents, tokens)
		}
		return contents
	}

	var genkitTime, adapterTime, sdkTime time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		n := 0
		_, err := gk.Generate(ctx, g, ai.WithModelName("bench/model"), ai.WithPrompt("Talk."),
			ai.WithStreaming(func(ctx context.Context, c *ai.ModelResponseChunk) error { n++; return nil }))
		if err != nil || n != tokens {
			b.Fatal(err, n)
		}
		genkitTime += time.Since(start)

		start = time.Now()
		drain(agent)
		adapterTime += time.Since(start)

		start = time.Now()
		drain(plain)
		sdkTime += time.Since(start)
	}
	perToken := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N*tokens) }
	b.ReportMetric(perToken(genkitTime), "genkit-ns/token")
	b.ReportMetric(perToken(adapterTime), "served-ns/token")
	b.ReportMetric(perToken(sdkTime), "sdk-ns/token")
	b.ReportMetric(perToken(adapterTime-genkitTime-sdkTime), "adapter-ns/token")
	b.ReportMetric(float64(adapterTime)/float64(genkitTime), "served/genkit")
}
