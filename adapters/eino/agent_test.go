package eino

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/adaptertest"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// The run every scenario starts from: one user question, one frontend tool,
// a context entry and some state.
const confirmSchema = `{"type":"object","properties":{"question":{"type":"string","description":"what to ask"}},"required":["question"],"additionalProperties":false}`

var baseInput = `{"threadId":"thread-1","runId":"run-1",
 "messages":[{"id":"user-1","role":"user","content":"What is the weather in Paris?"}],
 "tools":[{"name":"confirm_booking","description":"Ask the user to confirm a booking.","parameters":` + confirmSchema + `}],
 "context":[{"description":"the user's locale","value":"fr-FR"}],
 "state":{"city":"Paris"}}`

// weather is a backend tool: it records the arguments it was called with.
type weather struct {
	mu   sync.Mutex
	args []string
}

func (w *weather) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "get_weather", Desc: "The weather in a city.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"city": {Type: schema.String, Required: true}})}, nil
}

func (w *weather) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.args = append(w.args, args)
	return `{"sky":"sunny","highC":24}`, nil
}

func (w *weather) calls() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.args)
}

// booking is a backend tool that asks the user before it books: it
// interrupts the run, and books with the answer of the run that resumes it.
type booking struct{}

func (booking) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "book_table", Desc: "Book a table.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"party": {Type: schema.Integer, Required: true}, "time": {Type: schema.String, Required: true}})}, nil
}

func (booking) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	if interrupted, _, _ := tool.GetInterruptState[any](ctx); !interrupted {
		return "", tool.Interrupt(ctx, "Book a table for 2 at 20:00?")
	}
	target, ok, r := tool.GetResumeContext[*Resume](ctx)
	if !target {
		return "", tool.Interrupt(ctx, nil)
	}
	if !ok || r.Status == agui.ResumeStatusCancelled {
		return "the user declined", nil
	}
	return "booked: " + string(r.Payload), nil
}

func agentConfig(t testing.TB, r *replay, tools ...tool.BaseTool) *adk.ChatModelAgentConfig {
	return &adk.ChatModelAgentConfig{Name: "assistant", Description: "A weather assistant.",
		Instruction: "You are a weather assistant.", Model: r.model(t),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}}}
}

func newAgent(t testing.TB, r *replay, tools ...tool.BaseTool) *Agent {
	return New(ChatModel(agentConfig(t, r, tools...)), WithState())
}

// transcript renders the conversation of a Chat Completions request, one
// line per message.
func transcript(req map[string]any) []string {
	var out []string
	for _, it := range jsonAt(req, "messages").([]any) {
		m := it.(map[string]any)
		switch m["role"] {
		case "assistant":
			if c, ok := m["content"]; ok && c != nil && c != "" {
				out = append(out, fmt.Sprintf("assistant: %v", c))
			}
			calls, _ := m["tool_calls"].([]any)
			for _, c := range calls {
				out = append(out, fmt.Sprintf("call %s %s %s", jsonAt(c, "id"), jsonAt(c, "function", "name"), jsonAt(c, "function", "arguments")))
			}
		case "tool":
			out = append(out, fmt.Sprintf("tool %s: %v", m["tool_call_id"], m["content"]))
		default:
			out = append(out, fmt.Sprintf("%s: %v", m["role"], m["content"]))
		}
	}
	return out
}

func toolNames(req map[string]any) []string {
	var names []string
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		names = append(names, jsonAt(t, "function", "name").(string))
	}
	slices.Sort(names)
	return names
}

const context1 = "system: Context from the application:\n- the user's locale: fr-FR\n\nThe application's current shared state (JSON): {\"city\":\"Paris\"}"

func checkUsage(t *testing.T, usage []agui.TokenUsage, in, out, total int64) {
	t.Helper()
	if len(usage) != 1 {
		t.Fatalf("usage %v, want one entry", usage)
	}
	u := usage[0]
	if u.InputTokens == nil || *u.InputTokens != in || u.OutputTokens == nil || *u.OutputTokens != out || u.TotalTokens == nil || *u.TotalTokens != total {
		t.Errorf("usage in %v out %v total %v, want %d %d %d", u.InputTokens, u.OutputTokens, u.TotalTokens, in, out, total)
	}
}

