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
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agui-go/sdk/adapters/openai"
	"github.com/agui-go/sdk/agui/server"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "openai-agent:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
}

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

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "AG-UI agent (OpenAI %s, %s): http://%s/agent\n", which, *model, ln.Addr())
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
