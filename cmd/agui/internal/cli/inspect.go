package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/verify"
)

const inspectUsage = `usage: agui inspect [URL] [--addr HOST:PORT] [-H 'Key: Value']... [--proto]
       agui inspect --proxy HOST:PORT --to URL [--addr HOST:PORT]
       agui inspect --check URL [--input FILE] [--message TEXT] [-H …] [--proto] [--json] [--timeout D]

Serves a local page (on 127.0.0.1, a free port unless --addr says) that
runs requests against any AG-UI agent and shows every event as it streams:
the timeline (type, ids, size, time since the previous frame, subagent
nesting), each event's JSON and its wire frame, the findings of both
verifier profiles and the client's warnings pinned to the event that
caused them, and the conversation and state the reducer (agui/conversation)
built after any event, with state changes as diffs. Interrupts get a resume
form; a running request can be cancelled; a durable run can be reattached.
A run exports as JSON Lines (what agui verify reads) and a capture (the
export, agui run --json, SSE, protobuf) imports. URL, -H and --proto fill
the compose form. The page's URL is printed; Ctrl-C stops.

With --proxy, the agent at --to is also served at http://HOST:PORT/ (and
its routes below it: /runs/ID/events, …) through a recording reverse
proxy: point a front end (CopilotKit, the TypeScript HttpAgent, a browser
app) there instead of at the agent, and every run passing through appears
live in the page. The bytes the front end receives are the agent's; the
inspector reads a copy of them.

With --check, there is no page: the run is made once (the RunAgentInput of
--input, as agui run reads it, and/or the user message --message) and
the verdicts of both profiles are printed, as text or, with --json, as one
JSON object {"ok":bool,"url":"...","frames":N,"problem":"...",
"client":{…},"server":{…}} where client and server are agui verify --json's
objects. Exit status as agui verify's: 0 both profiles accept the stream,
1 one rejects it, 2 usage, or no stream to judge (unreachable, an HTTP
error, an answer that is not an AG-UI stream).

flags:
`

// inspectContext is the context the page is served under; tests replace it.
var inspectContext = runContext

func runInspect(env *Env, args []string) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		io.WriteString(env.Stderr, inspectUsage)
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:0", "the `address` the page is served on")
	check := fs.String("check", "", "run once against the agent at this `URL` and print the findings, without a page")
	inputFile := fs.String("input", "", "with --check: the RunAgentInput to send, from `file` (- for standard input)")
	message := fs.String("message", "", "with --check: add a user message with this `text`")
	asJSON := fs.Bool("json", false, "with --check: print one JSON object")
	proto := fs.Bool("proto", false, "ask for the protobuf binding (SSE as the fallback)")
	timeout := fs.Duration("timeout", 0, "with --check: give up after this `duration` (0: no limit)")
	var headers headerFlags
	fs.Var(&headers, "H", "add a request `header` ('Key: Value'); repeatable")
	proxyAddr := fs.String("proxy", "", "also serve a recording reverse proxy to --to on this `address`")
	to := fs.String("to", "", "with --proxy: the agent's `URL`")
	operands, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	} else if err != nil {
		return ExitUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "agui inspect: "+format+"\n", a...)
		fs.Usage()
		return ExitUsage
	}
	if len(operands) > 1 {
		return usageErr("one URL at most, got %d arguments", len(operands))
	}
	if (*proxyAddr == "") != (*to == "") {
		return usageErr("--proxy and --to go together")
	}
	if *check != "" && *proxyAddr != "" {
		return usageErr("--check runs once without a page: --proxy does not apply")
	}
	rr := runRequest{Headers: headers, Proto: *proto}
	if *check != "" {
		if len(operands) > 0 {
			return usageErr("--check takes the URL: %q is one too many", operands[0])
		}
		rr.URL = *check
		t, err := rr.target()
		if err != nil {
			return usageErr("%v", err)
		}
		t.Timeout = *timeout
		return inspectCheck(env, t, *inputFile, *message, *asJSON)
	}
	if *inputFile != "" || *message != "" || *asJSON || *timeout != 0 {
		return usageErr("--input, --message, --json and --timeout go with --check")
	}
	var defaults target
	if len(operands) == 1 {
		rr.URL = operands[0]
		t, err := rr.target()
		if err != nil {
			return usageErr("%v", err)
		}
		defaults = t
	} else {
		defaults.Proto = *proto
		defaults.Header = http.Header{}
		for _, h := range headers {
			k, v, _ := strings.Cut(h, ":")
			defaults.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agui inspect: %v\n", err)
		return ExitRejected
	}
	ctx, stop := inspectContext()
	defer stop()
	if defaults.URL == "" {
		defaults.URL = *to // the compose form runs against the proxied agent
	}
	in := newInspector(ctx, defaults)
	errc := make(chan error, 2)
	var servers []*http.Server
	if *proxyAddr != "" {
		rp, err := newRecordingProxy(in, *to)
		if err != nil {
			ln.Close()
			return usageErr("%v", err)
		}
		pln, err := net.Listen("tcp", *proxyAddr)
		if err != nil {
			ln.Close()
			fmt.Fprintf(env.Stderr, "agui inspect: --proxy: %v\n", err)
			return ExitRejected
		}
		in.proxy = "http://" + pln.Addr().String() + "/"
		psrv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
		servers = append(servers, psrv)
		go func() { errc <- psrv.Serve(pln) }()
	}
	srv := &http.Server{Handler: in.handler(), ReadHeaderTimeout: 10 * time.Second}
	servers = append(servers, srv)
	fmt.Fprintf(env.Stdout, "agui inspect: http://%s/\n", ln.Addr())
	if in.proxy != "" {
		fmt.Fprintf(env.Stdout, "agui inspect: proxy %s → %s\n", in.proxy, *to)
	}
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err = <-errc:
		fmt.Fprintf(env.Stderr, "agui inspect: %v\n", err)
		return ExitRejected
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, s := range servers {
		s.Shutdown(shut) // long polls end at their own deadline or here
	}
	return ExitOK
}

