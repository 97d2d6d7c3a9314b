package server_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

func tokens(in, out int64) agui.TokenUsage {
	return agui.TokenUsage{Provider: new("openai"), Model: new("gpt-test"), InputTokens: &in, OutputTokens: &out}
}

// The usage an agent attaches to its error travels on the RUN_ERROR that
// ends the run, whatever the error becomes; the annotation changes neither
// the code nor the message.
func TestErrorWithUsageOnRunError(t *testing.T) {
	u := tokens(120, 30)
	for _, tc := range []struct {
		name    string
		agent   func(ctx context.Context) error
		cancel  error // when set, the run is cancelled with this cause once the agent runs
		code    agui.ErrorCode
		message string
		usage   []agui.TokenUsage
	}{
		{
			name: "agent error",
			agent: func(context.Context) error {
				return server.ErrorWithUsage(server.AgentError(errors.New("provider broke off")), u)
			},
			code:    agui.CodeAgentError,
			message: "agent error: provider broke off",
			usage:   []agui.TokenUsage{u},
		},
		{
			name:    "plain error",
			agent:   func(context.Context) error { return server.ErrorWithUsage(fs.ErrNotExist, u, tokens(1, 2)) },
			code:    agui.CodeAgentError,
			message: "agent error: file does not exist",
			usage:   []agui.TokenUsage{u, tokens(1, 2)},
		},
		{
			name: "wrapped further",
			agent: func(context.Context) error {
				return fmt.Errorf("tool loop: %w", server.ErrorWithUsage(fs.ErrPermission, u))
			},
			code:    agui.CodeAgentError,
			message: "agent error: tool loop: permission denied",
			usage:   []agui.TokenUsage{u},
		},
		{
			name: "cancelled",
			agent: func(ctx context.Context) error {
				<-ctx.Done()
				return server.ErrorWithUsage(ctx.Err(), u)
			},
			cancel:  server.ErrDeadline,
			code:    agui.CodeCancelled,
			message: "run cancelled: run deadline exceeded",
			usage:   []agui.TokenUsage{u},
		},
		{
			name:    "no usage",
			agent:   func(context.Context) error { return server.ErrorWithUsage(fs.ErrNotExist) },
			code:    agui.CodeAgentError,
			message: "agent error: file does not exist",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
				if tc.cancel != nil {
					// Cancelled from inside, so the agent surely runs
					// first: a deadline could pass before it is called.
					cancel(tc.cancel)
				}
				return server.Outcome{}, tc.agent(ctx)
			})
			var last agui.Event
			for ev, err := range server.Run(ctx, agent, &agui.RunAgentInput{ThreadID: "t", RunID: "r"}) {
				if err != nil {
					t.Fatal(err)
				}
				last = ev
			}
			re, ok := last.(*agui.RunError)
			if !ok {
				t.Fatalf("the run ends with %T", last)
			}
			if re.Code == nil || *re.Code != string(tc.code) || re.Message != tc.message {
				t.Fatalf("RUN_ERROR %v %q, want %s %q", re.Code, re.Message, tc.code, tc.message)
			}
			if !reflect.DeepEqual(re.Usage, tc.usage) {
				t.Fatalf("usage %+v, want %+v", re.Usage, tc.usage)
			}
		})
	}
}

// A run stopped by request whose agent unwinds cleanly ends with the
// cancelled outcome, and the usage the agent reported rides on it.
func TestErrorWithUsageOnCancelledOutcome(t *testing.T) {
	u := tokens(7, 3)
	started := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		close(started)
		<-ctx.Done()
		return server.Outcome{}, server.ErrorWithUsage(ctx.Err(), u)
	})
	r := server.NewRunner(t.Context(), agent, &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
	go func() {
		<-started
		r.Cancel(server.ErrCancelRequested)
	}()
	var last agui.Event
	for ev, err := range r.Events() {
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	fin, ok := last.(*agui.RunFinished)
	if !ok {
		t.Fatalf("the run ends with %T", last)
	}
	if _, ok := fin.Outcome.(*agui.RunFinishedCancelledOutcome); !ok {
		t.Fatalf("outcome %T, want the cancelled outcome", fin.Outcome)
	}
	if !reflect.DeepEqual(fin.Usage, []agui.TokenUsage{u}) {
		t.Fatalf("usage %+v", fin.Usage)
	}
}

// The annotation is transparent: errors.Is, errors.As and CodeOf see
// through it, its message is the error's own, and nil stays nil.
func TestErrorWithUsageIsTransparent(t *testing.T) {
	u := tokens(1, 1)
	check := func(what string, ok bool) {
		t.Helper()
		if !ok {
			t.Error(what)
		}
	}
	cancelled := server.ErrorWithUsage(context.Canceled, u)
	check("errors.Is reaches context.Canceled", errors.Is(cancelled, context.Canceled))
	check("IsCancelled", server.IsCancelled(cancelled))
	check("CodeOf is CANCELLED", server.CodeOf(cancelled) == agui.CodeCancelled)
	check("the message is the error's own", cancelled.Error() == context.Canceled.Error())

	agentErr := server.AgentError(fmt.Errorf("quota: %w", &quotaError{left: 2}))
	annotated := server.ErrorWithUsage(agentErr, u)
	var e *server.Error
	check("errors.As finds the *Error itself", errors.As(annotated, &e) && e == agentErr)
	var q *quotaError
	check("errors.As reaches the cause", errors.As(annotated, &q))
	one := []agui.TokenUsage{u}
	check("UsageOf", reflect.DeepEqual(server.UsageOf(annotated), one))
	check("UsageOf through a wrap", reflect.DeepEqual(server.UsageOf(fmt.Errorf("outer: %w", annotated)), one))

	v := tokens(9, 9)
	check("the outermost annotation wins", reflect.DeepEqual(server.UsageOf(server.ErrorWithUsage(annotated, v)), []agui.TokenUsage{v}))

	check("nil stays nil", server.ErrorWithUsage(nil, u) == nil)
	check("no usage gives err itself", server.ErrorWithUsage(agentErr) == error(agentErr))
	check("no annotation, no usage", server.UsageOf(agentErr) == nil && server.UsageOf(nil) == nil)
}
