package eino

import (
	"context"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// scripted is a model implementing Eino's own model interface: each call
// streams the next of its replies, chunk by chunk. It stands in for the
// OpenAI component where a recorded stream cannot say what a test needs.
type scripted struct {
	mu      sync.Mutex
	replies [][]*schema.Message
	inputs  [][]*schema.Message
}

func (s *scripted) next(in []*schema.Message) []*schema.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = append(s.inputs, in)
	if len(s.replies) == 0 {
		return []*schema.Message{schema.AssistantMessage("(no more replies)", nil)}
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r
}

func (s *scripted) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	return schema.ConcatMessages(s.next(in))
}

func (s *scripted) Stream(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray(s.next(in)), nil
}

func (s *scripted) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return s, nil }

// The usage the model reports reaches RUN_FINISHED whole: reasoning and
// cached tokens too, which the OpenAI component's merging of chunks loses.
func TestScriptedUsage(t *testing.T) {
	m := &scripted{replies: [][]*schema.Message{{
		{Role: schema.Assistant, ReasoningContent: "Sunny, probably."},
		{Role: schema.Assistant, Content: "It is sunny."},
		{Role: schema.Assistant, ResponseMeta: &schema.ResponseMeta{FinishReason: "stop", Usage: &schema.TokenUsage{
			PromptTokens: 20, CompletionTokens: 30, TotalTokens: 50,
			PromptTokenDetails:      schema.PromptTokenDetails{CachedTokens: 10},
			CompletionTokensDetails: schema.CompletionTokensDetails{ReasoningTokens: 25}}}},
	}}}
	agent := New(ChatModel(&adk.ChatModelAgentConfig{Name: "assistant", Description: "An assistant.", Model: m}))
	s := summarize(runHTTP(t, agent, baseInput))
	checkUsage(t, s.Finished.Usage, 20, 30, 50)
	u := s.Finished.Usage[0]
	if u.ReasoningTokens == nil || *u.ReasoningTokens != 25 || u.CachedInputTokens == nil || *u.CachedInputTokens != 10 {
		t.Errorf("reasoning tokens %v cached %v, want 25 and 10", u.ReasoningTokens, u.CachedInputTokens)
	}
	if len(s.Thoughts) != 1 || s.Thoughts[0] != "Sunny, probably." {
		t.Errorf("reasoning %q", s.Thoughts)
	}
	if p := s.Pending(t); len(p) != 0 {
		t.Errorf("pending %v", p)
	}
	// The run's context entries reach the model (its state does not, without
	// WithState), in the one system message: the agent has no instruction.
	if in := m.inputs[0]; len(in) != 2 || in[0].Role != schema.System || in[1].Content != "What is the weather in Paris?" {
		t.Errorf("model input %v", in)
	}
}
