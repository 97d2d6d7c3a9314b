package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// printer shows a run: the human view streams on stdout, the JSON view
// writes one event per line; warnings and the summary go to stderr.
type printer struct {
	out, err io.Writer
	json     bool
	color    bool // stdout is a terminal
	errColor bool // stderr is a terminal
	midLine  bool // stdout is in the middle of a line
	events   int
	warnings int
	last     agui.Event // the last RUN_FINISHED or RUN_ERROR
	buf      []byte
	names    map[string]string // tool call id → name
	state    []byte            // the final state, for the summary
	cur      string            // the message or tool call the current line streams
	// resumed names the run of --reattach; after is its --after.
	resumed string
	after   client.Position
}

// resume starts a new line when a delta belongs to another stream than the
// one on the current line (streams of parallel subagents interleave).
func (p *printer) resume(id, label string) {
	if id == p.cur {
		return
	}
	p.endLine()
	p.cur = id
	p.stream(p.paint(dim, "… "+label+": "))
}

func newPrinter(env *Env, asJSON bool) *printer {
	return &printer{out: env.Stdout, err: env.Stderr, json: asJSON,
		color: isTerminal(env.Stdout), errColor: isTerminal(env.Stderr), names: map[string]string{}}
}

// isTerminal reports whether w is a terminal and colour is welcome.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const (
	dim    = "2"
	bold   = "1"
	red    = "31"
	green  = "32"
	yellow = "33"
	blue   = "34"
	cyan   = "36"
)

func (p *printer) paint(code, s string) string { return paint(p.color, code, s) }

// paintErr colours text bound for stderr.
func (p *printer) paintErr(code, s string) string { return paint(p.errColor, code, s) }

func paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// line starts a new line of the human view, ending the current one first.
func (p *printer) line(s string) {
	p.endLine()
	fmt.Fprintln(p.out, s)
}

// stream continues the current line (a delta).
func (p *printer) stream(s string) {
	if s == "" {
		return
	}
	io.WriteString(p.out, s)
	p.midLine = !strings.HasSuffix(s, "\n")
}

func (p *printer) endLine() {
	if p.midLine && !p.json {
		io.WriteString(p.out, "\n")
	}
	p.midLine = false
	p.cur = ""
}

func (p *printer) warning(w agui.Warning) {
	p.warnings++
	if p.midLine && !p.json {
		p.endLine()
	}
	fmt.Fprintln(p.err, p.paintErr(yellow, "warning: ")+w.String())
}

func (p *printer) event(ev agui.Event) {
	p.events++
	if p.json {
		var err error
		p.buf, err = agui.AppendEvent(p.buf[:0], ev)
		if err != nil { // a delivered event always encodes; say so if not
			fmt.Fprintf(p.err, "agui run: cannot encode %s: %v\n", ev.Type(), err)
		} else {
			p.buf = append(p.buf, '\n')
			p.out.Write(p.buf)
		}
	}
	switch e := ev.(type) { //agui:nonexhaustive bookkeeping for two kinds; human() lists every type
	case *agui.RunFinished, *agui.RunError:
		p.last = ev
	case *agui.ToolCallStart:
		p.names[e.ToolCallID] = e.ToolCallName
	}
	if !p.json {
		p.human(ev)
	}
}

