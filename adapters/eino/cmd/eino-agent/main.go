// Command eino-agent serves an Eino agent as an AG-UI agent at
// http://ADDR/agent: a ChatModelAgent on Eino's OpenAI model component
// (github.com/cloudwego/eino-ext/components/model/openai), run by Eino's
// Runner.
//
//	OPENAI_API_KEY=sk-... go run ./cmd/eino-agent --model gpt-4.1-mini
//
// It reads OPENAI_API_KEY (required) and OPENAI_BASE_URL (optional, for a
// proxy or a compatible server). The run's tools are offered to the model;
// a call of one ends the run with the call pending for the client. One
// backend tool, current_time, runs in Eino's tools node.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/agui-go/sdk/adapters/eino"
	"github.com/agui-go/sdk/internal/agentcmd"
	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

func main() { agentcmd.Main("eino-agent", run) }

// run parses args, builds the agent from the environment and serves it until
// ctx is done.
func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("eino-agent", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on")
	model := fs.String("model", "gpt-4.1-mini", "the model to ask")
	system := fs.String("system", "You are a helpful assistant.", "the agent's instruction")
	if err := fs.Parse(args); err != nil {
		return err
	}
	key := getenv("OPENAI_API_KEY")
	if key == "" {
		return errors.New("OPENAI_API_KEY is not set")
	}
	chatModel, err := einoopenai.NewChatModel(ctx, &einoopenai.ChatModelConfig{
		APIKey: key, BaseURL: getenv("OPENAI_BASE_URL"), Model: *model,
	})
	if err != nil {
		return err
	}
	agent := eino.New(eino.ChatModel(&adk.ChatModelAgentConfig{
		Name: "assistant", Description: "A helpful assistant.", Instruction: *system, Model: chatModel,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{currentTime{}}}},
	}), eino.WithState())

	return agentcmd.Serve(ctx, *addr, fmt.Sprintf("Eino ChatModelAgent, %s", *model), out, agent)
}

// currentTime is an Eino tool: the current date and time in UTC.
type currentTime struct{}

func (currentTime) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "current_time", Desc: "The current date and time in UTC.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{})}, nil
}

func (currentTime) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return time.Now().UTC().Format(time.RFC3339), nil
}
