// Command openai-agent serves an OpenAI model as an AG-UI agent at
// http://ADDR/agent, as `agui demo` serves the demo agent.
//
//	OPENAI_API_KEY=sk-... go run ./cmd/openai-agent --model gpt-4.1-mini --api responses
//
// It reads the SDK's usual environment: OPENAI_API_KEY (required) and
// OPENAI_BASE_URL (optional, for a proxy or a compatible server). The run's
// tools are declared to the model; a call of one ends the run with the call
// pending for the client. One backend tool, current_time, runs here.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/agui-go/sdk/adapters/openai"
	"github.com/agui-go/sdk/internal/agentcmd"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func main() { agentcmd.Main("openai-agent", run) }

// run parses args, builds the agent from the environment and serves it until
// ctx is done.
func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("openai-agent", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on")
	model := fs.String("model", openai.DefaultModel, "the model to ask")
	api := fs.String("api", "chat", "the OpenAI API to stream from: chat or responses")
	system := fs.String("system", "You are a helpful assistant.", "the system prompt")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var which openai.API
	switch *api {
	case "chat":
		which = openai.ChatCompletions
	case "responses":
		which = openai.Responses
	default:
		return fmt.Errorf("--api %q: want chat or responses", *api)
	}
	key := getenv("OPENAI_API_KEY")
	if key == "" {
		return errors.New("OPENAI_API_KEY is not set")
	}
	opts := []option.RequestOption{option.WithAPIKey(key)}
	if base := getenv("OPENAI_BASE_URL"); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	agent := openai.New(oai.NewClient(opts...),
		openai.WithAPI(which), openai.WithModel(*model), openai.WithSystemPrompt(*system), openai.WithState(),
		openai.WithTool("current_time", "The current date and time in UTC.", nil,
			func(ctx context.Context, _ json.RawMessage) (string, error) {
				return time.Now().UTC().Format(time.RFC3339), nil
			}))

	return agentcmd.Serve(ctx, *addr, fmt.Sprintf("OpenAI %s, %s", which, *model), out, agent)
}
