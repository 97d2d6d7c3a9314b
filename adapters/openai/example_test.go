package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agui-go/sdk/adapters/openai"
	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// An OpenAI model as an AG-UI agent. Here the model is a local stand-in that
// replays a recorded Chat Completions stream; in production the client is
// oai.NewClient() and the agent is mounted with server.NewHandler(agent).
func Example() {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		http.ServeFile(w, r, "testdata/chat_text.sse")
	}))
	defer model.Close()

	client := oai.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("sk-example"))
	agent := openai.New(client, openai.WithModel("gpt-4.1-mini"), openai.WithSystemPrompt("Be brief."))

	input := &agui.RunAgentInput{ThreadID: "thread-1", RunID: "run-1", Messages: []agui.Message{
		&agui.UserMessage{ID: "user-1", Content: agui.TextContent("What is the weather in Paris?")},
	}}
	for ev, err := range server.Run(context.Background(), agent, input) {
		if err != nil {
			panic(err)
		}
		switch ev := ev.(type) { //agui:nonexhaustive the example prints the rest by type
		case *agui.TextMessageContent:
			fmt.Printf("%s %q\n", ev.Type(), ev.Delta)
		case *agui.RunFinished:
			fmt.Println(ev.Type(), "input tokens:", *ev.Usage[0].InputTokens)
		default:
			fmt.Println(ev.Type())
		}
	}
	// Output:
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT "It is"
	// TEXT_MESSAGE_CONTENT " sunny in"
	// TEXT_MESSAGE_CONTENT " Paris."
	// TEXT_MESSAGE_END
	// RUN_FINISHED input tokens: 42
}
