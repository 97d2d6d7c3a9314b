package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// maxAnsweredRuns bounds how many runs one agui run starts by answering
// interrupts: an agent that asks again after every answer, under
// --approve, would otherwise never let the command end.
const maxAnsweredRuns = 50

// payloadFlags collects repeated --resume-with ID=JSON flags, in order.
type payloadFlags struct {
	ids      []string
	payloads map[string]json.RawMessage
}

func (f *payloadFlags) String() string { return strings.Join(f.ids, ", ") }

func (f *payloadFlags) Set(v string) error {
	id, payload, ok := strings.Cut(v, "=")
	if !ok || id == "" {
		return fmt.Errorf("want ID=JSON (the interrupt's id, then its answer), not %q", v)
	}
	if !json.Valid([]byte(payload)) || strings.TrimSpace(payload) == "null" {
		return fmt.Errorf("the answer to %s is not a JSON value (null is not an answer; --approve answers without a payload): %q", id, payload)
	}
	if f.payloads == nil {
		f.payloads = map[string]json.RawMessage{}
	}
	if _, dup := f.payloads[id]; !dup {
		f.ids = append(f.ids, id)
	}
	f.payloads[id] = json.RawMessage(payload)
	return nil
}

// positionFlag is --after: a client.Position whose zero value prints as
// nothing, so the usage shows no "(default 0)".
type positionFlag struct{ p *client.Position }

func (f positionFlag) String() string {
	if f.p == nil || *f.p == (client.Position{}) {
		return ""
	}
	return f.p.String()
}

func (f positionFlag) Set(s string) error { return f.p.UnmarshalText([]byte(s)) }

// answerer decides the answers to a run's interrupts, from the flags or by
// asking on the terminal.
type answerer struct {
	approve, decline bool
	with             payloadFlags
	used             map[string]bool // the --resume-with ids an interrupt had
	// ask prompts on prompt for each interrupt the flags leave open and
	// reads the answer from in.
	ask    bool
	in     *bufio.Reader
	prompt io.Writer
}

// some reports whether anything will answer an interrupt.
func (a *answerer) some() bool {
	return a.approve || a.decline || len(a.with.ids) > 0 || a.ask
}

// errNoAnswer is the error of a run whose interrupts nothing answered;
// errStopped, that the user gave no answer when asked.
var (
	errNoAnswer = errors.New("no answer")
	errStopped  = errors.New("no answer given")
)

// answer returns the resume entries for the pending interrupts: one per
// interrupt, or errNoAnswer (wrapped, naming the interrupt) when one is left
// without an answer, or the user gave none.
func (a *answerer) answer(pending []agui.Interrupt) ([]agui.ResumeEntry, error) {
	entries := make([]agui.ResumeEntry, 0, len(pending))
	for _, in := range pending {
		e := agui.ResumeEntry{InterruptID: in.ID, Status: agui.ResumeStatusResolved}
		switch payload, given := a.with.payloads[in.ID]; {
		case given:
			if a.used == nil {
				a.used = map[string]bool{}
			}
			a.used[in.ID] = true
			e.Payload = payload
		case a.approve: // resolved, without a payload
		case a.decline:
			e.Status = agui.ResumeStatusCancelled
		case a.ask:
			var err error
			if e, err = a.prompted(in); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%w for interrupt %s (%s)", errNoAnswer, in.ID, describe(in))
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// prompted asks the user for the answer to in, until a line is an answer:
// y or yes approves, n or no declines, a JSON value is the payload of an
// approval; an empty line or the end of input gives none.
func (a *answerer) prompted(in agui.Interrupt) (agui.ResumeEntry, error) {
	e := agui.ResumeEntry{InterruptID: in.ID, Status: agui.ResumeStatusResolved}
	fmt.Fprintf(a.prompt, "interrupt %s — %s\n", in.ID, describe(in))
	if len(in.ResponseSchema) > 0 {
		fmt.Fprintf(a.prompt, "  the answer's schema: %s\n", compact(in.ResponseSchema))
	}
	for {
		fmt.Fprint(a.prompt, "  answer: y approves, n declines, a JSON value answers; empty stops > ")
		line, err := a.in.ReadString('\n')
		text := strings.TrimSpace(line)
		switch {
		case text == "" && err != nil:
			fmt.Fprintln(a.prompt)
			return e, fmt.Errorf("%w for interrupt %s: the input ended", errStopped, in.ID)
		case text == "":
			return e, fmt.Errorf("%w for interrupt %s", errStopped, in.ID)
		case slices.Contains([]string{"y", "yes"}, strings.ToLower(text)):
			return e, nil
		case slices.Contains([]string{"n", "no"}, strings.ToLower(text)):
			e.Status = agui.ResumeStatusCancelled
			return e, nil
		case json.Valid([]byte(text)) && text != "null":
			e.Payload = json.RawMessage(text)
			return e, nil
		}
		fmt.Fprintf(a.prompt, "  %q is neither y, n nor a JSON value\n", text)
		if err != nil {
			return e, fmt.Errorf("%w for interrupt %s: the input ended", errStopped, in.ID)
		}
	}
}

// unused returns the --resume-with ids no interrupt had.
func (a *answerer) unused() []string {
	var ids []string
	for _, id := range a.with.ids {
		if !a.used[id] {
			ids = append(ids, id)
		}
	}
	return ids
}

// describe is an interrupt's reason and message, for a person.
func describe(in agui.Interrupt) string {
	if in.Message != nil {
		return in.Reason + ": " + *in.Message
	}
	return in.Reason
}

// isTTY reports whether r is a terminal: agui run asks there.
func isTTY(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
