package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/server/threads"
)

const demoUsage = `usage: agui demo [--addr HOST:PORT] [--exercise] [--resumable] [--nats URL] [--detach D] [--copilotkit] [--otel]

Serves the built-in demo agent at http://HOST:PORT/agent until interrupted
(Ctrl-C), and prints its URL. It needs no model and no API key, and one run
exercises the whole protocol: a step, reasoning, streamed text, a tool call
with arguments and a result, a state snapshot then a delta, an activity, and
a subagent with attributed events. A last user message containing "interrupt"
ends with an interrupt outcome, "fail" with RUN_ERROR AGENT_ERROR, and "slow"
streams slowly enough to cancel.

With --exercise it serves on a free port (or --addr), runs every scenario
against itself over HTTP as a client would (a full tour, an interrupt and
its resumption, a failure, a run abandoned midway), checks each stream with
both verifier profiles, prints what it saw, and exits 0 when every scenario
ended as promised.

With --resumable, runs are durable: every event carries its number as the SSE
id, runs are kept in memory, and anyone may read a run again
(GET /agent/runs/RUN_ID/events, with Last-Event-ID or ?after=) or cancel it
(POST /agent/runs/RUN_ID/cancel). Threads are kept too: GET
/agent/threads/THREAD_ID answers a thread's messages, state and runs, and
GET /agent/threads/THREAD_ID/events its history and live run as a stream
(agui run URL --thread ID --connect). --detach D also keeps a run going for
D after its last client left, so that the client can reattach.

--nats URL keeps the runs in a JetStream log, and the threads in a
JetStream key-value bucket, on that NATS server instead of in memory (and
implies --resumable): several demos sharing one NATS server are replicas of
one agent, any of them can replay or cancel a run another one serves or
serve a thread another one ran, and a replica that dies has its runs ended
as lost (and recorded so in their threads). The server needs JetStream
enabled (nats-server -js).

With --copilotkit it also serves a chat page built on CopilotKit's React
components at http://HOST:PORT/, talking to the demo agent (as agent
"demo") through a CopilotKit runtime in Go at /api/copilotkit, with no Node
anywhere: the page is built in and needs no network. Runs are durable and
threads kept (it implies --resumable, and a --detach of 1m unless given),
so a reloaded page shows its thread's history and any run still going, and
the chat's stop button stops the run. With --nats, several such demos on
one NATS server serve the same threads: a page may reload through any of
them and stop a run another one serves.

--otel traces and measures every run with OpenTelemetry (a span
"invoke_agent demo" per run, an "execute_tool" span per tool call, the run
metrics agui.server.*) and exports them over OTLP/HTTP (http/protobuf) to
the endpoint the standard variables name: OTEL_EXPORTER_OTLP_ENDPOINT
(default http://localhost:4318, a local collector's), or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and _METRICS_ENDPOINT, with
OTEL_EXPORTER_OTLP_HEADERS and the rest; OTEL_SERVICE_NAME overrides the
service name agui-demo. The demo's log records of a run carry its trace_id
and span_id. What is left is flushed on exit; the exit status is 1 when
that fails.

flags:
`

