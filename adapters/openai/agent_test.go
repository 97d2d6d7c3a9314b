package openai

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
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The run every scenario starts from: one user question, one frontend tool,
// a context entry and some state.
const confirmSchema = `{"type":"object","properties":{"question":{"type":"string","description":"what to ask"}},"required":["question"],"additionalProperties":false}`

var baseInput = `{"threadId":"thread-1","runId":"run-1",
 "messages":[{"id":"user-1","role":"user","content":"What is the weather in Paris?"}],
 "tools":[{"name":"confirm_booking","description":"Ask the user to confirm a booking.","parameters":` + confirmSchema + `}],
 "context":[{"description":"the user's locale","value":"fr-FR"}],
 "state":{"city":"Paris"}}`

var apis = []API{ChatCompletions, Responses}

// file names the recorded stream of a scenario for api.
func file(api API, scenario string) string {
	if api == Responses {
		return "responses_" + scenario + ".sse"
	}
	return "chat_" + scenario + ".sse"
}

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

func newAgent(r *replay, api API, opts ...Option) *Agent {
	base := []Option{WithAPI(api), WithModel("gpt-4.1-mini"), WithSystemPrompt("You are a weather assistant."), WithState()}
	return New(r.client(), append(base, opts...)...)
}

// transcript renders the conversation of a request, whichever API it went
// to, one line per message or item, so that both APIs are checked against
// the same expectations.
func transcript(api API, req map[string]any) []string {
	var out []string
	str := func(v any) string {
		switch v := v.(type) {
		case string:
			return v
		case []any:
			var parts []string
			for _, p := range v {
				m, _ := p.(map[string]any)
				switch m["type"] {
				case "text", "input_text":
					parts = append(parts, "text:"+fmt.Sprint(m["text"]))
				default:
					parts = append(parts, fmt.Sprint(m["type"]))
				}
			}
			return "[" + strings.Join(parts, " ") + "]"
		}
		return fmt.Sprint(v)
	}
	if api == Responses {
		if s, ok := req["instructions"].(string); ok {
			out = append(out, "system: "+s)
		}
		for _, it := range jsonAt(req, "input").([]any) {
			m := it.(map[string]any)
			switch m["type"] {
			case "function_call":
				out = append(out, fmt.Sprintf("call %s %s %s", m["call_id"], m["name"], m["arguments"]))
			case "function_call_output":
				out = append(out, fmt.Sprintf("tool %s: %s", m["call_id"], str(m["output"])))
			case "reasoning":
				out = append(out, fmt.Sprintf("reasoning %s: %s [%s]", m["id"], str(jsonAt(m, "summary", 0, "text")), m["encrypted_content"]))
			default:
				out = append(out, fmt.Sprintf("%s: %s", m["role"], str(m["content"])))
			}
		}
		return out
	}
	for _, it := range jsonAt(req, "messages").([]any) {
		m := it.(map[string]any)
		switch m["role"] {
		case "assistant":
			if c, ok := m["content"]; ok && c != nil {
				out = append(out, "assistant: "+str(c))
			}
			calls, _ := m["tool_calls"].([]any)
			for _, c := range calls {
				out = append(out, fmt.Sprintf("call %s %s %s", jsonAt(c, "id"), jsonAt(c, "function", "name"), jsonAt(c, "function", "arguments")))
			}
		case "tool":
			out = append(out, fmt.Sprintf("tool %s: %s", m["tool_call_id"], str(m["content"])))
		default:
			out = append(out, fmt.Sprintf("%s: %s", m["role"], str(m["content"])))
		}
	}
	return out
}

// toolNames returns the names of the tools a request declared, and the
// parameters of each, whichever API it went to.
func toolParams(api API, req map[string]any) map[string]string {
	out := map[string]string{}
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		var name string
		var params any
		if api == Responses {
			name, params = jsonAt(t, "name").(string), jsonAt(t, "parameters")
		} else {
			name, params = jsonAt(t, "function", "name").(string), jsonAt(t, "function", "parameters")
		}
		out[name] = string(must(json.Marshal(params)))
	}
	return out
}

// canonical is a JSON text with its object members sorted, as the SDK sends
// a schema.
func canonical(s string) string {
	var v any
	must(0, json.Unmarshal([]byte(s), &v))
	return string(must(json.Marshal(v)))
}