func TestText(t *testing.T) {
	r := newReplay(t, recorded("chat_text.sse"))
	s := summarize(runHTTP(t, newAgent(t, r), baseInput))
	if len(s.Text) != 1 || s.Count("TEXT_MESSAGE_START") != 1 {
		t.Fatalf("want one text message, got %v", s.Types)
	}
	for _, text := range s.Text {
		if text != "It is sunny in Paris." {
			t.Errorf("text %q", text)
		}
	}
	if p := s.Pending(t); len(p) != 0 {
		t.Errorf("pending %v", p)
	}
	checkUsage(t, s.Finished.Usage, 42, 7, 49)
	if u := s.Finished.Usage[0]; u.CachedInputTokens == nil || *u.CachedInputTokens != 10 {
		t.Errorf("cached input tokens %v, want 10", u.CachedInputTokens)
	}
	reqs := r.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	want := []string{"system: You are a weather assistant.", context1, "user: What is the weather in Paris?"}
	if got := transcript(reqs[0]); !slices.Equal(got, want) {
		t.Errorf("conversation sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := toolNames(reqs[0]); !slices.Equal(got, []string{"confirm_booking"}) {
		t.Errorf("tools sent %v", got)
	}
	params := must(json.Marshal(jsonAt(reqs[0], "tools", 0, "function", "parameters")))
	var want2, got2 any
	must(0, json.Unmarshal([]byte(confirmSchema), &want2))
	must(0, json.Unmarshal(params, &got2))
	if fmt.Sprint(got2) != fmt.Sprint(want2) {
		t.Errorf("confirm_booking parameters %s, want %s", params, confirmSchema)
	}
}

func TestReasoning(t *testing.T) {
	r := newReplay(t, recorded("chat_reasoning.sse"))
	s := summarize(runHTTP(t, newAgent(t, r), baseInput))
	if len(s.Thoughts) != 1 || s.Thoughts[0] != "The user asks about the weather." {
		t.Errorf("reasoning %q", s.Thoughts)
	}
	end, start := slices.Index(s.Types, "REASONING_END"), slices.Index(s.Types, "TEXT_MESSAGE_START")
	if end < 0 || start < end {
		t.Errorf("reasoning does not end before the answer: %v", s.Types)
	}
	// The recorded stream reports 25 reasoning tokens, which Eino's
	// schema.ConcatMessages drops when the OpenAI component merges the usage
	// chunk into the finish chunk (it merges the prompt token details only);
	// TestScriptedUsage shows they are counted when Eino delivers them.
	checkUsage(t, s.Finished.Usage, 20, 30, 50)
}

// Two parallel calls whose arguments arrive interleaved: one backend tool,
// run by Eino's tools node, and one frontend tool, left pending.
func TestParallelToolCalls(t *testing.T) {
	r := newReplay(t, recorded("chat_tools.sse"))
	var w weather
	events := runHTTP(t, newAgent(t, r, &w), baseInput)
	s := summarize(events)
	if s.Names["call_weather_1"] != "get_weather" || s.Names["call_confirm_2"] != "confirm_booking" {
		t.Fatalf("tool calls %v", s.Names)
	}
	if s.Args["call_weather_1"] != `{"city":"Paris"}` || s.Args["call_confirm_2"] != `{"question":"Book a table?"}` {
		t.Errorf("arguments %v", s.Args)
	}
	var order []string
	for _, ev := range events {
		if a, ok := ev.(*agui.ToolCallArgs); ok {
			order = append(order, a.ToolCallID)
		}
	}
	if want := []string{"call_weather_1", "call_confirm_2", "call_weather_1", "call_confirm_2", "call_weather_1"}; !slices.Equal(order, want) {
		t.Errorf("TOOL_CALL_ARGS order %v, want the provider's interleaving %v", order, want)
	}
	if p1, p2 := s.Parents["call_weather_1"], s.Parents["call_confirm_2"]; p1 == "" || p1 != p2 {
		t.Errorf("parent messages %q %q, want one assistant message", p1, p2)
	}
	if got := w.calls(); !slices.Equal(got, []string{`{"city":"Paris"}`}) {
		t.Errorf("get_weather ran with %v", got)
	}
	if s.Results["call_weather_1"] != `{"sky":"sunny","highC":24}` || len(s.Results) != 1 {
		t.Errorf("results %v", s.Results)
	}
	if p := s.Pending(t); !slices.Equal(p, []string{"call_confirm_2"}) {
		t.Errorf("pending %v, want the frontend call", p)
	}
	checkUsage(t, s.Finished.Usage, 80, 30, 110)
	if n := len(r.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: a pending frontend call ends the run", n)
	}
	if got := toolNames(r.Requests()[0]); !slices.Equal(got, []string{"confirm_booking", "get_weather"}) {
		t.Errorf("tools sent %v", got)
	}
}

// A backend tool call is run by Eino and its result sent back; the model
// then answers, and the run ends with the usage of both requests.
func TestBackendToolLoop(t *testing.T) {
	r := newReplay(t, recorded("chat_backend_call.sse"), recorded("chat_text.sse"))
	var w weather
	s := summarize(runHTTP(t, newAgent(t, r, &w), baseInput))
	if s.Results["call_weather_9"] != `{"sky":"sunny","highC":24}` {
		t.Errorf("results %v", s.Results)
	}
	var texts []string
	for _, text := range s.Text {
		texts = append(texts, text)
	}
	slices.Sort(texts)
	if !slices.Equal(texts, []string{"It is sunny in Paris.", "Let me check."}) {
		t.Errorf("texts %q", texts)
	}
	if p := s.Pending(t); len(p) != 0 {
		t.Errorf("pending %v", p)
	}
	checkUsage(t, s.Finished.Usage, 92, 19, 111)
	reqs := r.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	want := []string{"system: You are a weather assistant.", context1, "user: What is the weather in Paris?",
		"assistant: Let me check.", `call call_weather_9 get_weather {"city":"Paris"}`,
		`tool call_weather_9: {"sky":"sunny","highC":24}`}
	if got := transcript(reqs[1]); !slices.Equal(got, want) {
		t.Errorf("second request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// with returns baseInput with the given members replaced.
func with(t testing.TB, members map[string]any) string {
	t.Helper()
	var in map[string]any
	must(0, json.Unmarshal([]byte(baseInput), &in))
	for k, v := range members {
		in[k] = v
	}
	return string(must(json.Marshal(in)))
}

// Run 1 ends with a frontend call pending; run 2 carries the client's result
// and the model continues from it.
func TestFrontendTool(t *testing.T) {
	r := newReplay(t, recorded("chat_frontend_call.sse"), recorded("chat_text.sse"))
	agent := newAgent(t, r)
	first := summarize(runHTTP(t, agent, baseInput))
	pending := first.Pending(t)
	if !slices.Equal(pending, []string{"call_confirm_7"}) {
		t.Fatalf("pending %v", pending)
	}
	if len(first.Results) != 0 {
		t.Errorf("results %v: a frontend call has none until the client runs it", first.Results)
	}
	id := pending[0]
	history := []map[string]any{
		{"id": "user-1", "role": "user", "content": "What is the weather in Paris?"},
		{"id": first.Parents[id], "role": "assistant", "toolCalls": []map[string]any{
			{"id": id, "type": "function", "function": map[string]string{"name": first.Names[id], "arguments": first.Args[id]}}}},
		{"id": "tool-1", "role": "tool", "toolCallId": id, "content": `{"confirmed":true}`},
	}
	second := summarize(runHTTP(t, agent, with(t, map[string]any{"runId": "run-2", "messages": history})))
	if second.Finished == nil || len(second.Pending(t)) != 0 {
		t.Fatalf("second run %v", second.Types)
	}
	want := []string{"system: You are a weather assistant.", context1, "user: What is the weather in Paris?",
		`call call_confirm_7 confirm_booking {"question":"Book a table for two?"}`,
		`tool call_confirm_7: {"confirmed":true}`}
	if got := transcript(r.Requests()[1]); !slices.Equal(got, want) {
		t.Errorf("second request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A backend tool interrupts through Eino: the run ends with the interrupt
// outcome, Eino's checkpoint saved; the next run answers the interrupt in
// RunAgentInput.resume and Eino resumes the tool from the checkpoint, with
// the answer, and the model goes on.
func TestInterruptResume(t *testing.T) {
	for _, tc := range []struct {
		status, payload, result string
	}{
		{"resolved", `{"confirmed":true}`, `booked: {"confirmed":true}`},
		{"cancelled", ``, `the user declined`},
	} {
		t.Run(tc.status, func(t *testing.T) {
			r := newReplay(t, "chat_book_call.sse", recorded("chat_text.sse"))
			agent := newAgent(t, r, booking{})
			first := summarize(runHTTP(t, agent, baseInput))
			if first.Finished == nil {
				t.Fatalf("first run %v (%+v)", first.Types, first.Failed)
			}
			out, ok := first.Finished.Outcome.(*agui.RunFinishedInterruptOutcome)
			if !ok || len(out.Interrupts) != 1 {
				t.Fatalf("outcome %#v, want one interrupt", first.Finished.Outcome)
			}
			in := out.Interrupts[0]
			if in.Message == nil || *in.Message != "Book a table for 2 at 20:00?" || in.Reason != "input_required" {
				t.Errorf("interrupt %+v", in)
			}
			if in.ToolCallID == nil || *in.ToolCallID != "call_book_3" {
				t.Errorf("interrupt tool call %v, want call_book_3", in.ToolCallID)
			}
			if first.Args["call_book_3"] != `{"party":2,"time":"20:00"}` || len(first.Results) != 0 {
				t.Errorf("arguments %v results %v", first.Args, first.Results)
			}
			checkUsage(t, first.Finished.Usage, 70, 11, 81)

			entry := map[string]any{"interruptId": in.ID, "status": tc.status}
			if tc.payload != "" {
				entry["payload"] = json.RawMessage(tc.payload)
			}
			// The client's next run: its history holds what the reducer
			// built from the first run's events, and the answer.
			history := []map[string]any{
				{"id": "user-1", "role": "user", "content": "What is the weather in Paris?"},
				{"id": first.Parents["call_book_3"], "role": "assistant", "content": "I will book it.", "toolCalls": []map[string]any{
					{"id": "call_book_3", "type": "function", "function": map[string]string{"name": "book_table", "arguments": first.Args["call_book_3"]}}}},
			}
			// The server echoes the input in RUN_STARTED, so that the verifier
			// of the stream alone knows the call the result answers (the
			// server's own verifier is seeded with the history either way).
			second := summarize(runHTTP(t, agent, with(t, map[string]any{"runId": "run-2", "messages": history, "resume": []any{entry}}), server.WithInputEcho()))
			if second.Finished == nil || len(second.Pending(t)) != 0 {
				t.Fatalf("second run %v (%+v)", second.Types, second.Failed)
			}
			if second.Results["call_book_3"] != tc.result {
				t.Errorf("results %v, want the resumed tool's %q", second.Results, tc.result)
			}
			reqs := r.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			want := []string{"system: You are a weather assistant.", context1, "user: What is the weather in Paris?",
				"assistant: I will book it.", `call call_book_3 book_table {"party":2,"time":"20:00"}`,
				`tool call_book_3: ` + tc.result}
			if got := transcript(reqs[1]); !slices.Equal(got, want) {
				t.Errorf("the resumed request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// A run that resumes a thread with no checkpoint fails with a clear error.
func TestResumeWithoutCheckpoint(t *testing.T) {
	r := newReplay(t)
	s := summarize(runHTTP(t, newAgent(t, r), with(t, map[string]any{"resume": []any{map[string]any{"interruptId": "x", "status": "resolved"}}})))
	if s.Failed == nil || !strings.Contains(s.Failed.Message, `there is no Eino checkpoint to resume: thread "thread-1" has none`) {
		t.Errorf("RUN_ERROR %+v", s.Failed)
	}
}

// A router agent transfers to its weather sub-agent: the sub-agent's run is
// a SUBAGENT_STARTED ... SUBAGENT_FINISHED invocation parented to the
// transfer_to_agent call, and what it streams is attributed to it.
func TestSubagentTransfer(t *testing.T) {
	r := newReplay(t, "chat_transfer.sse", recorded("chat_text.sse"))
	events := runHTTP(t, New(router(t, r)), baseInput)
	s := summarize(events)
	if s.Finished == nil {
		t.Fatalf("run %v (%+v)", s.Types, s.Failed)
	}
	var started *agui.SubagentStarted
	var finished *agui.SubagentFinished
	for _, ev := range events {
		switch ev := ev.(type) { //agui:nonexhaustive the test looks at the subagent's events
		case *agui.SubagentStarted:
			started = ev
		case *agui.SubagentFinished:
			finished = ev
		case *agui.TextMessageContent:
			if started == nil || ev.SubagentRunID == nil || *ev.SubagentRunID != started.SubagentRunID {
				t.Errorf("text %q is not attributed to the sub-agent", ev.Delta)
			}
		}
	}
	if started == nil || started.Name != "weather" || finished == nil || finished.SubagentRunID != started.SubagentRunID {
		t.Fatalf("subagent events %+v %+v in %v", started, finished, s.Types)
	}
	if started.ParentToolCallID == nil || *started.ParentToolCallID != "call_transfer_5" ||
		started.ParentMessageID == nil || *started.ParentMessageID != s.Parents["call_transfer_5"] {
		t.Errorf("SUBAGENT_STARTED parents %v %v, want the transfer call", started.ParentToolCallID, started.ParentMessageID)
	}
	if s.Names["call_transfer_5"] != "transfer_to_agent" || s.Results["call_transfer_5"] == "" {
		t.Errorf("transfer call %v results %v", s.Names, s.Results)
	}
	checkUsage(t, s.Finished.Usage, 102, 16, 118)
	if n := len(r.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestModelError(t *testing.T) {
	t.Run("mid-stream", func(t *testing.T) {
		r := newReplay(t, recorded("chat_error.sse"))
		s := summarize(runHTTP(t, newAgent(t, r), baseInput))
		if s.Failed == nil || s.Finished != nil {
			t.Fatalf("want RUN_ERROR, got %v", s.Types)
		}
		const want = "The server had an error while processing your request. Sorry about that!"
		if !strings.Contains(s.Failed.Message, want) || s.Failed.Code == nil || *s.Failed.Code != "AGENT_ERROR" {
			t.Errorf("RUN_ERROR %q (%v), want it to carry %q", s.Failed.Message, s.Failed.Code, want)
		}
		if s.Count("TEXT_MESSAGE_CONTENT") != 1 {
			t.Errorf("the text before the failure was not streamed: %v", s.Types)
		}
	})
	t.Run("refused", func(t *testing.T) {
		r := newReplay(t)
		s := summarize(runHTTP(t, newAgent(t, r), baseInput))
		if s.Failed == nil || !strings.Contains(s.Failed.Message, "no more recorded streams") {
			t.Errorf("RUN_ERROR %+v", s.Failed)
		}
	})
	t.Run("after a tool round", func(t *testing.T) {
		r := newReplay(t, recorded("chat_backend_call.sse"))
		var w weather
		s := summarize(runHTTP(t, newAgent(t, r, &w), baseInput))
		if s.Failed == nil || s.Finished != nil || len(w.calls()) != 1 {
			t.Fatalf("want RUN_ERROR after one tool call, got %v", s.Types)
		}
		checkUsage(t, s.Failed.Usage, 50, 12, 62)
	})
}

// The AG-UI client going away reaches the model call: the provider sees
// its request end, and the agent returns cancelled by the disconnect.
func TestCancellation(t *testing.T) {
	r := newReplay(t, recorded("chat_hold.sse"))
	r.Hold = true
	adaptertest.CancellationReaches(t, r.Replay, newAgent(t, r), baseInput)
}

// router builds a router agent with a weather sub-agent that has tools.
func router(t testing.TB, r *replay, tools ...tool.BaseTool) Builder {
	return func(ctx context.Context, frontend []tool.BaseTool) (adk.Agent, error) {
		root, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "router",
			Description: "Routes questions.", Instruction: "Route the question.", Model: r.model(t)})
		if err != nil {
			return nil, err
		}
		cfg := agentConfig(t, r, tools...)
		cfg.Name = "weather"
		sub, err := adk.NewChatModelAgent(ctx, WithFrontend(cfg, frontend))
		if err != nil {
			return nil, err
		}
		return adk.SetSubAgents(ctx, root, []adk.Agent{adk.AgentWithOptions(ctx, sub, adk.WithDisallowTransferToParent())})
	}
}

// A tool of a sub-agent interrupts: the sub-agent's invocation ends
// suspended on the interrupt, which is attributed to it; the resume runs the
// sub-agent again, from Eino's checkpoint, as a new invocation.
func TestSubagentInterrupt(t *testing.T) {
	r := newReplay(t, "chat_transfer.sse", "chat_book_call.sse", recorded("chat_text.sse"))
	agent := New(router(t, r, booking{}))
	events := runHTTP(t, agent, baseInput)
	s := summarize(events)
	if s.Finished == nil {
		t.Fatalf("run %v (%+v)", s.Types, s.Failed)
	}
	out, ok := s.Finished.Outcome.(*agui.RunFinishedInterruptOutcome)
	if !ok || len(out.Interrupts) != 1 {
		t.Fatalf("outcome %#v, want one interrupt", s.Finished.Outcome)
	}
	in := out.Interrupts[0]
	var started *agui.SubagentStarted
	var suspended *agui.SubagentFinishedSuspendedOutcome
	for _, ev := range events {
		switch ev := ev.(type) { //agui:nonexhaustive the test looks at the subagent's events
		case *agui.SubagentStarted:
			started = ev
		case *agui.SubagentFinished:
			suspended, _ = ev.Outcome.(*agui.SubagentFinishedSuspendedOutcome)
		}
	}
	if started == nil || in.SubagentRunID == nil || *in.SubagentRunID != started.SubagentRunID {
		t.Errorf("interrupt %+v is not attributed to the sub-agent %+v", in, started)
	}
	if suspended == nil || len(suspended.InterruptIDs) != 1 || suspended.InterruptIDs[0] != in.ID {
		t.Errorf("SUBAGENT_FINISHED outcome %+v, want suspended on %s", suspended, in.ID)
	}

	history := []map[string]any{
		{"id": "user-1", "role": "user", "content": "What is the weather in Paris?"},
		{"id": s.Parents["call_book_3"], "role": "assistant", "content": "I will book it.", "toolCalls": []map[string]any{
			{"id": "call_book_3", "type": "function", "function": map[string]string{"name": "book_table", "arguments": s.Args["call_book_3"]}}}},
	}
	resume := []any{map[string]any{"interruptId": in.ID, "status": "resolved", "payload": map[string]bool{"confirmed": true}}}
	events = runHTTP(t, agent, with(t, map[string]any{"runId": "run-2", "messages": history, "resume": resume}), server.WithInputEcho())
	second := summarize(events)
	if second.Finished == nil || second.Results["call_book_3"] != `booked: {"confirmed":true}` {
		t.Fatalf("second run %v results %v (%+v)", second.Types, second.Results, second.Failed)
	}
	if second.Count("SUBAGENT_STARTED") != 1 || second.Count("SUBAGENT_FINISHED") != 1 {
		t.Errorf("second run %v, want the sub-agent's invocation around the resumed work", second.Types)
	}
	for _, ev := range events {
		if r, ok := ev.(*agui.ToolCallResult); ok && r.SubagentRunID == nil {
			t.Errorf("the resumed tool's result is not attributed to the sub-agent")
		}
	}
}
