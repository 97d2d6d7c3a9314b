// Package demo is a built-in AG-UI agent that needs no model and no API key
// and exercises the whole protocol in one run. `agui demo` serves it; the
// interop test runs the reference TypeScript client against it.
//
// What it does depends on the last user message:
//
//   - containing "interrupt": a subagent suspends on an approval question and
//     the run finishes with an interrupt outcome; resuming it (a run whose
//     input answers the interrupt) finishes with success;
//   - containing "fail": it says a few words, then fails with RUN_ERROR
//     AGENT_ERROR;
//   - containing "slow": it streams a long answer slowly, a word at a time,
//     so that there is time to cancel it;
//   - anything else: a step, reasoning (with an encrypted value), streamed
//     text, a tool call with arguments and a result, a state snapshot then a
//     state delta, an activity created then patched, and a subagent with
//     attributed events, then success with a result.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// State is the demo's shared state.
type State struct {
	Topic    string    `json:"topic,omitempty"`
	Steps    []string  `json:"steps"`
	Forecast *Forecast `json:"forecast,omitempty"`
	Approved *bool     `json:"approved,omitempty"`
}

// Forecast is what the demo's weather tool returns.
type Forecast struct {
	City    string `json:"city"`
	Sky     string `json:"sky"`
	HighC   int    `json:"highC"`
	Source  string `json:"source"`
	Checked bool   `json:"checked"`
}

// Config tunes the demo; the zero value gives the defaults.
type Config struct {
	// SlowDelay is the pause between words of the "slow" answer (default
	// 150ms); SlowWords is how many words it has (default 60).
	SlowDelay time.Duration
	SlowWords int
}

// Agent returns the demo agent with the default configuration.
func Agent() server.Agent[State] { return NewAgent(Config{}) }

// NewAgent returns the demo agent configured by cfg.
func NewAgent(cfg Config) server.Agent[State] {
	if cfg.SlowDelay <= 0 {
		cfg.SlowDelay = 150 * time.Millisecond
	}
	if cfg.SlowWords <= 0 {
		cfg.SlowWords = 60
	}
	return &agent{cfg: cfg}
}

type agent struct{ cfg Config }

func (a *agent) Run(ctx context.Context, rc *server.RunContext[State]) (server.Outcome, error) {
	if len(rc.Resume()) > 0 {
		return resume(rc)
	}
	text := strings.ToLower(rc.LastUserText())
	switch {
	case strings.Contains(text, "interrupt"):
		return interrupt(rc)
	case strings.Contains(text, "fail"):
		if err := rc.Say("Calling the flaky service…"); err != nil {
			return server.Outcome{}, err
		}
		return server.Outcome{}, server.AgentError(errors.New("the demo was asked to fail"))
	case strings.Contains(text, "slow"):
		return a.slow(ctx, rc)
	}
	return tour(rc)
}