func compact(raw []byte) string {
	s := string(raw)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func who(tag *string) string {
	if tag == nil {
		return ""
	}
	return " [" + *tag + "]"
}

// human renders one event for a person. Every event type is listed, so a
// new one is a lint error here rather than something the command hides.
func (p *printer) human(ev agui.Event) {
	switch e := ev.(type) {
	case *agui.RunStarted:
		p.line(p.paint(dim, "▶ run "+e.RunID+" on thread "+e.ThreadID))
	case *agui.RunFinished:
		outcome := "success"
		switch o := e.Outcome.(type) {
		case *agui.RunFinishedInterruptOutcome:
			outcome = "interrupted"
			for _, in := range o.Interrupts {
				msg := in.Reason
				if in.Message != nil {
					msg += ": " + *in.Message
				}
				defer p.line(p.paint(yellow, "  ⏸ interrupt "+in.ID+" — "+msg))
			}
		case *agui.RunFinishedCancelledOutcome:
			outcome = "cancelled"
		case *agui.RunFinishedSuccessOutcome, nil:
		}
		p.line(p.paint(green, "■ run "+e.RunID+" finished: "+outcome))
	case *agui.RunError:
		code := ""
		if e.Code != nil {
			code = *e.Code + ": "
		}
		p.line(p.paint(red, "✖ run error: "+code+e.Message))
	case *agui.StepStarted:
		p.line(p.paint(dim, "┌ step "+e.StepName+who(e.SubagentRunID)))
	case *agui.StepFinished:
		p.line(p.paint(dim, "└ step "+e.StepName+" done"+who(e.SubagentRunID)))
	case *agui.TextMessageStart:
		role := "assistant"
		if e.Role != nil {
			role = string(*e.Role)
		}
		p.endLine()
		p.cur = e.MessageID
		p.stream(p.paint(bold, role+who(e.SubagentRunID)+": "))
	case *agui.TextMessageContent:
		p.resume(e.MessageID, "message "+e.MessageID)
		p.stream(e.Delta)
	case *agui.TextMessageEnd:
		p.endLine()
	case *agui.ToolCallStart:
		p.endLine()
		p.cur = e.ToolCallID
		p.stream(p.paint(cyan, "→ "+e.ToolCallName+who(e.SubagentRunID)+" "))
	case *agui.ToolCallArgs:
		p.resume(e.ToolCallID, "→ "+p.names[e.ToolCallID])
		p.stream(e.Delta)
	case *agui.ToolCallEnd:
		p.endLine()
	case *agui.ToolCallResult:
		p.line(p.paint(cyan, "← "+p.names[e.ToolCallID]+" result: ") + e.Content.String())
	case *agui.ReasoningStart, *agui.ReasoningEnd:
	case *agui.ReasoningMessageStart:
		p.endLine()
		p.cur = e.MessageID
		p.stream(p.paint(dim, "thinking: "))
	case *agui.ReasoningMessageContent:
		p.resume(e.MessageID, "thinking")
		p.stream(p.paint(dim, e.Delta))
	case *agui.ReasoningMessageEnd:
		p.endLine()
	case *agui.ReasoningEncryptedValue:
		p.line(p.paint(dim, "(encrypted reasoning for "+e.EntityID+")"))
	case *agui.StateSnapshot:
		p.line(p.paint(blue, "state: ") + compact(e.Snapshot))
	case *agui.StateDelta:
		ops := make([]string, 0, len(e.Delta))
		for _, op := range e.Delta {
			b, _ := json.Marshal(op)
			ops = append(ops, string(b))
		}
		p.line(p.paint(blue, "state Δ: ") + compact([]byte(strings.Join(ops, " "))))
	case *agui.MessagesSnapshot:
		p.line(p.paint(dim, "(messages snapshot: "+strconv.Itoa(len(e.Messages))+" messages)"))
	case *agui.ActivitySnapshot:
		p.line(p.paint(blue, "activity "+e.ActivityType+": ") + compact(e.Content))
	case *agui.ActivityDelta:
		p.line(p.paint(blue, "activity "+e.ActivityType+" Δ"))
	case *agui.SubagentStarted:
		p.line(p.paint(dim, "┌ subagent "+e.Name+" ["+e.SubagentRunID+"]"))
	case *agui.SubagentFinished:
		p.line(p.paint(dim, "└ subagent ["+e.SubagentRunID+"] finished"))
	case *agui.SubagentError:
		p.line(p.paint(red, "└ subagent ["+e.SubagentRunID+"] failed: "+e.Message))
	case *agui.Raw:
		p.line(p.paint(dim, "raw: ") + compact(e.Event))
	case *agui.Custom:
		p.line(p.paint(dim, "custom "+e.Name+": ") + compact(e.Value))
	case *agui.TextMessageChunk, *agui.ToolCallChunk, *agui.ReasoningMessageChunk:
		// never delivered: the client expands chunks
	}
}

// summary writes the closing line on stderr and returns the exit status.
func (p *printer) summary(ctx context.Context, runErr error, took time.Duration) int {
	stats := fmt.Sprintf("%d events, %d warnings, %s", p.events, p.warnings, took.Round(time.Millisecond))
	switch {
	case runErr != nil && errors.Is(runErr, context.Canceled) && ctx.Err() != nil:
		fmt.Fprintf(p.err, "%s (%s)\n", p.paintErr(yellow, "agui run: interrupted, request aborted"), stats)
		return ExitInterrupted
	case runErr != nil:
		fmt.Fprintf(p.err, "%s %v (%s)\n", p.paintErr(red, "agui run: failed:"), runErr, stats)
		return ExitRejected
	}
	switch e := p.last.(type) { //agui:nonexhaustive p.last only holds a terminal event
	case *agui.RunError:
		fmt.Fprintf(p.err, "agui run: the run ended with RUN_ERROR: %s (%s)\n", e.Message, stats)
		return ExitRunError
	case *agui.RunFinished:
		fmt.Fprintf(p.err, "agui run: run %s finished (%s)\n", e.RunID, stats)
		if !p.json && len(p.state) > 0 && string(p.state) != "{}" {
			fmt.Fprintf(p.err, "final state: %s\n", compact(p.state))
		}
	default:
		if p.resumed != "" && p.events == 0 {
			// Resume ends without error only once the run ended: it had
			// nothing after the cursor.
			fmt.Fprintf(p.err, "agui run: run %s has no events after %v (%s)\n", p.resumed, p.after, stats)
			break
		}
		// An answer without a run is no success: "0, the run finished"
		// must be something a user can trust. (The client library, like
		// the reference's verifier, accepts an empty stream: it is for the
		// caller to say what one means.)
		fmt.Fprintf(p.err, "%s the answer held no run: no RUN_STARTED, nothing ran (%s)\n", p.paintErr(red, "agui run: failed:"), stats)
		return ExitRejected
	}
	return ExitOK
}
