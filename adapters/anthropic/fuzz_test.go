package anthropic

import (
	"testing"

	"github.com/agui-go/sdk/agui"
	ant "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Whatever run input a client sends, building the request gives a request
// or an error, never a panic. No request is sent.
func FuzzRequest(f *testing.F) {
	f.Add([]byte(history))
	f.Add([]byte(baseInput))
	a := New(ant.NewClient(option.WithAPIKey("sk-ant-fuzz")), WithSystemPrompt("Be brief."))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := agui.DecodeRunAgentInput(data)
		if err != nil {
			return
		}
		_, _ = a.newConversation(in.Messages, "", in.Tools)
	})
}