const instructions = "system: You are a weather assistant.\n\nContext from the application:\n- the user's locale: fr-FR\n\nThe application's current shared state (JSON): {\"city\":\"Paris\"}"

func TestText(t *testing.T) {
	for _, api := range apis {
		t.Run(api.String(), func(t *testing.T) {
			r := newReplay(t, file(api, "text"))
			s := summarize(runHTTP(t, newAgent(r, api), baseInput))

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
			checkUsage(t, s.Finished.Usage, "gpt-4.1-mini-2025-04-14", 42, 7, 49)
			if u := s.Finished.Usage[0]; u.CachedInputTokens == nil || *u.CachedInputTokens != 10 {
				t.Errorf("cached input tokens %v, want 10", u.CachedInputTokens)
			}

			reqs := r.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			req := reqs[0]
			wantPath := map[API]string{ChatCompletions: "/v1/chat/completions", Responses: "/v1/responses"}[api]
			if r.Paths[0] != wantPath {
				t.Errorf("path %s, want %s", r.Paths[0], wantPath)
			}
			if req["model"] != "gpt-4.1-mini" || req["stream"] != true {
				t.Errorf("model %v stream %v", req["model"], req["stream"])
			}
			if api == ChatCompletions && jsonAt(req, "stream_options", "include_usage") != true {
				t.Errorf("stream_options %v: usage not asked for", req["stream_options"])
			}
			want := []string{instructions, "user: What is the weather in Paris?"}
			if got := transcript(api, req); !slices.Equal(got, want) {
				t.Errorf("conversation sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if got := toolParams(api, req); len(got) != 1 || got["confirm_booking"] != canonical(confirmSchema) {
				t.Errorf("tools sent %v, want confirm_booking with its schema as given", got)
			}
		})
	}
}

func checkUsage(t *testing.T, usage []agui.TokenUsage, model string, in, out, total int64) {
	t.Helper()
	if len(usage) != 1 {
		t.Fatalf("usage %v, want one entry", usage)
	}
	u := usage[0]
	if u.Provider == nil || *u.Provider != "openai" || u.Model == nil || *u.Model != model {
		t.Errorf("usage provider %v model %v", u.Provider, u.Model)
	}
	if u.InputTokens == nil || *u.InputTokens != in || u.OutputTokens == nil || *u.OutputTokens != out || u.TotalTokens == nil || *u.TotalTokens != total {
		t.Errorf("usage in %v out %v total %v, want %d %d %d", u.InputTokens, u.OutputTokens, u.TotalTokens, in, out, total)
	}
}

// Two parallel calls whose arguments arrive interleaved: one backend tool,
// run here, and one frontend tool, left pending for the client.
func TestParallelToolCalls(t *testing.T) {
	for _, api := range apis {
		t.Run(api.String(), func(t *testing.T) {
			r := newReplay(t, file(api, "tools"))
			var w weatherCalls
			events := runHTTP(t, newAgent(r, api, w.option()), baseInput)
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
			if !slices.Equal(w.args, []string{`{"city":"Paris"}`}) {
				t.Errorf("get_weather ran with %v", w.args)
			}
			if s.Results["call_weather_1"] != `{"sky":"sunny","highC":24}` || len(s.Results) != 1 {
				t.Errorf("results %v", s.Results)
			}
			if p := s.Pending(t); !slices.Equal(p, []string{"call_confirm_2"}) {
				t.Errorf("pending %v, want the frontend call", p)
			}
			checkUsage(t, s.Finished.Usage, "gpt-4.1-mini-2025-04-14", 80, 30, 110)
			if n := len(r.requests()); n != 1 {
				t.Errorf("%d requests, want 1: a pending frontend call ends the run", n)
			}
			if got := toolParams(api, r.requests()[0]); len(got) != 2 || got["confirm_booking"] != canonical(confirmSchema) ||
				got["get_weather"] != `{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}` {
				t.Errorf("tools sent %v", got)
			}
		})
	}
}

// A backend tool call is run and its result sent back; the model then
// answers, and the run ends with the usage of both requests.
func TestBackendToolLoop(t *testing.T) {
	for _, api := range apis {
		t.Run(api.String(), func(t *testing.T) {
			r := newReplay(t, file(api, "backend_call"), file(api, "text"))
			var w weatherCalls
			s := summarize(runHTTP(t, newAgent(r, api, w.option()), baseInput))

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
			checkUsage(t, s.Finished.Usage, "gpt-4.1-mini-2025-04-14", 92, 19, 111)

			reqs := r.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			want := []string{instructions, "user: What is the weather in Paris?",
				"assistant: Let me check.",
				`call call_weather_9 get_weather {"city":"Paris"}`,
				`tool call_weather_9: {"sky":"sunny","highC":24}`}
			if got := transcript(api, reqs[1]); !slices.Equal(got, want) {
				t.Errorf("second request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestReasoning(t *testing.T) {
	for _, api := range apis {
		t.Run(api.String(), func(t *testing.T) {
			r := newReplay(t, file(api, "reasoning"))
			s := summarize(runHTTP(t, newAgent(r, api), baseInput))

			want := map[API]string{
				ChatCompletions: "The user asks about the weather.",
				Responses:       "**Checking the sky**\n\nThe user asks about the weather.\n\nIt is sunny.",
			}[api]
			if len(s.Thoughts) != 1 || s.Thoughts[0] != want {
				t.Errorf("reasoning %q, want %q", s.Thoughts, want)
			}
			end, start := slices.Index(s.Types, "REASONING_END"), slices.Index(s.Types, "TEXT_MESSAGE_START")
			if end < 0 || start < end {
				t.Errorf("reasoning does not end before the answer: %v", s.Types)
			}
			if api == Responses {
				const id = "rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7"
				if s.Secrets[id] != "gAAAAABoISQ24OyVRYbkYfukrrDSU9kT0ZtUJdUhCZmYBy5Yx0Ay9w==" {
					t.Errorf("encrypted values %v, want OpenAI's encrypted content on reasoning message %s", s.Secrets, id)
				}
			}
			if u := s.Finished.Usage; len(u) != 1 || u[0].ReasoningTokens == nil || *u[0].ReasoningTokens != 25 {
				t.Errorf("usage %+v, want 25 reasoning tokens", u)
			}
		})
	}
}

// The encrypted reasoning of an earlier run goes back to the Responses API
// as a reasoning item under OpenAI's own id.
func TestReasoningRoundTrip(t *testing.T) {
	r := newReplay(t, "responses_text.sse")
	input := `{"threadId":"t","runId":"r2","messages":[
	 {"id":"user-1","role":"user","content":"Weather?"},
	 {"id":"rs_1","role":"reasoning","content":"Thinking about the sky.","encryptedValue":"gAAAA-opaque"},
	 {"id":"rs_2","role":"reasoning","content":"Not kept: no encrypted value."},
	 {"id":"a1","role":"assistant","content":"Sunny."},
	 {"id":"user-2","role":"user","content":"And tomorrow?"}]}`
	runHTTP(t, New(r.client(), WithAPI(Responses)), input)
	want := []string{"user: Weather?", "reasoning rs_1: Thinking about the sky. [gAAAA-opaque]", "assistant: Sunny.", "user: And tomorrow?"}
	if got := transcript(Responses, r.requests()[0]); !slices.Equal(got, want) {
		t.Errorf("input sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestProviderErrors(t *testing.T) {
	for _, api := range apis {
		t.Run(api.String()+"/mid-stream", func(t *testing.T) {
			r := newReplay(t, file(api, "error"))
			s := summarize(runHTTP(t, newAgent(r, api), baseInput))
			if s.Failed == nil || s.Finished != nil {
				t.Fatalf("want RUN_ERROR, got %v", s.Types)
			}
			const want = "agent error: OpenAI failed mid-stream: The server had an error while processing your request. Sorry about that!"
			if !strings.HasPrefix(s.Failed.Message, want) || s.Failed.Code == nil || *s.Failed.Code != "AGENT_ERROR" {
				t.Errorf("RUN_ERROR %q (%v), want it to start with %q", s.Failed.Message, s.Failed.Code, want)
			}
			if s.Count("TEXT_MESSAGE_CONTENT") != 1 {
				t.Errorf("the text before the failure was not streamed: %v", s.Types)
			}
		})
		t.Run(api.String()+"/truncated", func(t *testing.T) {
			r := newReplay(t, file(api, "hold")) // ends after the first text delta
			s := summarize(runHTTP(t, newAgent(r, api), baseInput))
			const want = "agent error: the OpenAI stream ended before the reply was complete"
			if s.Failed == nil || s.Failed.Message != want {
				t.Errorf("RUN_ERROR %+v, want %q", s.Failed, want)
			}
		})
		t.Run(api.String()+"/refused", func(t *testing.T) {
			r := newReplay(t) // no recorded stream: every request gets HTTP 500
			s := summarize(runHTTP(t, newAgent(r, api), baseInput))
			const want = "agent error: OpenAI returned HTTP 500: no more recorded streams"
			if s.Failed == nil || !strings.HasPrefix(s.Failed.Message, want) {
				t.Errorf("RUN_ERROR %+v, want %q", s.Failed, want)
			}
		})
		t.Run(api.String()+"/after a tool round", func(t *testing.T) {
			// The first request is answered and calls a backend tool; the
			// second is refused. The tokens of the first are still reported.
			r := newReplay(t, file(api, "backend_call"))
			var w weatherCalls
			s := summarize(runHTTP(t, newAgent(r, api, w.option()), baseInput))
			if s.Failed == nil || s.Finished != nil || len(w.args) != 1 {
				t.Fatalf("want RUN_ERROR after one tool call, got %v (tool calls %q)", s.Types, w.args)
			}
			checkUsage(t, s.Failed.Usage, "gpt-4.1-mini-2025-04-14", 50, 12, 62)
		})
	}
}

// Run 1 ends with a frontend call pending; run 2 carries the client's result
// and the model continues from it.
func TestMultiTurn(t *testing.T) {
	for _, api := range apis {
		t.Run(api.String(), func(t *testing.T) {
			r := newReplay(t, file(api, "frontend_call"), file(api, "text"))
			agent := newAgent(r, api)
			first := summarize(runHTTP(t, agent, baseInput))
			pending := first.Pending(t)
			if !slices.Equal(pending, []string{"call_confirm_7"}) {
				t.Fatalf("pending %v", pending)
			}
			id := pending[0]
			// The client's next run: its history now holds the call (as the
			// reducer built it from the events) and the user's answer.
			history := []map[string]any{
				{"id": "user-1", "role": "user", "content": "What is the weather in Paris?"},
				{"id": first.Parents[id], "role": "assistant", "toolCalls": []map[string]any{
					{"id": id, "type": "function", "function": map[string]string{"name": first.Names[id], "arguments": first.Args[id]}}}},
				{"id": "tool-1", "role": "tool", "toolCallId": id, "content": `{"confirmed":true}`},
			}
			var in map[string]any
			must(0, json.Unmarshal([]byte(baseInput), &in))
			in["runId"], in["messages"] = "run-2", history
			second := summarize(runHTTP(t, agent, string(must(json.Marshal(in)))))
			if second.Finished == nil || len(second.Pending(t)) != 0 {
				t.Fatalf("second run %v", second.Types)
			}
			want := []string{instructions, "user: What is the weather in Paris?",
				`call call_confirm_7 confirm_booking {"question":"Book a table for two?"}`,
				`tool call_confirm_7: {"confirmed":true}`}
			if got := transcript(api, r.requests()[1]); !slices.Equal(got, want) {
				t.Errorf("second request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// The AG-UI client going away aborts the request to OpenAI: the provider
// sees its request end within 100 ms.
func TestCancellation(t *testing.T) {
	for _, api := range apis {
		t.Run(api.String(), func(t *testing.T) {
			r := newReplay(t, file(api, "hold"))
			r.Hold = true
			adaptertest.Cancellation(t, r.Replay, newAgent(r, api), baseInput)
		})
	}
}

// No RUN_ERROR carries a URL or an address unless the server opts in.
func TestErrorsCarryNoAddress(t *testing.T) {
	for _, api := range apis {
		t.Run(api.String(), func(t *testing.T) {
			adaptertest.ErrorsCarryNoAddress(t, func(baseURL string) server.Agent[server.NoState] {
				client := oai.NewClient(option.WithBaseURL(baseURL+"/v1/"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
				return New(client, WithAPI(api), WithModel("gpt-4.1-mini"))
			}, baseInput, func(message string) string {
				return `{"error":{"message":` + strconv.Quote(message) + `,"type":"server_error"}}`
			})
		})
	}
}