// tour exercises every kind of entity once.
func tour(rc *server.RunContext[State]) (server.Outcome, error) {
	step, err := rc.StartStep("plan")
	if err != nil {
		return server.Outcome{}, err
	}
	defer step.End()

	// Reasoning: a span holding one visible message with an encrypted value.
	r, err := rc.StartReasoning()
	if err != nil {
		return server.Outcome{}, err
	}
	rm, err := r.StartMessage()
	if err != nil {
		return server.Outcome{}, err
	}
	for _, part := range []string{"The user wants the weather. ", "I will call the tool, ", "then ask a subagent to summarise."} {
		if err := rm.Append(part); err != nil {
			return server.Outcome{}, err
		}
	}
	if err := rm.End(); err != nil {
		return server.Outcome{}, err
	}
	if err := rm.EncryptedValue("ZGVtby1yZWFzb25pbmc="); err != nil {
		return server.Outcome{}, err
	}
	if err := r.End(); err != nil {
		return server.Outcome{}, err
	}

	// State: a snapshot first.
	rc.SetState(State{Topic: "weather", Steps: []string{"plan"}})
	if err := rc.PublishStateSnapshot(); err != nil {
		return server.Outcome{}, err
	}

	// Streamed text, which then holds the tool call.
	msg, err := rc.StartTextMessage()
	if err != nil {
		return server.Outcome{}, err
	}
	for _, w := range []string{"Let me ", "check the ", "weather in ", "Paris."} {
		if err := msg.Append(w); err != nil {
			return server.Outcome{}, err
		}
	}
	if err := msg.End(); err != nil {
		return server.Outcome{}, err
	}

	call, err := rc.StartToolCall("get_weather", server.WithParentMessage(msg.ID()))
	if err != nil {
		return server.Outcome{}, err
	}
	for _, part := range []string{`{"city":`, `"Paris"}`} {
		if err := call.Args(part); err != nil {
			return server.Outcome{}, err
		}
	}
	forecast := Forecast{City: "Paris", Sky: "sunny", HighC: 24, Source: "demo", Checked: true}
	if err := call.ResultJSON(forecast); err != nil {
		return server.Outcome{}, err
	}

	// State again: a small change, sent as a delta.
	rc.UpdateState(func(s *State) {
		s.Steps = append(s.Steps, "weather")
		s.Forecast = &forecast
	})
	if err := rc.PublishState(); err != nil {
		return server.Outcome{}, err
	}

	// An activity, created then patched.
	act, err := rc.StartActivity("progress", map[string]any{"stage": "summarising", "percent": 50, "detail": "Asking the summariser for one line about the forecast."})
	if err != nil {
		return server.Outcome{}, err
	}

	// A subagent whose events are attributed to it.
	sub, err := rc.StartSubagent("summariser", server.WithDescription("Writes a one-line summary"), server.WithParentToolCall(call.ID()))
	if err != nil {
		return server.Outcome{}, err
	}
	subStep, err := sub.StartStep("summarise")
	if err != nil {
		return server.Outcome{}, err
	}
	summary := fmt.Sprintf("%s: %s, up to %d °C.", forecast.City, forecast.Sky, forecast.HighC)
	if err := sub.Say(summary); err != nil {
		return server.Outcome{}, err
	}
	if err := subStep.End(); err != nil {
		return server.Outcome{}, err
	}
	if err := sub.Finish(map[string]string{"summary": summary}); err != nil {
		return server.Outcome{}, err
	}

	if err := act.Update(map[string]any{"stage": "summarising", "percent": 100, "detail": "Asking the summariser for one line about the forecast."}); err != nil {
		return server.Outcome{}, err
	}
	rc.UpdateState(func(s *State) { s.Steps = append(s.Steps, "summary") })
	if err := rc.PublishState(); err != nil {
		return server.Outcome{}, err
	}
	if err := rc.Say("It will be sunny in Paris, up to 24 °C."); err != nil {
		return server.Outcome{}, err
	}
	if err := step.End(); err != nil {
		return server.Outcome{}, err
	}
	return server.Success().WithResult(map[string]string{"summary": summary}), nil
}

// interrupt pauses the run on an approval question, asked by a subagent.
func interrupt(rc *server.RunContext[State]) (server.Outcome, error) {
	if err := rc.Say("I can book a table, but I need your approval first."); err != nil {
		return server.Outcome{}, err
	}
	sub, err := rc.StartSubagent("booker", server.WithDescription("Books restaurant tables"))
	if err != nil {
		return server.Outcome{}, err
	}
	question := server.NewInterrupt("approval", "Book a table for two at 8pm?")
	question.SubagentRunID = new(sub.ID())
	if err := sub.Say("Waiting for approval."); err != nil {
		return server.Outcome{}, err
	}
	if err := sub.Suspend(question.ID); err != nil {
		return server.Outcome{}, err
	}
	rc.UpdateState(func(s *State) { s.Topic = "booking"; s.Steps = append(s.Steps, "asked approval") })
	if err := rc.PublishState(); err != nil {
		return server.Outcome{}, err
	}
	return server.Interrupted(question), nil
}