// demoContext is the context the demo serves under: cancelled by an
// interrupt or a termination signal. Tests replace it.
var demoContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func runDemo(env *Env, args []string) (code int) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		io.WriteString(env.Stderr, demoUsage)
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:8000", "the `address` to listen on")
	exercise := fs.Bool("exercise", false, "serve, run every scenario against the server, and exit")
	resumable := fs.Bool("resumable", false, "durable runs: number events, keep runs in a memory log, serve /agent/runs/{runId}/events and /cancel to everyone")
	detach := fs.Duration("detach", 0, "keep a run going for this `duration` after its last client left, for it to reattach (implies -resumable)")
	natsURL := fs.String("nats", "", "keep durable runs and threads in JetStream on the NATS server at this `URL` (implies -resumable)")
	withCopilotKit := fs.Bool("copilotkit", false, "also serve a CopilotKit chat page at / and a CopilotKit runtime at /api/copilotkit (implies -resumable)")
	withOTel := fs.Bool("otel", false, "export traces and metrics over OTLP/HTTP to the endpoint of the OTEL_EXPORTER_OTLP_* variables (default http://localhost:4318)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "agui demo: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return ExitUsage
	}
	if *detach < 0 {
		fmt.Fprintf(env.Stderr, "agui demo: -detach %v is negative\n", *detach)
		return ExitUsage
	}
	if *withCopilotKit && *exercise {
		fmt.Fprintln(env.Stderr, "agui demo: -copilotkit serves a page to use, -exercise exits when done: give one of them")
		return ExitUsage
	}
	if *withCopilotKit {
		detachSet := false
		fs.Visit(func(f *flag.Flag) { detachSet = detachSet || f.Name == "detach" })
		if !detachSet {
			*detach = copilotKitDetach
		}
	}
	ctx, stop := demoContext()
	defer stop()
	var opts []server.HandlerOption
	if *withOTel {
		otelOpts, shutdown, err := openOTel(ctx)
		if err != nil {
			fmt.Fprintf(env.Stderr, "agui demo: %v\n", err)
			return ExitUsage
		}
		// Deferred first, so it runs last: after the server stopped and the
		// NATS log closed, when every run has ended and its span with it.
		defer func() {
			if err := shutdown(); err != nil {
				fmt.Fprintf(env.Stderr, "agui demo: --otel: %v\n", err)
				if code == ExitOK {
					code = ExitRejected
				}
			}
		}()
		opts = append(opts, otelOpts...)
	}
	if *resumable || *detach > 0 || *natsURL != "" || *withCopilotKit {
		var log runlog.Log = runlog.NewMemory(runlog.MemoryOptions{})
		var store threads.Store // nil: the memory store
		if *natsURL != "" {
			nl, ns, closeNATS, err := openNATS(ctx, *natsURL)
			if err != nil {
				fmt.Fprintf(env.Stderr, "agui demo: %v\n", err)
				return ExitRejected
			}
			// Deferred before anything serves, so it runs after the server
			// stopped and its last runs appended their terminal events.
			defer closeNATS()
			log, store = nl, ns
		}
		// The demo guards nothing: every run and thread may be read, every
		// run cancelled.
		opts = append(opts, server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: server.AllowAll, Detach: *detach}),
			server.WithThreads(server.ThreadConfig{Store: store, Authorize: server.AllowAll}))
	}
	if *exercise {
		return exerciseDemo(ctx, env, fs, *addr, opts)
	}
	ln, err := net.Listen("tcp", *addr)
	switch {
	case err != nil:
	case *withCopilotKit:
		err = serveCopilotKit(ctx, ln, env.Stdout, opts)
	default:
		err = demo.ServeListenerOptions(ctx, ln, env.Stdout, opts...)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "agui demo: %v\n", err)
		return ExitRejected
	}
	return ExitOK
}

// exerciseDemo serves the demo and runs demo.Exercise against it.
func exerciseDemo(ctx context.Context, env *Env, fs *flag.FlagSet, addr string, opts []server.HandlerOption) int {
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "addr" })
	if !explicit {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agui demo: %v\n", err)
		return ExitRejected
	}
	// The server lives only as long as the exercise, so its banner (the URL
	// and a curl line to try) would advertise a port that is closed by the
	// time anyone reads it: it goes nowhere, and the output says instead
	// how to get a server that stays.
	fmt.Fprintln(env.Stdout, "Exercising the demo agent on a temporary local server, stopped when the exercise ends.")
	fmt.Fprintln(env.Stdout, "To keep one running and talk to it yourself: agui demo [--addr HOST:PORT]")
	serveCtx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- demo.ServeListenerOptions(serveCtx, ln, io.Discard, opts...) }()
	err = demo.Exercise(ctx, "http://"+ln.Addr().String()+"/agent", env.Stdout)
	cancel()
	if serr := <-served; err == nil {
		err = serr
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "agui demo: %v\n", err)
		return ExitRejected
	}
	fmt.Fprintln(env.Stdout, "\nAll scenarios ended as expected.")
	return ExitOK
}
