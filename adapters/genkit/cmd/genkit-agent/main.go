// Command genkit-agent serves Genkit as an AG-UI agent at http://ADDR/agent,
// as `agui demo` serves the demo agent: a Generate call with tools, on
// Genkit's OpenAI-compatible model plugin (compat_oai), so that any server
// speaking Chat Completions can answer.
//
//	OPENAI_API_KEY=sk-... go run ./cmd/genkit-agent --model gpt-4.1-mini
//
// It reads OPENAI_API_KEY (required) and OPENAI_BASE_URL (optional, for a
// proxy or a compatible server). The run's tools are declared to the model;
// a call of one ends the run with the call pending for the client. Two
// backend tools run here, in Genkit's tool loop: current_time, and
// book_table, which interrupts for the user's approval (the run ends with
// the interrupt outcome; the next run's resume entry, with a payload
// {"approved":true}, books the table). With --flow the same Generate call
// runs inside a Genkit streaming flow.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/agui-go/sdk/adapters/genkit"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/agentcmd"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	gk "github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai"
	"github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
)

func main() { agentcmd.Main("genkit-agent", run) }

type booking struct {
	Guests int    `json:"guests" jsonschema:"description=how many people"`
	Time   string `json:"time" jsonschema:"description=when, as the user said it"`
}

// run parses args, starts Genkit from the environment and serves the agent
// until ctx is done.
func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("genkit-agent", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on")
	model := fs.String("model", "gpt-4.1-mini", "the model to ask")
	system := fs.String("system", "You are a helpful assistant.", "the system prompt")
	flow := fs.Bool("flow", false, "run Generate inside a Genkit streaming flow")
	if err := fs.Parse(args); err != nil {
		return err
	}
	key := getenv("OPENAI_API_KEY")
	if key == "" {
		return errors.New("OPENAI_API_KEY is not set")
	}
	plugin := &compat_oai.OpenAICompatible{Provider: "openai", APIKey: key, BaseURL: getenv("OPENAI_BASE_URL"),
		Opts: []option.RequestOption{option.WithMaxRetries(2)}}
	g := gk.Init(ctx, gk.WithPlugins(plugin))
	plugin.DefineModel("openai", *model, ai.ModelOptions{Supports: &compat_oai.BasicText})
	name := "openai/" + *model

	clock := gk.DefineTool(g, "current_time", "The current date and time in UTC.",
		func(ctx *ai.ToolContext, _ struct{}) (string, error) {
			return time.Now().UTC().Format(time.RFC3339), nil
		})
	book := gk.DefineTool(g, "book_table", "Book a table at the restaurant; the user approves first.",
		func(ctx *ai.ToolContext, b booking) (string, error) {
			if !ctx.IsResumed() {
				return "", ctx.Interrupt(&ai.InterruptOptions{Metadata: map[string]any{
					"reason": "approval", "message": fmt.Sprintf("Book a table for %d at %s?", b.Guests, b.Time)}})
			}
			if ok, _ := ctx.Resumed["approved"].(bool); !ok {
				return "the user declined the booking", nil
			}
			return fmt.Sprintf("booked a table for %d at %s", b.Guests, b.Time), nil
		})

	// compat_oai streams without asking for usage; this config asks (the
	// plugin keeps the model it was defined with).
	config := ai.WithConfig(&openai.ChatCompletionNewParams{
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})

	var agent server.Agent[server.NoState]
	opts := []genkit.Option{genkit.WithSystemPrompt(*system), genkit.WithState()}
	if *flow {
		f := gk.DefineStreamingFlow(g, "chat",
			func(ctx context.Context, in *genkit.Input, cb core.StreamCallback[*ai.ModelResponseChunk]) (*ai.ModelResponse, error) {
				return gk.Generate(ctx, g, append(in.Options(clock, book), ai.WithModelName(name), config, ai.WithStreaming(cb))...)
			})
		agent = genkit.NewFlow(f, opts...)
	} else {
		agent = genkit.New(g, append(opts, genkit.WithModelName(name), genkit.WithTools(clock, book), genkit.WithGenerateOptions(config))...)
	}

	mode := "Generate"
	if *flow {
		mode = "flow"
	}
	return agentcmd.Serve(ctx, *addr, fmt.Sprintf("Genkit %s, %s", mode, name), out, agent)
}
