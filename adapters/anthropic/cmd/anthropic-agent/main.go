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
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agui-go/sdk/adapters/anthropic"
	"github.com/agui-go/sdk/agui/server"
	ant "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "anthropic-agent:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
}

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

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "AG-UI agent (Anthropic, %s): http://%s/agent\n", *model, ln.Addr())
	return serve(ctx, ln, server.NewHandler(agent, server.WithKeepAlive(15*time.Second)))
}

// serve serves h at /agent on the hardened server until ctx is done. Runs
// in flight then end with RUN_ERROR "the server is shutting down", and the
// provider requests they made are aborted with them.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle("/agent", h)
	return server.NewHTTPServer("", mux).ServeUntil(ctx, ln, 5*time.Second)
}