// checkVerdict is --check --json's object.
type checkVerdict struct {
	OK      bool    `json:"ok"`
	URL     string  `json:"url"`
	Frames  int     `json:"frames"`
	Problem string  `json:"problem"`
	Client  verdict `json:"client"`
	Server  verdict `json:"server"`
}

// inspectCheck runs once against t and prints both profiles' verdicts.
func inspectCheck(env *Env, t target, inputFile, message string, asJSON bool) int {
	in, _, err := buildInput(env, message, inputFile, "", "")
	if err != nil {
		fmt.Fprintf(env.Stderr, "agui inspect: %v\n", err)
		return ExitUsage
	}
	ctx, stop := runContext()
	defer stop()
	s := newSession(kindRun, t, in)
	s.start(ctx)
	s.waitDone(context.Background()) // the session ends with its request, which ctx ends
	s.mu.Lock()
	defer s.mu.Unlock()
	cv := checkVerdict{URL: t.URL, Frames: len(s.frames), Problem: s.problem}
	none := verdict{Index: -1, Offset: -1, Rule: ruleUnreadable, Message: s.problem, Warnings: []warningJSON{}}
	cv.Client, cv.Server = none, none
	var warns []warningJSON
	for _, f := range s.frames {
		for _, fd := range f.Findings {
			if fd.Severity == "warning" {
				warns = append(warns, warningJSON{Index: f.Index, Offset: -1, Message: fd.Source + ": " + fd.Message})
			}
		}
	}
	for name, out := range map[string]*verdict{"client": &cv.Client, "server": &cv.Server} {
		r := s.verdicts[name]
		if r == nil {
			continue
		}
		v := verdictOf(r)
		v.Protocol, v.Offset, v.Warnings = r.Protocol, -1, []warningJSON{}
		if name == "client" && warns != nil {
			v.Warnings = warns
		}
		*out = v
	}
	cv.OK = s.problem == "" && cv.Client.OK && cv.Server.OK
	code := ExitOK
	switch {
	case s.problem != "":
		code = ExitUsage
	case !cv.OK:
		code = ExitRejected
	}
	if asJSON {
		b, _ := json.Marshal(cv)
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return code
	}
	if s.problem != "" {
		fmt.Fprintf(env.Stderr, "agui inspect: %s\n", s.problem)
		return code
	}
	for _, w := range warns {
		fmt.Fprintf(env.Stderr, "warning: event %d: %s\n", w.Index, w.Message)
	}
	if s.note != "" {
		fmt.Fprintf(env.Stderr, "agui inspect: %s\n", s.note)
	}
	if out := s.conv.Outcome(); cancelledByError(out) {
		// Stopped on purpose (the page says the same): not a failure.
		fmt.Fprintf(env.Stderr, "agui inspect: cancelled: the run ended with RUN_ERROR %s: %s\n", agui.CodeCancelled, out.Error.Message)
	}
	fmt.Fprintf(env.Stdout, "%s: %d events (%s)\n", t.URL, len(s.frames), s.Format)
	for _, p := range []verify.Profile{verify.ClientProfile, verify.ServerProfile} {
		v := cv.Client
		if p == verify.ServerProfile {
			v = cv.Server
		}
		switch {
		case v.OK:
			fmt.Fprintf(env.Stdout, "%s profile: valid (protocol %s)\n", p, v.Protocol)
		case v.Rule == "truncated":
			fmt.Fprintf(env.Stdout, "%s profile: rejected at the end of the stream, after %d events (protocol %s):\n  %s\n", p, len(s.frames), v.Protocol, v.Message)
		default:
			what := ""
			if v.Event != "" {
				what = v.Event + ", "
			}
			fmt.Fprintf(env.Stdout, "%s profile: rejected at event %d of %d (%sprotocol %s):\n  %s\n", p, v.Index, len(s.frames), what, v.Protocol, v.Message)
		}
	}
	return code
}
