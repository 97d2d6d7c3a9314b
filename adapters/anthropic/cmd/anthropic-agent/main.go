// Command anthropic-agent serves an Anthropic model as an AG-UI agent at
// http://ADDR/agent, as `agui demo` serves the demo agent.
//
//	ANTHROPIC_API_KEY=sk-ant-... go run ./cmd/anthropic-agent --model claude-sonnet-4-5
//
// It reads the SDK's usual environment: ANTHROPIC_API_KEY (required) and
// ANTHROPIC_BASE_URL (optional, for a proxy or a gateway). The run's
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

	"github.com/agui-go/sdk/adapters/anthropic"
	"github.com/agui-go/sdk/internal/agentcmd"
	ant "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

func main() { agentcmd.Main("anthropic-agent", run) }

// run parses args, builds the agent from the environment and serves it until
// ctx is done.
func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("anthropic-agent", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on")
	model := fs.String("model", anthropic.DefaultModel, "the model to ask")
	maxTokens := fs.Int64("max-tokens", anthropic.DefaultMaxTokens, "max_tokens of each request")
	system := fs.String("system", "You are a helpful assistant.", "the system prompt")
	if err := fs.Parse(args); err != nil {
		return err
	}
	key := getenv("ANTHROPIC_API_KEY")
	if key == "" {
		return errors.New("ANTHROPIC_API_KEY is not set")
	}
	opts := []option.RequestOption{option.WithAPIKey(key)}
	if base := getenv("ANTHROPIC_BASE_URL"); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	agent := anthropic.New(ant.NewClient(opts...),
		anthropic.WithModel(*model), anthropic.WithMaxTokens(*maxTokens), anthropic.WithSystemPrompt(*system), anthropic.WithState(),
		anthropic.WithTool("current_time", "The current date and time in UTC.", nil,
			func(ctx context.Context, _ json.RawMessage) (string, error) {
				return time.Now().UTC().Format(time.RFC3339), nil
			}))

	return agentcmd.Serve(ctx, *addr, fmt.Sprintf("Anthropic, %s", *model), out, agent)
}
