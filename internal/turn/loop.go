package turn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// Tool is a backend tool: a Go function the model may call, run on the server
// inside the run, its result sent back to the model and to the client.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments (an object schema);
	// nil for a tool that takes none.
	Parameters json.RawMessage
	// Func runs the call. Its string is the result the model reads; an error
	// is reported to the model as the result (so it can recover) unless the
	// run was cancelled, which ends the run.
	Func func(ctx context.Context, arguments json.RawMessage) (string, error)
}

// Result is the outcome of one backend tool call, as the model will read it.
type Result struct {
	CallID  string
	Name    string
	Content string
	IsError bool
}

// Conversation is one provider's side of a run: the request it builds from
// the run's input, extended by each reply and each round of tool results.
type Conversation interface {
	// Next asks the model for its next reply, streams it into t, and records
	// the reply in the conversation so a following request carries it. It
	// returns the reply's token usage (zero counts left nil when the provider
	// reported none) and, for a failed request, an error whose message says
	// what the provider said.
	Next(ctx context.Context, t *Turn) (agui.TokenUsage, error)
	// AddResults records the results of the backend tool calls of the last
	// reply.
	AddResults(results []Result)
}

// Loop is the tool loop: ask the model, run the backend tools it called,
// ask again with their results, until it answers without calling a backend
// tool.
type Loop struct {
	Backend  map[string]Tool
	Frontend map[string]bool // tools the run declared, executed by the client
	MaxSteps int             // model requests per run; 0 means 10
}

// ErrTooManySteps ends a run whose model kept calling backend tools for more
// requests than the loop allows.
var ErrTooManySteps = errors.New("the model kept calling tools past the step limit")

// Run drives conv to the end of the run. A reply with no tool call finishes
// the run; one that calls frontend tools finishes it too, with those calls
// pending for the client (backend calls of the same reply are run first and
// their results sent, so the next run carries them). Usage is summed over
// every request and lands on RUN_FINISHED, or on the RUN_ERROR of a run that
// fails after spending tokens (server.ErrorWithUsage).
func (l *Loop) Run(ctx context.Context, em *server.Emitter, conv Conversation, base agui.TokenUsage) (server.Outcome, error) {
	usage := base
	steps := l.MaxSteps
	if steps <= 0 {
		steps = 10
	}
	fail := func(err error) (server.Outcome, error) {
		if !Counted(usage) {
			return server.Outcome{}, err
		}
		return server.Outcome{}, server.ErrorWithUsage(err, usage)
	}
	for range steps {
		t := New(em)
		u, err := conv.Next(ctx, t)
		AddUsage(&usage, u)
		if err != nil {
			return fail(err)
		}
		_, calls, err := t.Close()
		if err != nil {
			return fail(err)
		}
		var pending []string
		var results []Result
		for _, c := range calls {
			if tool, ok := l.Backend[c.Name]; ok {
				r, err := runTool(ctx, tool, c)
				if err != nil {
					return fail(err)
				}
				results = append(results, r)
			} else if l.Frontend[c.Name] {
				pending = append(pending, c.ID)
				continue
			} else {
				results = append(results, Result{CallID: c.ID, Name: c.Name, IsError: true,
					Content: fmt.Sprintf("error: there is no tool named %q", c.Name)})
			}
			r := results[len(results)-1]
			if err := em.Emit(agui.NewToolCallResult(agui.NewID(), r.CallID, agui.TextContent(r.Content))); err != nil {
				return fail(err)
			}
		}
		if len(pending) > 0 || len(results) == 0 {
			return WithUsage(server.Success(pending...), usage), nil
		}
		conv.AddResults(results)
	}
	return fail(server.AgentError(fmt.Errorf("%w (%d requests)", ErrTooManySteps, steps)))
}

func runTool(ctx context.Context, tool Tool, c Call) (Result, error) {
	args := json.RawMessage(c.Arguments)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	out, err := tool.Func(ctx, args)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Result{CallID: c.ID, Name: c.Name, Content: "error: " + err.Error(), IsError: true}, nil
	}
	return Result{CallID: c.ID, Name: c.Name, Content: out}, nil
}

// WithUsage returns o carrying u, unless u holds no count.
func WithUsage(o server.Outcome, u agui.TokenUsage) server.Outcome {
	if !Counted(u) {
		return o
	}
	return o.WithUsage(u)
}

// Counted says whether u holds a count worth reporting.
func Counted(u agui.TokenUsage) bool {
	return u.InputTokens != nil || u.OutputTokens != nil || u.TotalTokens != nil
}

// AddUsage adds the counts of src to dst; a count reported by neither stays
// nil. Provider and model are taken from src when dst has none.
func AddUsage(dst *agui.TokenUsage, src agui.TokenUsage) {
	add := func(d **int64, s *int64) {
		if s == nil {
			return
		}
		if *d == nil {
			*d = new(int64)
		}
		**d += *s
	}
	add(&dst.InputTokens, src.InputTokens)
	add(&dst.OutputTokens, src.OutputTokens)
	add(&dst.TotalTokens, src.TotalTokens)
	add(&dst.ReasoningTokens, src.ReasoningTokens)
	add(&dst.CachedInputTokens, src.CachedInputTokens)
	add(&dst.CacheWriteInputTokens, src.CacheWriteInputTokens)
	if dst.Provider == nil {
		dst.Provider = src.Provider
	}
	if dst.Model == nil {
		dst.Model = src.Model
	}
}

// Count returns a pointer to n, for a count the provider reported.
func Count(n int64) *int64 { return &n }

// ErrTruncated is in the chain of a run's error when the provider's stream
// ended without the event that closes a reply: what was streamed may be
// partial, so the run fails rather than pass it off as the whole answer.
var ErrTruncated = errors.New("the stream ended before the reply was complete")

// Truncated is the run's error for a provider stream that ended early.
func Truncated(provider string) error {
	return server.AgentError(&Failure{Text: provider + " stream ended before the reply was complete", Errs: []error{ErrTruncated}})
}

// Failure is a failed provider request: its text is what the run's
// RUN_ERROR reports (the provider's own words, without the SDK's request
// dump), and errors.Is and errors.As reach the errors it wraps (the SDK's
// error, and a marker such as an adapter's ErrStream).
type Failure struct {
	Text string
	Errs []error
}

func (f *Failure) Error() string   { return f.Text }
func (f *Failure) Unwrap() []error { return f.Errs }
