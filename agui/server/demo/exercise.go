package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/agui/verify"
)

// Exercise runs the demo's scenarios against the AG-UI endpoint at url over
// real HTTP, as a client would: a full tour, an interrupt and its resumption,
// a failure, and a run the client abandons midway. For each it prints the
// events received and the verdicts of both verifier profiles to out, and it
// returns an error when a scenario does not end as the demo promises.
func Exercise(ctx context.Context, url string, out io.Writer) error {
	ex := &exercise{url: url, path: pathOf(url), out: out, client: &http.Client{}}
	tour, err := ex.run(ctx, "tour", input("t-tour", "r-tour", "Show me everything", ""))
	if err != nil {
		return err
	}
	if err := expectOutcome(tour, "success"); err != nil {
		return fmt.Errorf("tour: %w", err)
	}

	paused, err := ex.run(ctx, "interrupt", input("t-hitl", "r-hitl-1", "Please interrupt for approval", ""))
	if err != nil {
		return err
	}
	if err := expectOutcome(paused, "interrupt"); err != nil {
		return fmt.Errorf("interrupt: %w", err)
	}
	var resume []string
	for _, in := range paused.Outcome.(*agui.RunFinishedInterruptOutcome).Interrupts {
		resume = append(resume, fmt.Sprintf(`{"interruptId":%q,"status":"resolved","payload":{"approved":true}}`, in.ID))
	}
	resumed, err := ex.run(ctx, "resume", input("t-hitl", "r-hitl-2", "Please interrupt for approval", strings.Join(resume, ",")))
	if err != nil {
		return err
	}
	if err := expectOutcome(resumed, "success"); err != nil {
		return fmt.Errorf("resume: %w", err)
	}

	failed, err := ex.run(ctx, "fail", input("t-fail", "r-fail", "Please fail", ""))
	if err != nil {
		return err
	}
	if re, ok := failed.last.(*agui.RunError); !ok || re.Code == nil || *re.Code != string(agui.CodeAgentError) {
		return fmt.Errorf("fail: the run should end in RUN_ERROR %s, got %s", agui.CodeAgentError, failed.lastType())
	}

	return ex.abandon(ctx, input("t-slow", "r-slow", "Go slow, please", ""))
}

// pathOf returns the path of the endpoint's URL. The output names only the
// path: the exercise usually runs against a server on a temporary port that
// is gone by the time anyone reads the output, so printing the port would
// invite a request to nothing.
func pathOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Path == "" {
		return "/"
	}
	return u.Path
}

type exercise struct {
	url    string
	path   string // what the output names: the URL's path, never its host and port
	out    io.Writer
	client *http.Client
}

// result is what one run produced.
type result struct {
	last    agui.Event
	Outcome agui.RunFinishedOutcome
}

func (r *result) lastType() string {
	if r.last == nil {
		return "nothing"
	}
	return string(r.last.Type())
}

func expectOutcome(r *result, want string) error {
	rf, ok := r.last.(*agui.RunFinished)
	if !ok {
		return fmt.Errorf("the run should finish with a %s outcome, got %s", want, r.lastType())
	}
	got := "success"
	switch rf.Outcome.(type) {
	case *agui.RunFinishedInterruptOutcome:
		got = "interrupt"
	case *agui.RunFinishedCancelledOutcome:
		got = "cancelled"
	case nil, *agui.RunFinishedSuccessOutcome:
	}
	if got != want {
		return fmt.Errorf("outcome %s, want %s", got, want)
	}
	return nil
}

func input(thread, run, text, resume string) []byte {
	body := fmt.Sprintf(`{"threadId":%q,"runId":%q,"protocolVersion":%q,"messages":[{"id":"u-%s","role":"user","content":%q}]`,
		thread, run, agui.ProtocolVersion, run, text)
	if resume != "" {
		body += `,"resume":[` + resume + `]`
	}
	return []byte(body + "}")
}

func (ex *exercise) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ex.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := ex.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("HTTP %s (%s): %s", resp.Status, resp.Header.Get("Content-Type"), msg)
	}
	return resp, nil
}

// run posts one input, reads the whole stream, prints it and checks it with
// both verifier profiles.
func (ex *exercise) run(ctx context.Context, name string, body []byte) (*result, error) {
	fmt.Fprintf(ex.out, "\n== %s: POST %s\n", name, ex.path)
	resp, err := ex.post(ctx, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer resp.Body.Close()
	var docs [][]byte
	res := &result{}
	for frame, err := range sse.Frames(resp.Body) {
		if err != nil {
			return nil, fmt.Errorf("%s: reading the stream: %w", name, err)
		}
		doc := bytes.Clone(frame)
		docs = append(docs, doc)
		ev, err := agui.DecodeEvent(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: event %d: %w", name, len(docs)-1, err)
		}
		fmt.Fprintf(ex.out, "  %s\n", summary(ev))
		res.last = ev
		if rf, ok := ev.(*agui.RunFinished); ok {
			res.Outcome = rf.Outcome
		}
	}
	for _, p := range []verify.Profile{verify.ServerProfile, verify.ClientProfile} {
		rep := verify.Check(p, docs)
		if !rep.OK() {
			return nil, fmt.Errorf("%s: the %s profile rejects the stream at event %d: %w", name, p, rep.Index, rep.Err)
		}
	}
	fmt.Fprintf(ex.out, "  -> %d events, accepted by the server and client verifiers\n", len(docs))
	return res, nil
}

// abandon starts the slow run and hangs up after the first words, the way a
// user closes a tab; the server cancels the run (its tests check that).
func (ex *exercise) abandon(ctx context.Context, body []byte) error {
	fmt.Fprintf(ex.out, "\n== abandon: POST %s, hang up after three words\n", ex.path)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := ex.post(ctx, body)
	if err != nil {
		return fmt.Errorf("abandon: %w", err)
	}
	defer resp.Body.Close()
	words := 0
	for frame, err := range sse.Frames(resp.Body) {
		if err != nil {
			return fmt.Errorf("abandon: %w", err)
		}
		ev, err := agui.DecodeEvent(frame)
		if err != nil {
			return fmt.Errorf("abandon: %w", err)
		}
		fmt.Fprintf(ex.out, "  %s\n", summary(ev))
		if _, ok := ev.(*agui.TextMessageContent); ok {
			if words++; words == 3 {
				cancel()
				fmt.Fprintln(ex.out, "  -> hung up mid-stream")
				return nil
			}
		}
	}
	return errors.New("abandon: the slow run ended before three words")
}

// summary is one line about an event: its type and what identifies it.
func summary(ev agui.Event) string {
	var detail string
	switch e := ev.(type) { //agui:nonexhaustive a summary needs detail for a few types only
	case *agui.RunStarted:
		detail = e.RunID
	case *agui.TextMessageContent:
		detail = fmt.Sprintf("%q", e.Delta)
	case *agui.ToolCallStart:
		detail = e.ToolCallName
	case *agui.ToolCallArgs:
		detail = e.Delta
	case *agui.StepStarted:
		detail = e.StepName
	case *agui.SubagentStarted:
		detail = e.Name
	case *agui.RunError:
		detail = e.Message
	case *agui.RunFinished:
		detail = "outcome "
		switch e.Outcome.(type) {
		case *agui.RunFinishedInterruptOutcome:
			detail += "interrupt"
		case *agui.RunFinishedCancelledOutcome:
			detail += "cancelled"
		case nil, *agui.RunFinishedSuccessOutcome:
			detail += "success"
		}
	}
	if detail == "" {
		return string(ev.Type())
	}
	return string(ev.Type()) + " " + detail
}
