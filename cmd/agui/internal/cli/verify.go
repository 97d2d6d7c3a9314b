package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/verify"
)

const verifyUsage = `usage: agui verify [--profile client|server] [--protocol 1.0|1.1] [--json] [FILE|-]

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

The protocol version checked against is --protocol, or the version the
stream's RUN_STARTED declares (1.0 for 1.0 or older; 1.1 for anything else,
and for a stream that declares nothing). Against 1.0, the members 1.1 added
(encryptedValueType) are foreign: the server profile rejects them as a
malformed event, the client profile strips them with a warning.

Exit status: 0 valid, 1 rejected, 2 unreadable input or usage error.

With --json, standard output carries exactly one JSON object, whatever the
outcome (only -h prints nothing there):
{"ok":bool,"index":N,"offset":N,"rule":"...","event":"...","id":"...",
 "message":"...","protocol":"...","warnings":[{"index":N,"offset":N,"message":"..."}]}
index is the 0-based position of the first rejected event in the input
(the number of events for a truncated stream, -1 when valid or when no event
is involved). offset is the byte offset in the input where that event, or
the event a warning is about, starts (SSE: its frame's first data line;
protobuf: its length prefix; JSON: its first byte), or of the spot that
could not be read; -1 when there is none (valid, truncated, usage).
protocol is the version checked against ("" when nothing was checked). rule is
a verifier rule's id, or
one of truncated, malformed-event, unknown-event, sse-line-endings,
unreadable (the input cannot be read or split into events) and usage.

flags:
`

// verdict is the --json output: one object for every outcome.
type verdict struct {
	OK       bool          `json:"ok"`
	Index    int           `json:"index"`
	Offset   int           `json:"offset"`
	Rule     string        `json:"rule"`
	Event    string        `json:"event"`
	ID       string        `json:"id"`
	Message  string        `json:"message"`
	Protocol string        `json:"protocol"`
	Warnings []warningJSON `json:"warnings"` // never null
}

type warningJSON struct {
	Index   int    `json:"index"`
	Offset  int    `json:"offset"`
	Message string `json:"message"`
}

// Rules of the verdict that are not the verifier's.
const (
	ruleUnreadable = "unreadable"
	ruleUsage      = "usage"
)

// verifyRun is one invocation's output: the human form on stdout and
// stderr, or exactly one JSON object on stdout.
type verifyRun struct {
	env    *Env
	asJSON bool
}

// stop ends the command without a verdict on the stream (a usage error or
// unreadable input): a message on stderr, or the one JSON object.
func (vr *verifyRun) stop(code int, v verdict, human string) int {
	if vr.asJSON {
		v.Message = human
		vr.print(v)
	} else {
		fmt.Fprintf(vr.env.Stderr, "agui verify: %s\n", human)
	}
	return code
}

func (vr *verifyRun) print(v verdict) {
	if v.Warnings == nil {
		v.Warnings = []warningJSON{}
	}
	out, _ := json.Marshal(v) // strings, ints and bools: it cannot fail
	fmt.Fprintf(vr.env.Stdout, "%s\n", out)
}

// wantsJSON reports whether args ask for --json (the last mention wins, as
// with the flag package). It is asked before flags are parsed, so that a
// command line the flag package rejects still gets its one JSON object.
func wantsJSON(args []string) bool {
	want := false
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "json" {
			continue
		}
		b, err := strconv.ParseBool(value)
		want = !hasValue || err == nil && b
	}
	return want
}

