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
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agui-go/sdk/adapters/eino"
	"github.com/agui-go/sdk/agui/server"
	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "eino-agent:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
}

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

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "AG-UI agent (Eino ChatModelAgent, %s): http://%s/agent\n", *model, ln.Addr())
	return serve(ctx, ln, server.NewHandler(agent, server.WithKeepAlive(15*time.Second)))
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

// serve serves h at /agent on the hardened server until ctx is done. Runs
// in flight then end with RUN_ERROR "the server is shutting down", and the
// model requests they made are aborted with them.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle("/agent", h)
	return server.NewHTTPServer("", mux).ServeUntil(ctx, ln, 5*time.Second)
}
