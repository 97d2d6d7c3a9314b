//go:build !agui_noverify

package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// Every option implements exactly the option types of the constructors it
// means something to. Option types have unexported methods, so implementing
// one is what makes passing the option compile; an option that implemented
// a type it does not apply to would be silently ignored there.
func TestOptionFamilies(t *testing.T) {
	type families struct{ run, handler, text, toolCall, reasoning, subagent, activity bool }
	for _, tc := range []struct {
		name string
		opt  any
		want families
	}{
		{"WithLogger", server.WithLogger(nil), families{run: true, handler: true}},
		{"WithInputEcho", server.WithInputEcho(), families{run: true, handler: true}},
		{"WithTimeout", server.WithTimeout(0), families{run: true, handler: true}},
		{"WithMaxBodyBytes", server.WithMaxBodyBytes(1), families{handler: true}},
		{"WithKeepAlive", server.WithKeepAlive(0), families{handler: true}},
		{"WithWriteTimeout", server.WithWriteTimeout(0), families{handler: true}},
		{"WithStrictInput", server.WithStrictInput(), families{handler: true}},
		{"WithLenientInput", server.WithLenientInput(), families{handler: true}},
		{"WithErrorDetail", server.WithErrorDetail(), families{run: true, handler: true}},
		{"WithCORS", server.WithCORS("*"), families{handler: true}},
		{"WithID", server.WithID("x"), families{text: true, toolCall: true, reasoning: true, subagent: true, activity: true}},
		{"WithRole", server.WithRole(agui.TextMessageRoleUser), families{text: true}},
		{"WithName", server.WithName("n"), families{text: true}},
		{"WithParentMessage", server.WithParentMessage("m"), families{toolCall: true, subagent: true}},
		{"WithParentToolCall", server.WithParentToolCall("c"), families{subagent: true}},
		{"WithDescription", server.WithDescription("d"), families{subagent: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, run := tc.opt.(server.RunOption)
			_, handler := tc.opt.(server.HandlerOption)
			_, text := tc.opt.(server.TextMessageOption)
			_, toolCall := tc.opt.(server.ToolCallOption)
			_, reasoning := tc.opt.(server.ReasoningOption)
			_, subagent := tc.opt.(server.SubagentOption)
			_, activity := tc.opt.(server.ActivityOption)
			got := families{run, handler, text, toolCall, reasoning, subagent, activity}
			if got != tc.want {
				t.Fatalf("implements %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The shared options reach the runs a handler drives: WithInputEcho given to
// NewHandler puts the input into RUN_STARTED.
func TestHandlerPassesRunOptionsOn(t *testing.T) {
	w := post(server.NewHandler(hello(), server.WithInputEcho()), validBody, nil)
	first, _, _ := strings.Cut(w.Body.String(), "\n\n")
	if !strings.Contains(first, `"RUN_STARTED"`) || !strings.Contains(first, `"input":{"threadId":"t"`) {
		t.Fatalf("first frame %s", first)
	}
}

func TestCodeOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want agui.ErrorCode
	}{
		{"nil", nil, ""},
		{"plain", fs.ErrNotExist, agui.CodeAgentError},
		{"agent error", server.AgentError(errors.New("down")), agui.CodeAgentError},
		{"serialization", serializationErr(t), agui.CodeSerialization},
		{"protocol", protocolErr(t), agui.CodeProtocol},
		{"panic", server.AgentPanic("boom", nil), agui.CodeAgentPanic},
		{"wrapped", fmt.Errorf("step 2: %w", serializationErr(t)), agui.CodeSerialization},
		{"context canceled", context.Canceled, agui.CodeCancelled},
		{"deadline", fmt.Errorf("model: %w", context.DeadlineExceeded), agui.CodeCancelled},
		{"custom code", &server.Error{Code: "QUOTA", Message: "quota"}, "QUOTA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := server.CodeOf(tc.err); got != tc.want {
				t.Fatalf("CodeOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// serializationErr is the SERIALIZATION error of an emit whose value does
// not encode.
func serializationErr(t *testing.T) error {
	t.Helper()
	rc, _ := server.NewRunContext[server.NoState](context.Background(), input())
	err := rc.Custom("x", make(chan int))
	if err == nil {
		t.Fatal("a channel encoded")
	}
	return err
}

// protocolErr is the PROTOCOL error of an emit of no event.
func protocolErr(t *testing.T) error {
	t.Helper()
	rc, _ := server.NewRunContext[server.NoState](context.Background(), input())
	err := rc.Emit(nil)
	if err == nil {
		t.Fatal("a nil event was emitted")
	}
	return err
}

// CodeOf agrees with the code the driver puts into RUN_ERROR for the same
// error.
func TestCodeOfMatchesRunError(t *testing.T) {
	for _, err := range []error{
		fs.ErrNotExist,
		server.AgentPanic("boom", nil),
		serializationErr(t),
		&server.Error{Code: "QUOTA", Message: "quota"},
	} {
		evs := drain(t, server.Run(context.Background(), server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return server.Outcome{}, err
		}), input()))
		if _, code := runErrorOf(t, terminal(t, evs)); code != string(server.CodeOf(err)) {
			t.Fatalf("%v: RUN_ERROR code %q, CodeOf %q", err, code, server.CodeOf(err))
		}
	}
}

func TestAgentPanic(t *testing.T) {
	stack := []byte("goroutine 1 [running]:")
	err := server.AgentPanic("nil map", stack)
	var pe *server.PanicError
	if err.Code != agui.CodeAgentPanic || err.Message != "agent panicked" || !errors.As(err, &pe) {
		t.Fatalf("%+v", err)
	}
	if pe.Value != "nil map" || string(pe.Stack) != string(stack) {
		t.Fatalf("cause %+v", pe)
	}
	if strings.Contains(err.Error(), "nil map") {
		t.Fatal("the panic value must not reach the client's message")
	}
}

// ctx.Err() is how an agent asks whether the run is cancelled; it sees a
// cancelled parent at once, as an emit does, not when the forwarding
// goroutine gets to run, and it carries the parent's cause.
func TestCtxErrSeesParentCancelAtOnce(t *testing.T) {
	for range 50 {
		parent, cancel := context.WithCancelCause(context.Background())
		cause := errors.New("the operator pulled the plug")
		evs := drain(t, server.Run(parent, server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			cancel(cause)
			err := ctx.Err()
			if !errors.Is(err, context.Canceled) || !errors.Is(context.Cause(ctx), cause) {
				t.Errorf("right after the parent's cancel: Err %v, Cause %v", err, context.Cause(ctx))
			}
			return server.Outcome{}, err
		}), input()))
		msg, code := runErrorOf(t, terminal(t, evs))
		if code != "CANCELLED" || msg != "run cancelled: the operator pulled the plug" {
			t.Fatalf("%q %q", msg, code)
		}
	}
}

// A run that finished normally no longer follows its parent: work it left
// running keeps its context when the parent ends.
func TestCtxErrAfterNormalFinish(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	var runCtx context.Context
	drain(t, server.Run(parent, server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		runCtx = ctx
		return server.Success(), nil
	}), input()))
	cancel()
	if err := runCtx.Err(); err != nil {
		t.Fatalf("a finished run's context reports %v after its parent ended", err)
	}
}

// A stateless agent names no state type, and accepts whatever state the
// client sends; an agent with a state type still rejects a state that does
// not decode into it.
func TestStatelessAgentAcceptsAnyState(t *testing.T) {
	stateless := server.NewHandler(server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say("hi")
	}))
	type counter struct {
		N int `json:"n"`
	}
	typed := server.NewHandler(server.AgentFunc[counter](func(ctx context.Context, rc *server.RunContext[counter]) (server.Outcome, error) {
		return server.Success(), nil
	}))
	for _, state := range []string{`5`, `[1,2]`, `"text"`, `{"n":"x"}`, `{}`} {
		body := `{"threadId":"t","runId":"r","messages":[],"state":` + state + `}`
		if w := post(stateless, body, nil); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "RUN_FINISHED") {
			t.Fatalf("stateless, state %s: %d %s", state, w.Code, w.Body)
		}
		evs := drain(t, server.Run(context.Background(), server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return server.Success(), nil
		}), &agui.RunAgentInput{ThreadID: "t", RunID: "r", State: json.RawMessage(state)}))
		if ev := terminal(t, evs); ev.Type() != agui.EventTypeRunFinished {
			t.Fatalf("Run, state %s: %s", state, ev.Type())
		}
	}
	if w := post(typed, `{"threadId":"t","runId":"r","messages":[],"state":5}`, nil); w.Code != http.StatusBadRequest {
		t.Fatalf("typed state: %d", w.Code)
	}
}

