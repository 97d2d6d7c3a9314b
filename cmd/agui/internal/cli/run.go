package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
)

// Exit statuses of agui run beyond the shared ones.
const (
	ExitRunError    = 3   // the stream was consumed and its last run ended with RUN_ERROR
	ExitInterrupted = 130 // Ctrl-C: the request was aborted (the shell's convention for SIGINT)
)

const runUsage = `usage: agui run URL [--message TEXT | --input FILE] [--state JSON] [--thread ID]
                [-H 'Key: Value']... [--max-protocol-version V] [--proto] [--json]
                [--timeout D]
       agui run URL --resume RUN_ID [--after SEQ] [-H …] [--json] [--timeout D]

Runs the AG-UI agent at URL once, the curl of AG-UI: POSTs a RunAgentInput
and reads the answer as a client does (compatibility boundary, lenient
decoding, chunk expansion, the client verifier; a stream that stops inside a
run is an error). Assistant text streams as it arrives; tool calls,
reasoning, state changes and warnings are shown as they happen (coloured on
a terminal unless NO_COLOR is set). Warnings and the closing summary go to
standard error.

The input is a user message (--message) or a RunAgentInput document
(--input FILE, - for standard input; threadId, runId and messages may be
left out). --state and --thread override what the document says.

With --proto the request asks for the protobuf binding (SSE stays
admitted as the fallback). Either way the answer is read in the binding
its Content-Type names, through the same checks.

With --resume, nothing is POSTed: the run RUN_ID of a server with durable
runs (agui demo --resumable) is read again from GET URL/runs/RUN_ID/events,
its events after number SEQ shown, and followed live to its end.

With --json, standard output holds every delivered event as one JSON line
and nothing else.

Exit status: 0 the run finished; 3 the run (the last one, if the stream
held several) ended with RUN_ERROR; 1 the stream was rejected or truncated,
or the request failed; 2 usage; 130 interrupted (Ctrl-C aborts the request).

flags:
`

// headerFlags collects repeated -H flags.
type headerFlags []string

func (h *headerFlags) String() string { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error {
	k, _, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("a header is 'Key: Value', not %q", v)
	}
	*h = append(*h, v)
	return nil
}

// runContext is the context a run happens under: cancelled by Ctrl-C or a
// termination signal. Tests replace it.
var runContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func runRun(env *Env, args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		io.WriteString(env.Stderr, runUsage)
		fs.PrintDefaults()
	}
	message := fs.String("message", "", "send one user message with this `text`")
	inputFile := fs.String("input", "", "read the RunAgentInput from `file` (- for standard input)")
	state := fs.String("state", "", "the agent state to send, as `JSON`")
	thread := fs.String("thread", "", "the thread `id` (default: the input's, else a fresh UUID)")
	var headers headerFlags
	fs.Var(&headers, "H", "add a request `header` ('Key: Value'); repeatable")
	maxVersion := fs.String("max-protocol-version", "", "the newest protocol `version` the agent speaks (default 1.0.0)")
	proto := fs.Bool("proto", false, "ask for the protobuf binding (application/vnd.ag-ui.event+proto), SSE as the fallback")
	asJSON := fs.Bool("json", false, "print each delivered event as one JSON line, and nothing else, on standard output")
	timeout := fs.Duration("timeout", 0, "give up after this `duration` (0: no limit)")
	resume := fs.String("resume", "", "read the durable run with this `id` again instead of starting one")
	var after client.Position
	fs.TextVar(&after, "after", client.Position{}, "with --resume: show the events after this `position` (SEQ or SEQ.PART, as a client delivered it)")
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return ExitOK
			}
			return ExitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		operands = append(operands, fs.Arg(0))
		args = fs.Args()[1:]
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "agui run: "+format+"\n", a...)
		fs.Usage()
		return ExitUsage
	}
	if len(operands) != 1 {
		return usageErr("want exactly one URL, got %d arguments", len(operands))
	}
	if *message != "" && *inputFile != "" {
		return usageErr("--message and --input exclude each other")
	}
	if *timeout < 0 {
		return usageErr("--timeout must not be negative")
	}
	if *resume != "" && (*message != "" || *inputFile != "" || *state != "" || *thread != "") {
		return usageErr("--resume reads a run that exists: --message, --input, --state and --thread do not apply")
	}
	if after != (client.Position{}) && *resume == "" {
		return usageErr("--after needs --resume")
	}

	in, inWarns, err := buildInput(env, *message, *inputFile, *state, *thread)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agui run: %v\n", err)
		return ExitUsage
	}
	p := newPrinter(env, *asJSON)
	opts := []client.Option{client.WithWarnings(p.warning)}
	if *maxVersion != "" {
		opts = append(opts, client.WithMaxProtocolVersion(*maxVersion))
	}
	if *proto {
		opts = append(opts, client.WithProtobuf())
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		opts = append(opts, client.WithHeader(strings.TrimSpace(k), strings.TrimSpace(v)))
	}
	c, err := client.New(operands[0], opts...)
	if err != nil {
		return usageErr("%v", err)
	}
	for _, w := range inWarns {
		p.warning(w)
	}

	ctx, stop := runContext()
	defer stop()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	// The conversation is folded as a Thread does, so that what the
	// reducer cannot apply (a state patch that does not apply, …) is shown
	// as a warning too. The input is sent as given (curl semantics): a
	// Thread would refuse a resume for interrupts it has not seen.
	conv := conversation.New(in.Messages, in.State)
	start := time.Now()
	var runErr error
	events := c.Run(ctx, in, client.RunConversation(conv))
	if *resume != "" {
		conv = conversation.New(nil, nil)
		events = c.Resume(ctx, *resume, after, client.RunConversation(conv))
		p.resumed, p.after = *resume, after
	}
	for d, err := range events {
		if err != nil {
			runErr = err
			break
		}
		p.event(d.Event)
	}
	p.state = conv.State()
	p.endLine()
	return p.summary(ctx, runErr, time.Since(start))
}

// buildInput makes the RunAgentInput from the flags.
func buildInput(env *Env, message, file, state, thread string) (*agui.RunAgentInput, []agui.Warning, error) {
	in := &agui.RunAgentInput{}
	var warns []agui.Warning
	if file != "" {
		var data []byte
		var err error
		if file == "-" {
			data, err = io.ReadAll(env.Stdin)
		} else {
			data, err = os.ReadFile(file)
		}
		if err != nil {
			return nil, nil, err
		}
		in, warns, err = client.DecodeInput(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
	} else {
		in.ThreadID, in.RunID = agui.NewID(), agui.NewID()
		in.Messages = []agui.Message{}
		if message != "" {
			in.Messages = append(in.Messages, &agui.UserMessage{ID: agui.NewID(), Content: agui.TextContent(message)})
		}
	}
	if thread != "" {
		in.ThreadID = thread
	}
	if state != "" {
		if !json.Valid([]byte(state)) || strings.TrimSpace(state) == "null" {
			return nil, nil, fmt.Errorf("--state is not a JSON value (null is not a state): %q", state)
		}
		in.State = json.RawMessage(state)
	}
	// The defaults the reference client sends (protocol.md E.4).
	if in.State == nil {
		in.State = json.RawMessage("{}")
	}
	if in.Tools == nil {
		in.Tools = []agui.Tool{}
	}
	if in.Context == nil {
		in.Context = []agui.Context{}
	}
	if in.ForwardedProps == nil {
		in.ForwardedProps = json.RawMessage("{}")
	}
	return in, warns, nil
}
