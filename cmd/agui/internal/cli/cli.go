// Package cli implements the agui command: a table of subcommands, each a
// function from arguments and standard streams to an exit status, so that
// main stays one line and tests drive commands in process.
package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Exit statuses shared by every subcommand.
const (
	ExitOK       = 0 // success (for verify: the stream is valid)
	ExitRejected = 1 // the command ran and the answer is no (for verify: the stream breaks a rule)
	ExitUsage    = 2 // a usage error or unreadable input
)

// Env is what a subcommand may touch.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// command is one subcommand. To add one (demo, run, …), write its run
// function in its own file and list it in commands.
type command struct {
	name    string
	summary string
	run     func(env *Env, args []string) int
}

var commands = []command{
	{"verify", "check the event order of a captured AG-UI stream", runVerify},
	{"demo", "serve the built-in demo agent over HTTP", runDemo},
	{"run", "run an AG-UI agent once and show what it streams", runRun},
	{"inspect", "see every event of an AG-UI run in a local web page", runInspect},
}

// Main runs the agui command with args (without the program name) and
// returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return ExitOK
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	if i < 0 {
		fmt.Fprintf(stderr, "agui: unknown command %q\n", name)
		usage(stderr)
		return ExitUsage
	}
	return commands[i].run(env, args[1:])
}

func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("usage: agui <command> [arguments]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'agui <command> -h' for a command's flags.\n")
	io.WriteString(w, b.String())
}

// parseInterspersed parses args with fs, flags and operands in any order
// (fs.Parse alone stops at the first operand), and returns the operands, or
// the parse error (flag.ErrHelp for -h).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return operands, err
		}
		if fs.NArg() == 0 {
			return operands, nil
		}
		operands = append(operands, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
