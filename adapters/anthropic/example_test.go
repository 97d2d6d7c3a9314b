package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agui-go/sdk/adapters/anthropic"
	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	ant "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// An Anthropic model as an AG-UI agent. Here the model is a local stand-in that
// replays a recorded Messages stream; in production the client is
// ant.NewClient() and the agent is mounted with server.NewHandler(agent).
func Example() {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		http.ServeFile(w, r, "testdata/text.sse")
	}))
	defer model.Close()

	client := ant.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("sk-ant-example"))
	agent := anthropic.New(client, anthropic.WithModel("claude-sonnet-4-5"), anthropic.WithSystemPrompt("Be brief."))

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
