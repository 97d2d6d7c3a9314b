// Command agui is the AG-UI toolbox of agui-go.
//
//	agui verify [--profile client|server] [--protocol 1.0|1.1] [--json] [FILE|-]
//
// verify checks the event order of a captured stream (SSE, JSON Lines or a
// JSON array of events, detected automatically); exit status 0 means valid,
// 1 rejected, 2 unreadable input or a usage error. Run `agui help` for the
// list of commands.
package main

import (
	"os"

	"github.com/agui-go/sdk/cmd/agui/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
