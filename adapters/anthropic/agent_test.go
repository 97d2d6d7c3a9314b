package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/adaptertest"
	ant "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// The run every scenario starts from: one user question, one frontend tool,
// a context entry and some state.
const confirmSchema = `{"type":"object","properties":{"question":{"type":"string","description":"what to ask"}},"required":["question"],"additionalProperties":false}`

var baseInput = `{"threadId":"thread-1","runId":"run-1",
 "messages":[{"id":"user-1","role":"user","content":"What is the weather in Paris?"}],
 "tools":[{"name":"confirm_booking","description":"Ask the user to confirm a booking.","parameters":` + confirmSchema + `}],
 "context":[{"description":"the user's locale","value":"fr-FR"}],
 "state":{"city":"Paris"}}`

// weatherCalls records the arguments get_weather was called with.
type weatherCalls struct{ args []string }

func (w *weatherCalls) option() Option {
	return WithTool("get_weather", "The weather in a city.",
		json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		func(ctx context.Context, args json.RawMessage) (string, error) {
			w.args = append(w.args, string(args))
			return `{"sky":"sunny","highC":24}`, nil
		})
}

func newAgent(r *replay, opts ...Option) *Agent {
	base := []Option{WithModel("claude-sonnet-4-5"), WithSystemPrompt("You are a weather assistant."), WithState()}
	return New(r.client(), append(base, opts...)...)
}

// transcript renders the conversation of a request one line per block.
func transcript(req map[string]any) []string {
	var out []string
	var system []string
	for _, b := range asList(req["system"]) {
		system = append(system, fmt.Sprint(jsonAt(b, "text")))
	}
	if len(system) > 0 {
		out = append(out, "system: "+strings.Join(system, " | "))
	}
	for _, m := range asList(req["messages"]) {
		role := jsonAt(m, "role")
		if s, ok := jsonAt(m, "content").(string); ok {
			out = append(out, fmt.Sprintf("%s: %s", role, s))
			continue
		}
		for _, b := range asList(jsonAt(m, "content")) {
			switch jsonAt(b, "type") {
			case "text":
				out = append(out, fmt.Sprintf("%s: %s", role, jsonAt(b, "text")))
			case "tool_use":
				out = append(out, fmt.Sprintf("call %s %s %s", jsonAt(b, "id"), jsonAt(b, "name"), must(json.Marshal(jsonAt(b, "input")))))
			case "tool_result":
				out = append(out, fmt.Sprintf("tool %s: %s", jsonAt(b, "tool_use_id"), jsonAt(b, "content", 0, "text")))
			case "thinking":
				out = append(out, fmt.Sprintf("thinking: %s [%s]", jsonAt(b, "thinking"), jsonAt(b, "signature")))
			case "redacted_thinking":
				out = append(out, fmt.Sprintf("redacted thinking [%s]", jsonAt(b, "data")))
			default:
				out = append(out, fmt.Sprintf("%s: [%s]", role, jsonAt(b, "type")))
			}
		}
	}
	return out
}

// toolParams returns the input schema of each tool a request declared.
func toolParams(req map[string]any) map[string]string {
	out := map[string]string{}
	for _, t := range asList(req["tools"]) {
		out[jsonAt(t, "name").(string)] = string(must(json.Marshal(jsonAt(t, "input_schema"))))
	}
	return out
}

// canonical is a JSON text with its object members sorted.
func canonical(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return string(must(json.Marshal(v)))
}

const instructions = "system: You are a weather assistant.\n\nContext from the application:\n- the user's locale: fr-FR\n\nThe application's current shared state (JSON): {\"city\":\"Paris\"}"

