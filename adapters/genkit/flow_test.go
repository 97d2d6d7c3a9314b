package genkit

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	gk "github.com/firebase/genkit/go/genkit"
)

// chatFlow defines a streaming flow that answers with Generate on the
// replayed model, its backend tools given, streaming what Genkit streams.
func chatFlow(g *gk.Genkit, tools ...ai.ToolRef) *core.Flow[*Input, *ai.ModelResponse, *ai.ModelResponseChunk] {
	return gk.DefineStreamingFlow(g, "chat",
		func(ctx context.Context, in *Input, cb core.StreamCallback[*ai.ModelResponseChunk]) (*ai.ModelResponse, error) {
			opts := append(in.Options(tools...), ai.WithModelName(modelName), ai.WithStreaming(cb))
			return gk.Generate(ctx, g, opts...)
		})
}

// A streaming flow runs Genkit's tool loop like a Generate call does.
func TestFlowBackendToolLoop(t *testing.T) {
	r := newReplay(t, "chat_backend_call.sse", "chat_text.sse")
	g := r.genkit(t)
	var w weatherCalls
	agent := NewFlow(chatFlow(g, w.tool(g)), WithSystemPrompt("You are a weather assistant."), WithState())
	s := summarize(runHTTP(t, agent, baseInput))
	if s.Results["call_weather_9"] != `{"highC":24,"sky":"sunny"}` || len(s.Text) != 2 {
		t.Errorf("results %v, texts %v", s.Results, s.Text)
	}
	if p := s.Pending(t); len(p) != 0 {
		t.Errorf("pending %v", p)
	}
	if u := s.Finished.Usage; len(u) != 1 || u[0].TotalTokens == nil || *u[0].TotalTokens != 111 {
		t.Errorf("usage %+v", u)
	}
	checkTranscript(t, r.requests()[1], instructions, "user: text:What is the weather in Paris?",
		"assistant: Let me check.",
		`call call_weather_9 get_weather {"city":"Paris"}`,
		`tool call_weather_9: {"highC":24,"sky":"sunny"}`)
}

// A flow's frontend call and a flow's interrupt end the run as a Generate
// call's do, and the interrupt resumes through the flow.
func TestFlowFrontendAndInterrupt(t *testing.T) {
	t.Run("frontend", func(t *testing.T) {
		r := newReplay(t, "chat_frontend_call.sse")
		s := summarize(runHTTP(t, NewFlow(chatFlow(r.genkit(t))), baseInput))
		if p := s.Pending(t); !slices.Equal(p, []string{"call_confirm_7"}) {
			t.Errorf("pending %v", p)
		}
	})
	t.Run("interrupt", func(t *testing.T) {
		r := newReplay(t, "chat_frontend_call.sse", "chat_text.sse")
		g := r.genkit(t)
		var a approvals
		agent := NewFlow(chatFlow(g, a.tool(g)))
		first := summarize(runHTTP(t, agent, baseInput))
		out, ok := first.Finished.Outcome.(*agui.RunFinishedInterruptOutcome)
		if !ok || len(out.Interrupts) != 1 {
			t.Fatalf("outcome %#v", first.Finished.Outcome)
		}
		id := "call_confirm_7"
		history := []map[string]any{
			{"id": "user-1", "role": "user", "content": "What is the weather in Paris?"},
			{"id": first.Parents[id], "role": "assistant", "toolCalls": []map[string]any{
				{"id": id, "type": "function", "function": map[string]string{"name": first.Names[id], "arguments": first.Args[id]}}}},
		}
		resume := []map[string]any{{"interruptId": id, "status": "cancelled"}}
		second := summarize(runHTTP(t, agent, withInput(t, baseInput, "messages", history, "resume", resume)))
		if second.Finished == nil {
			t.Fatalf("second run %v: %+v", second.Types, second.Failed)
		}
		if second.Results[id] != "cancelled" || len(a.resumed) != 1 {
			t.Errorf("second run %v results %v resumed %v", second.Types, second.Results, a.resumed)
		}
		checkTranscript(t, r.requests()[1], "system: Context from the application:\n- the user's locale: fr-FR", "user: text:What is the weather in Paris?",
			`call call_confirm_7 confirm_booking {"question":"Book a table for two?"}`,
			`tool call_confirm_7: "cancelled"`)
	})
}

// script is a model defined with genkit.DefineModel for what a recorded
// Chat Completions stream cannot say: streamed reasoning with a signature,
// a model that streams nothing, a failure after some text. Each call takes
// the next step; requests keeps what Genkit asked.
type script struct {
	mu       sync.Mutex
	steps    []func(ctx context.Context, cb ai.ModelStreamCallback) (*ai.ModelResponse, error)
	requests []*ai.ModelRequest
}

func (s *script) define(g *gk.Genkit) ai.Model {
	return gk.DefineModel(g, "script/model", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true}},
		func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			s.mu.Lock()
			n := len(s.requests)
			s.requests = append(s.requests, req)
			s.mu.Unlock()
			if n >= len(s.steps) {
				return nil, errors.New("the script has no more steps")
			}
			return s.steps[n](ctx, cb)
		})
}

