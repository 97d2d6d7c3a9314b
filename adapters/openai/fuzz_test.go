package openai

import (
	"testing"

	"github.com/agui-go/sdk/agui"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Whatever run input a client sends, building the request for either API
// gives a request or an error, never a panic. No request is sent.
func FuzzRequest(f *testing.F) {
	f.Add([]byte(history))
	f.Add([]byte(baseInput))
	a := New(oai.NewClient(option.WithAPIKey("sk-fuzz")), WithSystemPrompt("Be brief."))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := agui.DecodeRunAgentInput(data)
		if err != nil {
			return
		}
		_, _ = a.newChat(in.Messages, "", in.Tools)
		_, _ = a.newResponses(in.Messages, "", in.Tools)
	})
}
