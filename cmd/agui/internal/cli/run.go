package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"slices"
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

const runUsage = `usage: agui run URL [--message TEXT] [--input FILE] [--state JSON] [--thread ID]
                [--approve | --decline] [--resume-with ID=JSON]... [--ask]
                [--final FILE] [-H 'Key: Value']... [--protocol-version V]
                [--max-protocol-version V] [--proto] [--json] [--timeout D]
       agui run URL --reattach RUN_ID [--after POS] [-H …] [--json] [--timeout D]
       agui run URL --thread ID --connect [--final FILE] [-H …] [--json] [--timeout D]

Runs the AG-UI agent at URL, the curl of AG-UI: POSTs a RunAgentInput and
reads the answer as a client does (compatibility boundary, lenient
decoding, chunk expansion, the client verifier; a stream that stops inside a
run is an error). Assistant text streams as it arrives; tool calls,
reasoning, state changes and warnings are shown as they happen (coloured on
a terminal unless NO_COLOR is set). Warnings and the closing summary go to
standard error.

The input is a RunAgentInput document (--input FILE, - for standard input;
threadId, runId and messages may be left out), a user message (--message),
or both: the message is added after the document's messages. --state and
--thread override what the document says.

A run that ends with interrupts is answered and the thread run again, with
the messages and state the run left, until a run ends otherwise:
--approve resolves every interrupt, --decline cancels every one, and
--resume-with ID=JSON resolves interrupt ID with the JSON value as its
payload (repeatable; it wins over --approve and --decline for that id).
When standard input is a terminal, or with --ask, each interrupt the flags
leave open is asked about on standard error. Without any of these the
interrupts are shown and the command ends.

--final FILE writes the thread after the last run (threadId, messages,
state) to FILE (- for standard output) as a RunAgentInput document: the
next turn is agui run URL --input FILE --message TEXT.

With --proto the request asks for the protobuf binding (SSE stays
admitted as the fallback). Either way the answer is read in the binding
its Content-Type names, through the same checks.

With --reattach, nothing is POSTed: the run RUN_ID of a server with durable
runs (agui demo --resumable) is read again from GET URL/runs/RUN_ID/events,
its events after position POS (SEQ or SEQ.PART) shown, and followed live
to its end.

With --connect, nothing is POSTed either: the thread --thread of a server
that keeps threads (agui demo --resumable) is read from GET
URL/threads/ID/events, its history shown as one replayed run (the messages
and state so far, and its open interrupts), then its live run, if one is
going on, followed to its end. --final writes the thread after it.

With --json, standard output holds every delivered event as one JSON line
and nothing else.

Exit status: 0 the run finished; 3 the run (the last one, if the stream
held several) ended with RUN_ERROR; 1 the stream was rejected, truncated or
held no run at all (an empty answer), the request failed, or an interrupt
the flags were to answer had no answer; 2 usage; 130 interrupted (Ctrl-C
aborts the request).

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
	maxVersion := fs.String("max-protocol-version", "", "the newest protocol `version` the agent speaks (default: --protocol-version)")
	ownVersion := fs.String("protocol-version", "", "the protocol `version` to speak, 1.0 or 1.1 (default 1.1); at 1.0 what 1.1 added is stripped with a warning")
	proto := fs.Bool("proto", false, "ask for the protobuf binding (application/vnd.ag-ui.event+proto), SSE as the fallback")
	asJSON := fs.Bool("json", false, "print each delivered event as one JSON line, and nothing else, on standard output")
	timeout := fs.Duration("timeout", 0, "give up after this `duration` (0: no limit)")
	reattach := fs.String("reattach", "", "read the durable run with this `id` again instead of starting one")
	connect := fs.Bool("connect", false, "with --thread: show the thread's history and follow its live run instead of starting one")
	var after client.Position
	fs.Var(positionFlag{&after}, "after", "with --reattach: show the events after this `position` (SEQ or SEQ.PART, as a client delivered it)")
	var ans answerer
	fs.BoolVar(&ans.approve, "approve", false, "resolve every interrupt, run after run, without a payload")
	fs.BoolVar(&ans.decline, "decline", false, "cancel every interrupt, run after run")
	fs.Var(&ans.with, "resume-with", "resolve the interrupt with this id with this payload, as `ID=JSON`; repeatable")
	ask := fs.Bool("ask", false, "ask on standard error how to answer each interrupt (default: when standard input is a terminal)")
	final := fs.String("final", "", "write the thread after the last run to `file` (- for standard output), as a RunAgentInput document")
	if renamed := renamedFlag(args); renamed != "" {
		fmt.Fprintf(env.Stderr, "agui run: %s\n", renamed)
		return ExitUsage
	}
	operands, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	} else if err != nil {
		return ExitUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "agui run: "+format+"\n", a...)
		fs.Usage()
		return ExitUsage
	}
	if len(operands) != 1 {
		return usageErr("want exactly one URL, got %d arguments", len(operands))
	}
	if *timeout < 0 {
		return usageErr("--timeout must not be negative")
	}
	if *reattach != "" && (*message != "" || *inputFile != "" || *state != "" || *thread != "") {
		return usageErr("--reattach reads a run that exists: --message, --input, --state and --thread do not apply")
	}
	if *reattach != "" && (ans.some() || *ask || *final != "") {
		return usageErr("--reattach reads a run that exists: --approve, --decline, --resume-with, --ask and --final need a run this command starts")
	}
	if *connect && (*thread == "" || *reattach != "" || *message != "" || *inputFile != "" || *state != "" || ans.some() || *ask) {
		return usageErr("--connect reads a thread that exists: it needs --thread, and --reattach, --message, --input, --state, --approve, --decline, --resume-with and --ask do not apply")
	}
	if after != (client.Position{}) && *reattach == "" {
		return usageErr("--after needs --reattach")
	}
	if ans.approve && ans.decline {
		return usageErr("--approve and --decline exclude each other")
	}
	if *final == "-" && *asJSON {
		return usageErr("--final - would mix with --json's events on standard output: give --final a file")
	}
	// A terminal on standard input is a person who can answer, unless the
	// input document comes from there.
	ans.ask = *ask || (*inputFile != "-" && isTTY(env.Stdin))
	ans.in, ans.prompt = bufio.NewReader(env.Stdin), env.Stderr

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
	if *ownVersion != "" {
		opts = append(opts, client.WithProtocolVersion(*ownVersion))
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
	// as a warning too. The first input is sent as given (curl semantics):
	// a Thread would refuse a resume for interrupts it has not seen. The
	// runs that answer interrupts are built from the conversation.
	start := time.Now()
	if *reattach != "" {
		p.resumed, p.after = *reattach, after
		runErr := p.consume(c.Resume(ctx, *reattach, after, client.RunConversation(conversation.New(nil, nil))))
		p.endLine()
		return p.summary(ctx, runErr, time.Since(start))
	}
	if *connect {
		conv := conversation.New(nil, nil)
		runErr := p.consume(c.Connect(ctx, *thread, client.RunConversation(conv)))
		p.state = conv.State()
		p.endLine()
		if *final != "" && conv.Outcome().RunID != "" {
			if err := writeFinal(env, *final, *thread, conv); err != nil {
				fmt.Fprintf(env.Stderr, "agui run: --final: %v\n", err)
				if runErr == nil {
					runErr = err
				}
			}
		}
		return p.summary(ctx, runErr, time.Since(start))
	}
	conv := conversation.New(in.Messages, in.State)
	var runErr error
	for runs := 1; ; runs++ {
		runErr = p.consume(c.Run(ctx, in, client.RunConversation(conv)))
		out := conv.Outcome()
		if runErr != nil || out.Status != conversation.Interrupted || !ans.some() {
			break
		}
		p.endLine()
		if runs == maxAnsweredRuns {
			runErr = fmt.Errorf("stopped after %d runs, each of which ended with interrupts", runs)
			break
		}
		entries, err := ans.answer(conv.Interrupts())
		if errors.Is(err, errStopped) {
			// The user stopped at the prompt: the run stands as it ended.
			fmt.Fprintf(p.err, "agui run: %v; the thread stays interrupted\n", err)
			break
		}
		if err != nil {
			runErr = fmt.Errorf("%w; answer it with --approve, --decline, --resume-with ID=JSON or --ask", err)
			break
		}
		next, err := conv.NextInput(conversation.InputOptions{ThreadID: in.ThreadID,
			Tools: in.Tools, Context: in.Context, ForwardedProps: in.ForwardedProps, Resume: entries})
		if err != nil {
			runErr = err
			break
		}
		fmt.Fprintf(p.err, "agui run: answering %s; running again\n", answers(entries))
		in = next
	}
	for _, id := range ans.unused() {
		fmt.Fprintf(p.err, "agui run: --resume-with %s: no interrupt had this id\n", id)
	}
	p.state = conv.State()
	p.endLine()
	if *final != "" && conv.Outcome().RunID != "" {
		if err := writeFinal(env, *final, in.ThreadID, conv); err != nil {
			fmt.Fprintf(env.Stderr, "agui run: --final: %v\n", err)
			if runErr == nil {
				runErr = err
			}
		}
	}
	return p.summary(ctx, runErr, time.Since(start))
}

// consume shows every event of a run, returning the error that ended it.
func (p *printer) consume(events iter.Seq2[client.Delivery, error]) error {
	for d, err := range events {
		if err != nil {
			return err
		}
		p.event(d.Event)
	}
	return nil
}

// answers describes resume entries for the log line of a run that answers
// them.
func answers(entries []agui.ResumeEntry) string {
	parts := make([]string, len(entries))
	for i, e := range entries {
		switch {
		case e.Status == agui.ResumeStatusCancelled:
			parts[i] = e.InterruptID + " (declined)"
		case e.Payload != nil:
			parts[i] = e.InterruptID + " with " + compact(e.Payload)
		default:
			parts[i] = e.InterruptID + " (approved)"
		}
	}
	return "interrupt " + strings.Join(parts, ", ")
}

// renamedFlag returns the message for a flag agui run no longer has, or "".
func renamedFlag(args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "resume" {
			return "--resume is now --reattach (read a durable run again); to answer an interrupt, use --approve, --decline or --resume-with ID=JSON"
		}
	}
	return ""
}

// writeFinal writes the thread as conv holds it after the last run, as a
// RunAgentInput document without a run id, to path (- for stdout).
func writeFinal(env *Env, path, threadID string, conv *conversation.Conversation) error {
	// Without activity messages, as a client sends the thread (they are the
	// UI's, not the agent's).
	msgs := slices.DeleteFunc(conv.Messages(), func(m agui.Message) bool {
		_, activity := m.(*agui.ActivityMessage)
		return activity
	})
	in := agui.RunAgentInput{ThreadID: threadID, Messages: msgs, State: conv.State()}
	if in.Messages == nil {
		in.Messages = []agui.Message{}
	}
	full, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(full, &members); err != nil {
		return err
	}
	var doc bytes.Buffer
	doc.WriteByte('{')
	for i, k := range []string{"threadId", "messages", "state"} {
		if i > 0 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, "%q:%s", k, members[k])
	}
	doc.WriteString("}\n")
	if path == "-" {
		_, err = env.Stdout.Write(doc.Bytes())
		return err
	}
	return os.WriteFile(path, doc.Bytes(), 0o644)
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
	}
	if message != "" {
		in.Messages = append(in.Messages, &agui.UserMessage{ID: agui.NewID(), Content: agui.TextContent(message)})
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