func chunk(parts ...*ai.Part) *ai.ModelResponseChunk { return &ai.ModelResponseChunk{Content: parts} }

func reply(usage *ai.GenerationUsage, parts ...*ai.Part) *ai.ModelResponse {
	return &ai.ModelResponse{Message: ai.NewModelMessage(parts...), FinishReason: ai.FinishReasonStop, Usage: usage}
}

func TestScriptedModel(t *testing.T) {
	sig := []byte("opaque-signature")
	t.Run("reasoning", func(t *testing.T) {
		s := &script{steps: []func(context.Context, ai.ModelStreamCallback) (*ai.ModelResponse, error){
			func(ctx context.Context, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
				for _, c := range []*ai.ModelResponseChunk{
					chunk(ai.NewReasoningPart("The user asks ", nil)),
					chunk(ai.NewReasoningPart("about the weather.", sig)),
					chunk(ai.NewTextPart("Sunny.")),
				} {
					if err := cb(ctx, c); err != nil {
						return nil, err
					}
				}
				return reply(&ai.GenerationUsage{InputTokens: 5, OutputTokens: 9, TotalTokens: 14, ThoughtsTokens: 4},
					ai.NewReasoningPart("The user asks about the weather.", sig), ai.NewTextPart("Sunny.")), nil
			},
		}}
		g := newGenkit(t, "http://127.0.0.1:1/v1/")
		s.define(g)
		sum := summarize(runHTTP(t, New(g, WithModelName("script/model")), baseInput))
		if len(sum.Thoughts) != 1 || sum.Thoughts[0] != "The user asks about the weather." {
			t.Errorf("reasoning %q", sum.Thoughts)
		}
		var secret string
		for _, v := range sum.Secrets {
			secret = v
		}
		if secret != base64.StdEncoding.EncodeToString(sig) {
			t.Errorf("encrypted values %v", sum.Secrets)
		}
		if end, start := slices.Index(sum.Types, "REASONING_END"), slices.Index(sum.Types, "TEXT_MESSAGE_START"); end < 0 || start < end {
			t.Errorf("reasoning does not end before the answer: %v", sum.Types)
		}
		u := sum.Finished.Usage
		if len(u) != 1 || *u[0].ReasoningTokens != 4 || *u[0].Provider != "script" || *u[0].Model != "model" {
			t.Errorf("usage %+v", u)
		}
	})
	t.Run("reasoning goes back", func(t *testing.T) {
		s := &script{steps: []func(context.Context, ai.ModelStreamCallback) (*ai.ModelResponse, error){
			func(ctx context.Context, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
				return reply(nil, ai.NewTextPart("Rainy tomorrow.")), nil
			},
		}}
		g := newGenkit(t, "http://127.0.0.1:1/v1/")
		s.define(g)
		input := `{"threadId":"t","runId":"r2","messages":[
		 {"id":"user-1","role":"user","content":"Weather?"},
		 {"id":"rs_1","role":"reasoning","content":"Thinking about the sky.","encryptedValue":"` + base64.StdEncoding.EncodeToString(sig) + `"},
		 {"id":"a1","role":"assistant","content":"Sunny."},
		 {"id":"user-2","role":"user","content":"And tomorrow?"}]}`
		sum := summarize(runHTTP(t, New(g, WithModelName("script/model")), input))
		// A model that streams nothing: its reply goes out whole.
		if len(sum.Text) != 1 {
			t.Errorf("texts %v", sum.Text)
		}
		for _, text := range sum.Text {
			if text != "Rainy tomorrow." {
				t.Errorf("text %q", text)
			}
		}
		msgs := s.requests[0].Messages
		if len(msgs) != 3 || msgs[1].Role != ai.RoleModel || !msgs[1].Content[0].IsReasoning() ||
			msgs[1].Content[0].Text != "Thinking about the sky." || string(msgs[1].Content[0].Metadata["signature"].([]byte)) != string(sig) {
			t.Errorf("messages sent %+v", msgs)
		}
	})
	t.Run("fails after text", func(t *testing.T) {
		s := &script{steps: []func(context.Context, ai.ModelStreamCallback) (*ai.ModelResponse, error){
			func(ctx context.Context, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
				if err := cb(ctx, chunk(ai.NewTextPart("It is"))); err != nil {
					return nil, err
				}
				return nil, core.NewError(core.UNAVAILABLE, "the model is overloaded")
			},
		}}
		g := newGenkit(t, "http://127.0.0.1:1/v1/")
		s.define(g)
		sum := summarize(runHTTP(t, New(g, WithModelName("script/model")), baseInput))
		if sum.Failed == nil || !strings.Contains(sum.Failed.Message, "the model is overloaded") {
			t.Errorf("RUN_ERROR %+v", sum.Failed)
		}
	})
}