func runVerify(env *Env, args []string) int {
	vr := &verifyRun{env: env, asJSON: wantsJSON(args)}
	usageErr := verdict{Index: -1, Offset: -1, Rule: ruleUsage}
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	printUsage := func() {
		fs.SetOutput(env.Stderr)
		io.WriteString(env.Stderr, verifyUsage)
		fs.PrintDefaults()
	}
	fs.SetOutput(env.Stderr)
	fs.Usage = printUsage
	if vr.asJSON {
		// The flag package's complaint goes into the object instead; -h
		// still prints the usage.
		fs.SetOutput(io.Discard)
		fs.Usage = func() {}
	}
	profileName := fs.String("profile", "client", "`client` or server: the rules to check against")
	protocol := fs.String("protocol", "", "`1.0` or 1.1: the protocol version to check against (default: the stream's declaration, else 1.1)")
	fs.Bool("json", false, "print the verdict as one JSON object (see above)")
	// Flags may come before or after the file name.
	operands, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		if vr.asJSON {
			printUsage()
		}
		return ExitOK
	case err != nil && vr.asJSON:
		return vr.stop(ExitUsage, usageErr, err.Error())
	case err != nil:
		return ExitUsage
	}
	var profile verify.Profile
	switch *profileName {
	case "client":
		profile = verify.ClientProfile
	case "server":
		profile = verify.ServerProfile
	default:
		return vr.stop(ExitUsage, usageErr, fmt.Sprintf("--profile must be client or server, not %q", *profileName))
	}
	if *protocol != "" && !slices.Contains(verify.Protocols(), *protocol) {
		return vr.stop(ExitUsage, usageErr, fmt.Sprintf("--protocol must be one of %s, not %q", strings.Join(verify.Protocols(), ", "), *protocol))
	}
	if len(operands) > 1 {
		if !vr.asJSON {
			defer printUsage()
		}
		return vr.stop(ExitUsage, usageErr, fmt.Sprintf("one input at most, got %d", len(operands)))
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
			return vr.stop(ExitUsage, verdict{Index: -1, Offset: -1, Rule: ruleUnreadable}, err.Error())
		}
		defer f.Close()
		in = f
	}
	es, err := readEvents(in)
	var r *verify.Report
	if err == nil {
		r, err = verify.CheckStreamVersion(profile, *protocol, es.docs, func() int64 { return es.at })
	}
	if err != nil {
		msg := name + ": " + err.Error()
		v := verdict{Index: -1, Offset: -1, Rule: ruleUnreadable}
		if es != nil && !errors.Is(err, errNoEvents) {
			msg = name + ": unreadable " + es.format + " at byte " + strconv.FormatInt(es.at, 10) + ": " + err.Error()
			v.Offset = int(es.at)
		}
		return vr.stop(ExitUsage, v, msg)
	}
	format, crAt, crOffset := es.format, es.crAt, int(es.crOffset)

	v := verdictOf(r)
	v.Protocol = r.Protocol
	warnings := r.Warnings
	if crAt >= 0 {
		// Producers must end SSE lines with LF alone, and the reference
		// client cannot read anything else: a producer (server profile) is
		// rejected for it, a consumer reading it is warned.
		const msg = "SSE lines end in CR or CRLF; producers must use LF, and the reference client (@ag-ui/client 1.0.0) cannot read this stream"
		if profile == verify.ServerProfile && (v.OK || v.Index > crAt) {
			v = verdict{Index: crAt, Offset: crOffset, Rule: "sse-line-endings", Message: msg}
		} else {
			warnings = append([]agui.Warning{{Kind: agui.WarnFraming, Index: crAt, Offset: int64(crOffset), Message: msg}}, warnings...)
		}
	}
	for _, w := range warnings {
		v.Warnings = append(v.Warnings, warningJSON{Index: w.Index, Offset: int(w.Offset), Message: w.Message})
	}
	if vr.asJSON {
		vr.print(v)
	} else {
		for _, w := range warnings {
			fmt.Fprintf(env.Stderr, "warning: event %d: %s\n", w.Index, w.Message)
		}
		if r.MoreWarnings > 0 {
			fmt.Fprintf(env.Stderr, "warning: %d more warnings not shown\n", r.MoreWarnings)
		}
		switch {
		case v.OK:
			fmt.Fprintf(env.Stdout, "valid: %d events (%s, %s profile, protocol %s)\n", r.Events, format, profile, r.Protocol)
		case v.Rule == "truncated":
			fmt.Fprintf(env.Stdout, "rejected at the end of the stream, after %d events (%s, %s profile, protocol %s):\n  %s\n", r.Events, format, profile, r.Protocol, v.Message)
		default:
			what := ""
			if v.Event != "" {
				what = v.Event + "; "
			}
			fmt.Fprintf(env.Stdout, "rejected at event %d of %d (%s%s, %s profile, protocol %s):\n  %s\n", v.Index, r.Events, what, format, profile, r.Protocol, v.Message)
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
		return verdict{OK: true, Index: -1, Offset: -1}
	}
	v := verdict{Index: r.Index, Offset: int(r.Offset), Event: r.Event, Message: r.Err.Error()}
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