// resume finishes a run that answers the approval question.
func resume(rc *server.RunContext[State]) (server.Outcome, error) {
	entry := rc.Resume()[0]
	approved := entry.Status == agui.ResumeStatusResolved
	reply := "Understood, I will not book."
	if approved {
		reply = "Booked: a table for two at 8pm."
	}
	if err := rc.Say(reply); err != nil {
		return server.Outcome{}, err
	}
	rc.UpdateState(func(s *State) { s.Approved = &approved; s.Steps = append(s.Steps, "resumed") })
	if err := rc.PublishState(); err != nil {
		return server.Outcome{}, err
	}
	return server.Success(), nil
}

// slow streams a long answer, pausing between words; cancelling the run stops
// it at the next word.
func (a *agent) slow(ctx context.Context, rc *server.RunContext[State]) (server.Outcome, error) {
	msg, err := rc.StartTextMessage()
	if err != nil {
		return server.Outcome{}, err
	}
	defer msg.End()
	t := time.NewTimer(a.cfg.SlowDelay)
	defer t.Stop()
	for i := 1; i <= a.cfg.SlowWords; i++ {
		if err := msg.Append(fmt.Sprintf("word%d ", i)); err != nil {
			return server.Outcome{}, err
		}
		t.Reset(a.cfg.SlowDelay)
		select {
		case <-ctx.Done():
			return server.Outcome{}, ctx.Err() // the driver reports it as CANCELLED, with the cause
		case <-t.C:
		}
	}
	if err := msg.End(); err != nil {
		return server.Outcome{}, err
	}
	return server.Success(), nil
}

// Handler returns the demo agent mounted as an AG-UI HTTP endpoint. So that
// any AG-UI client can play with it, it answers browser front ends from any
// origin (CORS, preflight included: the demo holds nothing worth guarding).
// Like every handler it reads legacy nulls such as "tools": null as absent.
// opts come after those defaults.
func Handler(opts ...server.HandlerOption) http.Handler {
	defaults := []server.HandlerOption{server.WithCORS("*")}
	return server.NewHandler(Agent(), append(defaults, opts...)...)
}

// Serve serves the demo agent at http://addr/agent until ctx is done, then
// shuts the server down gracefully. It prints the agent's URL to out once it
// is listening.
func Serve(ctx context.Context, addr string, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return ServeListener(ctx, ln, out)
}

// ServeListener is Serve on a listener the caller opened (one on port 0, say,
// whose address it already knows). It closes ln.
func ServeListener(ctx context.Context, ln net.Listener, out io.Writer) error {
	return ServeListenerOptions(ctx, ln, out)
}

// ServeListenerOptions is ServeListener with more handler options, such as
// [server.WithDurableRuns], whose run routes the handler serves under
// /agent/runs/ ([server.Mount]).
func ServeListenerOptions(ctx context.Context, ln net.Listener, out io.Writer, opts ...server.HandlerOption) error {
	mux := http.NewServeMux()
	h := Handler(append([]server.HandlerOption{server.WithKeepAlive(15 * time.Second)}, opts...)...)
	server.Mount(mux, "/agent", h)
	// The hardened server: header, idle and header-size limits, and a
	// Shutdown that ends runs in flight with RUN_ERROR "run cancelled: the
	// server is shutting down" (not "client disconnected"), so it is quick.
	srv := server.NewHTTPServer("", mux)
	fmt.Fprintf(out, "AG-UI demo agent: http://%s/agent\n", ln.Addr())
	fmt.Fprintln(out, `Try: curl -N -H 'Content-Type: application/json' -d '{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"hello"}]}' http://`+ln.Addr().String()+"/agent")

	return srv.ServeUntil(ctx, ln, 5*time.Second)
}
