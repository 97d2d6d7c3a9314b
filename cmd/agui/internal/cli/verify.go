package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/verify"
)

const verifyUsage = `usage: agui verify [--profile client|server] [--json] [FILE|-]

Reads a captured AG-UI stream from FILE, or standard input when FILE is - or
absent: Server-Sent Events, JSON Lines, a JSON array of events, or the
protobuf binding's length-prefixed frames, detected automatically. Reports
whether the event order is valid.

The client profile (the default) reads the stream as a consuming client does:
lenient decoding (unknown event types dropped and unknown members stripped,
with warnings), chunk expansion, then the reference client's rules; a stream
that ends inside a run is rejected as truncated. The server profile holds a
producer to the server verifier's rules, with strict decoding. SSE lines
ending in CR or CRLF are read, but they are a rejection in the server
profile (producers must use LF) and a warning in the client profile (the
reference client cannot read them).

Exit status: 0 valid, 1 rejected, 2 unreadable input or usage error.
With --json, prints one object:
{"ok":bool,"index":N,"rule":"...","event":"...","id":"...","message":"..."}
where index is the 0-based position of the first rejected event in the input
(the number of events for a truncated stream, -1 when valid).

flags:
`

// verdict is the --json output.
type verdict struct {
	OK      bool   `json:"ok"`
	Index   int    `json:"index"`
	Rule    string `json:"rule"`
	Event   string `json:"event"`
	ID      string `json:"id"`
	Message string `json:"message"`
}

func runVerify(env *Env, args []string) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		io.WriteString(env.Stderr, verifyUsage)
		fs.PrintDefaults()
	}
	profileName := fs.String("profile", "client", "`client` or server: the rules to check against")
	asJSON := fs.Bool("json", false, "print the verdict as one JSON object")
	// Flags may come before or after the file name.
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
	var profile verify.Profile
	switch *profileName {
	case "client":
		profile = verify.ClientProfile
	case "server":
		profile = verify.ServerProfile
	default:
		fmt.Fprintf(env.Stderr, "agui verify: --profile must be client or server, not %q\n", *profileName)
		return ExitUsage
	}
	if len(operands) > 1 {
		fmt.Fprintf(env.Stderr, "agui verify: one input at most, got %d\n", len(operands))
		fs.Usage()
		return ExitUsage
	}
	name := "-"
	if len(operands) == 1 {
		name = operands[0]
	}

	// The input is read as it is checked, in memory that does not grow with
	// its length.
	in := env.Stdin
	if name == "-" {
		name = "standard input"
	} else {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(env.Stderr, "agui verify: %v\n", err)
			return ExitUsage
		}
		defer f.Close()
		in = f
	}
	es, err := readEvents(in)
	var r *verify.Report
	if err == nil {
		r, err = verify.CheckStream(profile, es.docs)
	}
	if err != nil {
		if es != nil && !errors.Is(err, errNoEvents) {
			fmt.Fprintf(env.Stderr, "agui verify: %s: unreadable %s: %v\n", name, es.format, err)
		} else {
			fmt.Fprintf(env.Stderr, "agui verify: %s: %v\n", name, err)
		}
		return ExitUsage
	}
	format, crAt := es.format, es.crAt

	v := verdictOf(r)
	if crAt >= 0 {
		// Producers must end SSE lines with LF alone, and the reference
		// client cannot read anything else: a producer (server profile) is
		// rejected for it, a consumer reading it is warned.
		const msg = "SSE lines end in CR or CRLF; producers must use LF, and the reference client (@ag-ui/client 1.0.0) cannot read this stream"
		if profile == verify.ServerProfile && (v.OK || v.Index > crAt) {
			v = verdict{Index: crAt, Rule: "sse-line-endings", Message: msg}
		} else {
			r.Warnings = append([]verify.Warning{{Index: crAt, Text: msg}}, r.Warnings...)
		}
	}
	if !*asJSON {
		for _, w := range r.Warnings {
			fmt.Fprintf(env.Stderr, "warning: event %d: %s\n", w.Index, w.Text)
		}
		if r.MoreWarnings > 0 {
			fmt.Fprintf(env.Stderr, "warning: %d more warnings not shown\n", r.MoreWarnings)
		}
	}
	if *asJSON {
		out, _ := json.Marshal(v)
		fmt.Fprintf(env.Stdout, "%s\n", out)
	} else {
		switch {
		case v.OK:
			fmt.Fprintf(env.Stdout, "valid: %d events (%s, %s profile)\n", r.Events, format, profile)
		case v.Rule == "truncated":
			fmt.Fprintf(env.Stdout, "rejected at the end of the stream, after %d events (%s, %s profile):\n  %s\n", r.Events, format, profile, v.Message)
		default:
			what := "event " + strconv.Itoa(v.Index)
			if v.Event != "" {
				what += " (" + v.Event + ")"
			}
			fmt.Fprintf(env.Stdout, "rejected at %s of %d (%s, %s profile):\n  %s\n", what, r.Events, format, profile, v.Message)
		}
	}
	if !v.OK {
		return ExitRejected
	}
	return ExitOK
}

// verdictOf turns a report into the --json object. rule is a verifier
// rule's id, "truncated", "malformed-event" (the event does not decode) or
// "unknown-event" (server profile: a type the protocol does not define).
func verdictOf(r *verify.Report) verdict {
	if r.OK() {
		return verdict{OK: true, Index: -1}
	}
	v := verdict{Index: r.Index, Event: r.Event, Message: r.Err.Error()}
	var ve *verify.Error
	switch {
	case errors.Is(r.Err, verify.ErrTruncated):
		v.Rule = "truncated"
		if errors.As(r.Err, &ve) {
			v.ID = ve.ID
		}
	case errors.As(r.Err, &ve):
		v.Rule, v.ID = ve.Rule.String(), ve.ID
	case errors.Is(r.Err, agui.ErrUnknownEventType):
		v.Rule = "unknown-event"
	default:
		v.Rule = "malformed-event"
	}
	return v
}
