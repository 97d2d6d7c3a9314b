// Package agentcmd is what the adapters' example commands (cmd/openai-agent,
// cmd/anthropic-agent, cmd/eino-agent, cmd/genkit-agent) share around their
// own part, which is building an agent from flags and the environment: the
// process's signals and exit codes, and serving the agent at /agent on the
// hardened server until the process is told to stop.
package agentcmd

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

	"github.com/agui-go/sdk/agui/server"
)

// Run is a command's body: it parses args, reads what it needs through
// getenv, writes what it serves to out, and serves until ctx is done. It
// takes all of them as arguments so that a test runs it as the process
// would.
type Run func(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error

// Main runs run as the process named name: with its arguments, environment
// and standard output, under a context that SIGINT or SIGTERM cancels. An
// error is printed on standard error and exits 2, -h and --help exit 0.
func Main(name string, run Run) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
}

// Serve listens on addr, writes "AG-UI agent (what): URL" to out, and
// serves agent at /agent on the hardened server ([server.NewHTTPServer]) until
// ctx is done. Runs still in flight then end with RUN_ERROR "the server is
// shutting down", and the model requests they made are aborted with them.
// The handler sends an SSE keep-alive after 15 seconds without an event,
// which proxies that close idle connections need.
func Serve[S any](ctx context.Context, addr, what string, out io.Writer, agent server.Agent[S]) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "AG-UI agent (%s): http://%s/agent\n", what, ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/agent", server.NewHandler(agent, server.WithKeepAlive(15*time.Second)))
	return server.NewHTTPServer("", mux).ServeUntil(ctx, ln, 5*time.Second)
}