func checkUsage(t *testing.T, usage []agui.TokenUsage, in, out, total int64) {
	t.Helper()
	if len(usage) != 1 {
		t.Fatalf("usage %v, want one entry", usage)
	}
	u := usage[0]
	if u.Provider == nil || *u.Provider != "anthropic" || u.Model == nil || *u.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("usage provider %v model %v", u.Provider, u.Model)
	}
	if u.InputTokens == nil || *u.InputTokens != in || u.OutputTokens == nil || *u.OutputTokens != out || u.TotalTokens == nil || *u.TotalTokens != total {
		t.Errorf("usage in %v out %v total %v, want %d %d %d", u.InputTokens, u.OutputTokens, u.TotalTokens, in, out, total)
	}
}

func TestText(t *testing.T) {
	r := newReplay(t, "text.sse")
	s := summarize(runHTTP(t, newAgent(r), baseInput))

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
	// Anthropic counts cache reads apart from input_tokens; AG-UI's
	// inputTokens is the whole input.
	checkUsage(t, s.Finished.Usage, 42, 7, 49)
	if u := s.Finished.Usage[0]; u.CachedInputTokens == nil || *u.CachedInputTokens != 10 {
		t.Errorf("cached input tokens %v, want 10", u.CachedInputTokens)
	}

	reqs := r.requests()
	if len(reqs) != 1 || r.Paths[0] != "/v1/messages" {
		t.Fatalf("requests %v", r.Paths)
	}
	req := reqs[0]
	if req["model"] != "claude-sonnet-4-5" || req["stream"] != true || req["max_tokens"] != float64(DefaultMaxTokens) {
		t.Errorf("model %v stream %v max_tokens %v", req["model"], req["stream"], req["max_tokens"])
	}
	want := []string{instructions, "user: What is the weather in Paris?"}
	if got := transcript(req); !slices.Equal(got, want) {
		t.Errorf("conversation sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := toolParams(req); len(got) != 1 || got["confirm_booking"] != canonical(confirmSchema) {
		t.Errorf("tools sent %v, want confirm_booking with its schema as given", got)
	}
}

// Two parallel calls whose arguments arrive interleaved: one backend tool,
// run here, and one frontend tool, left pending for the client.
func TestParallelToolCalls(t *testing.T) {
	r := newReplay(t, "tools.sse")
	var w weatherCalls
	events := runHTTP(t, newAgent(r, w.option()), baseInput)
	s := summarize(events)

	if s.Names["toolu_weather_1"] != "get_weather" || s.Names["toolu_confirm_2"] != "confirm_booking" {
		t.Fatalf("tool calls %v", s.Names)
	}
	if s.Args["toolu_weather_1"] != `{"city":"Paris"}` || s.Args["toolu_confirm_2"] != `{"question":"Book a table?"}` {
		t.Errorf("arguments %v", s.Args)
	}
	var order []string
	for _, ev := range events {
		if a, ok := ev.(*agui.ToolCallArgs); ok {
			order = append(order, a.ToolCallID)
		}
	}
	if want := []string{"toolu_weather_1", "toolu_confirm_2", "toolu_weather_1", "toolu_confirm_2", "toolu_weather_1"}; !slices.Equal(order, want) {
		t.Errorf("TOOL_CALL_ARGS order %v, want the provider's interleaving %v", order, want)
	}
	if p1, p2 := s.Parents["toolu_weather_1"], s.Parents["toolu_confirm_2"]; p1 == "" || p1 != p2 {
		t.Errorf("parent messages %q %q, want one assistant message", p1, p2)
	}
	if !slices.Equal(w.args, []string{`{"city":"Paris"}`}) {
		t.Errorf("get_weather ran with %v", w.args)
	}
	if s.Results["toolu_weather_1"] != `{"sky":"sunny","highC":24}` || len(s.Results) != 1 {
		t.Errorf("results %v", s.Results)
	}
	if p := s.Pending(t); !slices.Equal(p, []string{"toolu_confirm_2"}) {
		t.Errorf("pending %v, want the frontend call", p)
	}
	checkUsage(t, s.Finished.Usage, 80, 30, 110)
	if got := toolParams(r.requests()[0]); len(got) != 2 || got["confirm_booking"] != canonical(confirmSchema) ||
		got["get_weather"] != `{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}` {
		t.Errorf("tools sent %v", got)
	}
}

// A backend tool call is run and its result sent back; the model then
// answers, and the run ends with the usage of both requests.
func TestBackendToolLoop(t *testing.T) {
	r := newReplay(t, "backend_call.sse", "text.sse")
	var w weatherCalls
	s := summarize(runHTTP(t, newAgent(r, w.option()), baseInput))

	if s.Results["toolu_weather_9"] != `{"sky":"sunny","highC":24}` {
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
	reqs := r.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	want := []string{instructions, "user: What is the weather in Paris?",
		"assistant: Let me check.",
		`call toolu_weather_9 get_weather {"city":"Paris"}`,
		`tool toolu_weather_9: {"sky":"sunny","highC":24}`}
	if got := transcript(reqs[1]); !slices.Equal(got, want) {
		t.Errorf("second request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Extended thinking becomes reasoning; the signature and the redacted
// block's data ride along as encrypted values, and a later run sends both
// back as they came.
func TestThinking(t *testing.T) {
	r := newReplay(t, "reasoning.sse", "text.sse")
	agent := newAgent(r)
	events := runHTTP(t, agent, baseInput)
	s := summarize(events)
	if len(s.Thoughts) != 2 || s.Thoughts[0] != "The user asks about the weather." || s.Thoughts[1] != "" {
		t.Errorf("reasoning %q", s.Thoughts)
	}
	end, start := slices.Index(s.Types, "REASONING_END"), slices.Index(s.Types, "TEXT_MESSAGE_START")
	if end < 0 || start < end {
		t.Errorf("reasoning does not end before the answer: %v", s.Types)
	}
	var secrets []string
	var history []map[string]any
	history = append(history, map[string]any{"id": "user-1", "role": "user", "content": "What is the weather in Paris?"})
	for _, ev := range events {
		if e, ok := ev.(*agui.ReasoningEncryptedValue); ok {
			secrets = append(secrets, e.EncryptedValue)
		}
	}
	want := []string{"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds", RedactedPrefix + "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}
	if !slices.Equal(secrets, want) {
		t.Fatalf("encrypted values %q, want %q", secrets, want)
	}
	// The next run, as the client's reducer would send it.
	history = append(history,
		map[string]any{"id": "r1", "role": "reasoning", "content": s.Thoughts[0], "encryptedValue": secrets[0]},
		map[string]any{"id": "r2", "role": "reasoning", "content": "", "encryptedValue": secrets[1]},
		map[string]any{"id": "a1", "role": "assistant", "content": "Sunny."},
		map[string]any{"id": "user-2", "role": "user", "content": "Thanks!"})
	runHTTP(t, New(r.client()), string(must(json.Marshal(map[string]any{"threadId": "t", "runId": "r2", "messages": history}))))
	got := transcript(r.requests()[1])
	wantSent := []string{"user: What is the weather in Paris?",
		"thinking: The user asks about the weather. [EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds]",
		"redacted thinking [EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP]",
		"assistant: Sunny.", "user: Thanks!"}
	if !slices.Equal(got, wantSent) {
		t.Errorf("second request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantSent, "\n"))
	}
}

func TestProviderErrors(t *testing.T) {
	t.Run("mid-stream", func(t *testing.T) {
		r := newReplay(t, "error.sse")
		s := summarize(runHTTP(t, newAgent(r), baseInput))
		if s.Failed == nil || s.Finished != nil {
			t.Fatalf("want RUN_ERROR, got %v", s.Types)
		}
		const want = "agent error: Anthropic failed mid-stream: Overloaded (overloaded_error)"
		if s.Failed.Message != want || s.Failed.Code == nil || *s.Failed.Code != "AGENT_ERROR" {
			t.Errorf("RUN_ERROR %q (%v), want %q", s.Failed.Message, s.Failed.Code, want)
		}
		if s.Count("TEXT_MESSAGE_CONTENT") != 1 {
			t.Errorf("the text before the failure was not streamed: %v", s.Types)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		r := newReplay(t, "hold.sse") // ends after the first text delta
		s := summarize(runHTTP(t, newAgent(r), baseInput))
		const want = "agent error: the Anthropic stream ended before the reply was complete"
		if s.Failed == nil || s.Failed.Message != want {
			t.Errorf("RUN_ERROR %+v, want %q", s.Failed, want)
		}
	})
	t.Run("refused", func(t *testing.T) {
		r := newReplay(t) // no recorded stream: every request gets HTTP 500
		s := summarize(runHTTP(t, newAgent(r), baseInput))
		const want = "agent error: Anthropic returned HTTP 500: no more recorded streams (api_error)"
		if s.Failed == nil || s.Failed.Message != want {
			t.Errorf("RUN_ERROR %+v, want %q", s.Failed, want)
		}
	})
	t.Run("after a tool round", func(t *testing.T) {
		// The first request is answered and calls a backend tool; the
		// second is refused. The tokens of the first are still reported.
		r := newReplay(t, "backend_call.sse")
		var w weatherCalls
		s := summarize(runHTTP(t, newAgent(r, w.option()), baseInput))
		if s.Failed == nil || s.Finished != nil || len(w.args) != 1 {
			t.Fatalf("want RUN_ERROR after one tool call, got %v (tool calls %q)", s.Types, w.args)
		}
		checkUsage(t, s.Failed.Usage, 50, 12, 62)
	})
}

// Run 1 ends with a frontend call pending; run 2 carries the client's result
// and the model continues from it.
func TestMultiTurn(t *testing.T) {
	r := newReplay(t, "frontend_call.sse", "text.sse")
	agent := newAgent(r)
	first := summarize(runHTTP(t, agent, baseInput))
	pending := first.Pending(t)
	if !slices.Equal(pending, []string{"toolu_confirm_7"}) {
		t.Fatalf("pending %v", pending)
	}
	id := pending[0]
	history := []map[string]any{
		{"id": "user-1", "role": "user", "content": "What is the weather in Paris?"},
		{"id": first.Parents[id], "role": "assistant", "toolCalls": []map[string]any{
			{"id": id, "type": "function", "function": map[string]string{"name": first.Names[id], "arguments": first.Args[id]}}}},
		{"id": "tool-1", "role": "tool", "toolCallId": id, "content": `{"confirmed":true}`},
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(baseInput), &in); err != nil {
		t.Fatal(err)
	}
	in["runId"], in["messages"] = "run-2", history
	second := summarize(runHTTP(t, agent, string(must(json.Marshal(in)))))
	if second.Finished == nil || len(second.Pending(t)) != 0 {
		t.Fatalf("second run %v", second.Types)
	}
	want := []string{instructions, "user: What is the weather in Paris?",
		`call toolu_confirm_7 confirm_booking {"question":"Book a table for two?"}`,
		`tool toolu_confirm_7: {"confirmed":true}`}
	if got := transcript(r.requests()[1]); !slices.Equal(got, want) {
		t.Errorf("second request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The AG-UI client going away aborts the request to Anthropic: the provider
// sees its request end within 100 ms.
func TestCancellation(t *testing.T) {
	r := newReplay(t, "hold.sse")
	r.Hold = true
	adaptertest.Cancellation(t, r.Replay, newAgent(r), baseInput)
}

// No RUN_ERROR carries a URL or an address unless the server opts in.
func TestErrorsCarryNoAddress(t *testing.T) {
	adaptertest.ErrorsCarryNoAddress(t, func(baseURL string) server.Agent[server.NoState] {
		client := ant.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey("sk-ant-test"), option.WithMaxRetries(0))
		return New(client, WithModel("claude-sonnet-4-5"))
	}, baseInput, func(message string) string {
		return `{"type":"error","error":{"type":"api_error","message":` + strconv.Quote(message) + `}}`
	})
}
