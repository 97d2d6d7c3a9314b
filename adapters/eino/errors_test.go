package eino

import (
	"context"
	"strconv"
	"testing"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/adaptertest"
)

// No RUN_ERROR carries a URL or an address unless the server opts in,
// however Eino's OpenAI model fails to reach the provider.
func TestErrorsCarryNoAddress(t *testing.T) {
	adaptertest.ErrorsCarryNoAddress(t, func(baseURL string) server.Agent[server.NoState] {
		m, err := einoopenai.NewChatModel(context.Background(), &einoopenai.ChatModelConfig{
			BaseURL: baseURL + "/v1", APIKey: "sk-test", Model: "gpt-4.1-mini",
		})
		if err != nil {
			t.Fatal(err)
		}
		return New(ChatModel(&adk.ChatModelAgentConfig{Name: "assistant", Description: "A weather assistant.",
			Instruction: "You are a weather assistant.", Model: m}))
	}, baseInput, func(message string) string {
		return `{"error":{"message":` + strconv.Quote(message) + `,"type":"server_error"}}`
	})
}