// PublishStateDelta sends a delta where PublishState would send a snapshot:
// when the patch is larger, and when the client sent no state (whose state
// is then the empty object).
func TestPublishStateDelta(t *testing.T) {
	type counterState struct {
		Count int               `json:"count"`
		Notes []string          `json:"notes"`
		Meta  map[string]string `json:"meta"`
	}
	rc, events := server.NewRunContext[counterState](context.Background(), input())
	rc.SetState(counterState{Count: 1})
	if err := rc.PublishStateDelta(); err != nil { // no input state: from {}
		t.Fatal(err)
	}
	if err := rc.PublishStateDelta(); err != nil { // unchanged: nothing
		t.Fatal(err)
	}
	rc.SetState(counterState{Count: 7, Notes: []string{"a"}})
	if err := rc.PublishStateDelta(); err != nil { // larger than the snapshot
		t.Fatal(err)
	}
	var got []string
	for ev := range events {
		b, _ := ev.AppendJSON(nil)
		got = append(got, string(b))
	}
	want := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}`,
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/count","value":1},{"op":"add","path":"/meta","value":null},{"op":"add","path":"/notes","value":null}]}`,
		`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/count","value":7},{"op":"replace","path":"/notes","value":["a"]}]}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type weather struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
}

// The helpers that take a value encode it by one contract: a RawMessage is
// JSON already (checked, compacted), a protocol type uses its own encoder by
// value or pointer, anything else goes through encoding/json; a failure is a
// SERIALIZATION *Error reaching its cause, and nothing is sent.
func TestValueEncodingContract(t *testing.T) {
	msg := "approve?"
	interrupt := agui.Interrupt{ID: "i1", Reason: "approval", Message: &msg}
	for _, tc := range []struct {
		name string
		v    any
		want string // the tool result's content; "" when the call must fail
		as   any    // for a failure: a pointer to the cause's type
	}{
		{"struct", weather{"Paris", 24}, `{"city":"Paris","temp":24}`, nil},
		{"pointer", &weather{"Paris", 24}, `{"city":"Paris","temp":24}`, nil},
		{"string is a JSON string", `{"a":1}`, `"{\"a\":1}"`, nil},
		{"raw message is JSON", json.RawMessage(" {\"a\" : 1} "), `{"a":1}`, nil},
		{"agui value", interrupt, `{"id":"i1","reason":"approval","message":"approve?"}`, nil},
		{"agui pointer", &interrupt, `{"id":"i1","reason":"approval","message":"approve?"}`, nil},
		{"nil agui pointer", (*agui.Interrupt)(nil), `null`, nil},
		{"bad raw message", json.RawMessage(`{"a":`), "", new(*json.SyntaxError)},
		{"unsupported", map[string]any{"f": func() {}}, "", new(*json.UnsupportedTypeError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, events := server.NewRunContext[server.NoState](context.Background(), input())
			call, err := rc.StartToolCall("lookup")
			if err != nil {
				t.Fatal(err)
			}
			err = call.ResultJSON(tc.v)
			argsErr := call.ArgsJSON(tc.v) // after End: only the encoding can fail first
			if tc.want == "" {
				if server.CodeOf(err) != agui.CodeSerialization || server.CodeOf(argsErr) != agui.CodeSerialization {
					t.Fatalf("ResultJSON %v, ArgsJSON %v; want SERIALIZATION", err, argsErr)
				}
				if !errors.As(err, tc.as) {
					t.Fatalf("%v does not reach %T", err, tc.as)
				}
				for ev := range events {
					if ev.Type() == agui.EventTypeToolCallResult {
						t.Fatal("a result was sent")
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var content string
			for ev := range events {
				if r, ok := ev.(*agui.ToolCallResult); ok {
					content = r.Content.String()
				}
			}
			if content != tc.want {
				t.Fatalf("content %s, want %s", content, tc.want)
			}
		})
	}
}
