package genkit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/adaptertest"
	"github.com/firebase/genkit/go/ai"
	gk "github.com/firebase/genkit/go/genkit"
	"github.com/openai/openai-go"
)

// The run every scenario starts from: one user question, one frontend tool,
// a context entry and some state.
const confirmSchema = `{"type":"object","properties":{"question":{"type":"string","description":"what to ask"}},"required":["question"],"additionalProperties":false}`

var baseInput = `{"threadId":"thread-1","runId":"run-1",
 "messages":[{"id":"user-1","role":"user","content":"What is the weather in Paris?"}],
 "tools":[{"name":"confirm_booking","description":"Ask the user to confirm a booking.","parameters":` + confirmSchema + `}],
 "context":[{"description":"the user's locale","value":"fr-FR"}],
 "state":{"city":"Paris"}}`

const instructions = "system: You are a weather assistant.\n\nContext from the application:\n- the user's locale: fr-FR\n\nThe application's current shared state (JSON): {\"city\":\"Paris\"}"

type weatherIn struct {
	City string `json:"city"`
}

type weatherOut struct {
	Sky   string `json:"sky"`
	HighC int    `json:"highC"`
}

// weatherCalls records the cities get_weather was asked about.
type weatherCalls struct{ cities []string }

// tool defines get_weather on g, a backend tool Genkit runs.
func (w *weatherCalls) tool(g *gk.Genkit) ai.Tool {
	return gk.DefineTool(g, "get_weather", "The weather in a city.",
		func(ctx *ai.ToolContext, in weatherIn) (weatherOut, error) {
			w.cities = append(w.cities, in.City)
			return weatherOut{Sky: "sunny", HighC: 24}, nil
		})
}

func newAgent(g *gk.Genkit, opts ...Option) *Agent {
	base := []Option{WithModelName(modelName), WithSystemPrompt("You are a weather assistant."), WithState()}
	return New(g, append(base, opts...)...)
}

// transcript renders the conversation of a Chat Completions request, one
// line per message or tool call.
func transcript(req map[string]any) []string {
	var out []string
	str := func(v any) string {
		switch v := v.(type) {
		case string:
			return v
		case []any:
			var parts []string
			for _, p := range v {
				m, _ := p.(map[string]any)
				if m["type"] == "text" {
					parts = append(parts, "text:"+fmt.Sprint(m["text"]))
				} else {
					parts = append(parts, fmt.Sprint(m["type"]))
				}
			}
			return strings.Join(parts, " ")
		}
		return fmt.Sprint(v)
	}
	for _, it := range jsonAt(req, "messages").([]any) {
		m := it.(map[string]any)
		switch m["role"] {
		case "assistant":
			if c, ok := m["content"]; ok && c != nil && c != "" {
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

// toolParams returns the parameters of each tool a request declared.
func toolParams(req map[string]any) map[string]string {
	out := map[string]string{}
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		out[jsonAt(t, "function", "name").(string)] = string(must(json.Marshal(jsonAt(t, "function", "parameters"))))
	}
	return out
}

func canonical(s string) string {
	var v any
	must(0, json.Unmarshal([]byte(s), &v))
	return string(must(json.Marshal(v)))
}

func checkTranscript(t *testing.T, req map[string]any, want ...string) {
	t.Helper()
	if got := transcript(req); !slices.Equal(got, want) {
		t.Errorf("conversation sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
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

func TestText(t *testing.T) {
	r := newReplay(t, "chat_text.sse")
	// The plugin's own config passes through: compat_oai asks for usage
	// only when told to.
	config := ai.WithConfig(&openai.ChatCompletionNewParams{
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
	s := summarize(runHTTP(t, newAgent(r.genkit(t), WithGenerateOptions(config)), baseInput))

	if len(s.Text) != 1 || s.Count("TEXT_MESSAGE_START") != 1 {
		t.Fatalf("want one text message, got %v", s.Types)
	}
	for _, text := range s.Text {
		if text != "It is sunny in Paris." {
			t.Errorf("text %q", text)
		}
	}
	if n := s.Count("TEXT_MESSAGE_CONTENT"); n < 2 {
		t.Errorf("%d TEXT_MESSAGE_CONTENT, want the text as it streamed", n)
	}
	if p := s.Pending(t); len(p) != 0 {
		t.Errorf("pending %v", p)
	}
	checkUsage(t, s.Finished.Usage, "gpt-4.1-mini-2025-04-14", 42, 7, 49)
	reqs := r.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0]["model"] != "gpt-4.1-mini" || reqs[0]["stream"] != true || jsonAt(reqs[0], "stream_options", "include_usage") != true {
		t.Errorf("model %v stream %v stream_options %v", reqs[0]["model"], reqs[0]["stream"], reqs[0]["stream_options"])
	}
	checkTranscript(t, reqs[0], instructions, "user: text:What is the weather in Paris?")
	if got := toolParams(reqs[0]); len(got) != 1 || got["confirm_booking"] != canonical(confirmSchema) {
		t.Errorf("tools sent %v, want confirm_booking with its schema as given", got)
	}
}

// Two parallel calls whose arguments arrive interleaved: one backend tool,
// run by Genkit, and one frontend tool, left pending for the client.
func TestParallelToolCalls(t *testing.T) {
	r := newReplay(t, "chat_tools.sse")
	g := r.genkit(t)
	var w weatherCalls
	s := summarize(runHTTP(t, newAgent(g, WithTools(w.tool(g))), baseInput))

	if s.Names["call_weather_1"] != "get_weather" || s.Names["call_confirm_2"] != "confirm_booking" {
		t.Fatalf("tool calls %v", s.Names)
	}
	if s.Args["call_weather_1"] != `{"city":"Paris"}` || s.Args["call_confirm_2"] != `{"question":"Book a table?"}` {
		t.Errorf("arguments %v", s.Args)
	}
	if p1, p2 := s.Parents["call_weather_1"], s.Parents["call_confirm_2"]; p1 == "" || p1 != p2 {
		t.Errorf("parent messages %q %q, want one assistant message", p1, p2)
	}
	if !slices.Equal(w.cities, []string{"Paris"}) {
		t.Errorf("get_weather ran for %v", w.cities)
	}
	if s.Results["call_weather_1"] != `{"highC":24,"sky":"sunny"}` || len(s.Results) != 1 {
		t.Errorf("results %v", s.Results)
	}
	if p := s.Pending(t); !slices.Equal(p, []string{"call_confirm_2"}) {
		t.Errorf("pending %v, want the frontend call", p)
	}
	checkUsage(t, s.Finished.Usage, "gpt-4.1-mini-2025-04-14", 80, 30, 110)
	if n := len(r.requests()); n != 1 {
		t.Errorf("%d requests, want 1: a pending frontend call ends the run", n)
	}
	if got := toolParams(r.requests()[0]); len(got) != 2 || got["confirm_booking"] != canonical(confirmSchema) || got["get_weather"] == "" {
		t.Errorf("tools sent %v", got)
	}
}

// Genkit runs the backend tool and sends its result back; the model then
// answers, and the run ends with the usage of both requests.
func TestBackendToolLoop(t *testing.T) {
	r := newReplay(t, "chat_backend_call.sse", "chat_text.sse")
	g := r.genkit(t)
	var w weatherCalls
	events := runHTTP(t, newAgent(g, WithTools(w.tool(g))), baseInput)
	s := summarize(events)

	if s.Results["call_weather_9"] != `{"highC":24,"sky":"sunny"}` {
		t.Errorf("results %v", s.Results)
	}
	var texts []string
	for _, ev := range events {
		if m, ok := ev.(*agui.TextMessageStart); ok {
			texts = append(texts, s.Text[m.MessageID])
		}
	}
	if !slices.Equal(texts, []string{"Let me check.", "It is sunny in Paris."}) {
		t.Errorf("texts %q, want one message per model request", texts)
	}
	if res, second := slices.Index(s.Types, "TOOL_CALL_RESULT"), slices.Index(s.Types, "TEXT_MESSAGE_START"); res < second {
		t.Errorf("events %v", s.Types)
	}
	if p := s.Pending(t); len(p) != 0 {
		t.Errorf("pending %v", p)
	}
	checkUsage(t, s.Finished.Usage, "gpt-4.1-mini-2025-04-14", 92, 19, 111)
	reqs := r.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	checkTranscript(t, reqs[1], instructions, "user: text:What is the weather in Paris?",
		"assistant: Let me check.",
		`call call_weather_9 get_weather {"city":"Paris"}`,
		`tool call_weather_9: {"highC":24,"sky":"sunny"}`)
}

// Run 1 ends with a frontend call pending; run 2 carries the client's result
// and the model continues from it.
func TestFrontendToolMultiTurn(t *testing.T) {
	r := newReplay(t, "chat_frontend_call.sse", "chat_text.sse")
	agent := newAgent(r.genkit(t))
	first := summarize(runHTTP(t, agent, baseInput))
	pending := first.Pending(t)
	if !slices.Equal(pending, []string{"call_confirm_7"}) {
		t.Fatalf("pending %v", pending)
	}
	id := pending[0]
	history := []map[string]any{
		{"id": "user-1", "role": "user", "content": "What is the weather in Paris?"},
		{"id": first.Parents[id], "role": "assistant", "toolCalls": []map[string]any{
			{"id": id, "type": "function", "function": map[string]string{"name": first.Names[id], "arguments": first.Args[id]}}}},
		{"id": "tool-1", "role": "tool", "toolCallId": id, "content": `{"confirmed":true}`},
	}
	second := summarize(runHTTP(t, agent, withInput(t, baseInput, "messages", history)))
	if second.Finished == nil || len(second.Pending(t)) != 0 || len(second.Results) != 0 {
		t.Fatalf("second run %v (results %v)", second.Types, second.Results)
	}
	checkTranscript(t, r.requests()[1], instructions, "user: text:What is the weather in Paris?",
		`call call_confirm_7 confirm_booking {"question":"Book a table for two?"}`,
		`tool call_confirm_7: {"confirmed":true}`)
}

// withInput returns input with its member key set to v and a new runId.
func withInput(t *testing.T, input string, kv ...any) string {
	t.Helper()
	var in map[string]any
	must(0, json.Unmarshal([]byte(input), &in))
	in["runId"] = agui.NewID()
	for i := 0; i < len(kv); i += 2 {
		in[kv[i].(string)] = kv[i+1]
	}
	return string(must(json.Marshal(in)))
}

type bookingIn struct {
	Question string `json:"question"`
}

// approvals defines confirm_booking as a backend tool that interrupts for
// the user's approval and, restarted, books when approved.
type approvals struct{ resumed []map[string]any }

func (a *approvals) tool(g *gk.Genkit) ai.Tool {
	return gk.DefineTool(g, "confirm_booking", "Book a table once the user approves.",
		func(ctx *ai.ToolContext, in bookingIn) (string, error) {
			if !ctx.IsResumed() {
				return "", ctx.Interrupt(&ai.InterruptOptions{Metadata: map[string]any{"reason": "approval", "message": in.Question}})
			}
			a.resumed = append(a.resumed, ctx.Resumed)
			if c, _ := ctx.Resumed["cancelled"].(bool); c {
				return "cancelled", nil
			}
			if ok, _ := ctx.Resumed["approved"].(bool); ok {
				return "booked", nil
			}
			return "not booked", nil
		})
}

// A Genkit tool interrupt ends the run with the interrupt outcome; the next
// run's resume entry restarts the tool through Genkit's restart mechanism,
// its result reaches the client and the model answers.
func TestInterruptAndResume(t *testing.T) {
	r := newReplay(t, "chat_frontend_call.sse", "chat_text.sse")
	g := r.genkit(t)
	var a approvals
	agent := newAgent(g, WithTools(a.tool(g)))
	first := summarize(runHTTP(t, agent, baseInput))
	if first.Finished == nil {
		t.Fatalf("first run %v (%+v)", first.Types, first.Failed)
	}
	out, ok := first.Finished.Outcome.(*agui.RunFinishedInterruptOutcome)
	if !ok || len(out.Interrupts) != 1 {
		t.Fatalf("outcome %#v, want one interrupt", first.Finished.Outcome)
	}
	in := out.Interrupts[0]
	if in.ID != "call_confirm_7" || in.ToolCallID == nil || *in.ToolCallID != "call_confirm_7" || in.Reason != "approval" ||
		in.Message == nil || *in.Message != "Book a table for two?" {
		t.Errorf("interrupt %+v", in)
	}
	if len(first.Results) != 0 || len(a.resumed) != 0 {
		t.Errorf("results %v, resumed %v", first.Results, a.resumed)
	}
	id := "call_confirm_7"
	history := []map[string]any{
		{"id": "user-1", "role": "user", "content": "What is the weather in Paris?"},
		{"id": first.Parents[id], "role": "assistant", "toolCalls": []map[string]any{
			{"id": id, "type": "function", "function": map[string]string{"name": first.Names[id], "arguments": first.Args[id]}}}},
	}
	resume := []map[string]any{{"interruptId": in.ID, "status": "resolved", "payload": map[string]any{"approved": true}}}
	second := summarize(runHTTP(t, agent, withInput(t, baseInput, "messages", history, "resume", resume)))
	if second.Finished == nil || len(second.Pending(t)) != 0 {
		t.Fatalf("second run %v (%+v)", second.Types, second.Failed)
	}
	if len(a.resumed) != 1 || a.resumed[0]["approved"] != true {
		t.Errorf("the tool was resumed with %v", a.resumed)
	}
	if second.Results[id] != "booked" {
		t.Errorf("results %v", second.Results)
	}
	if len(second.Text) != 1 {
		t.Errorf("texts %v", second.Text)
	}
	checkTranscript(t, r.requests()[1], instructions, "user: text:What is the weather in Paris?",
		`call call_confirm_7 confirm_booking {"question":"Book a table for two?"}`,
		`tool call_confirm_7: "booked"`)
}

// A resume whose entries do not answer the interrupted call fails the run
// with a clear error, before any request.
func TestResumeMismatch(t *testing.T) {
	r := newReplay(t)
	g := r.genkit(t)
	var a approvals
	history := []map[string]any{
		{"id": "user-1", "role": "user", "content": "Book it."},
		{"id": "a1", "role": "assistant", "toolCalls": []map[string]any{
			{"id": "call_1", "type": "function", "function": map[string]string{"name": "confirm_booking", "arguments": `{"question":"?"}`}}}},
	}
	resume := []map[string]any{{"interruptId": "other", "status": "resolved"}}
	s := summarize(runHTTP(t, newAgent(g, WithTools(a.tool(g))), withInput(t, baseInput, "messages", history, "resume", resume)))
	if s.Failed == nil || !strings.Contains(s.Failed.Message, `tool call "call_1" has neither a result nor a resume entry`) {
		t.Errorf("RUN_ERROR %+v", s.Failed)
	}
	if n := len(r.requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestProviderErrorMidStream(t *testing.T) {
	r := newReplay(t, "chat_error.sse")
	s := summarize(runHTTP(t, newAgent(r.genkit(t)), baseInput))
	if s.Failed == nil || s.Finished != nil {
		t.Fatalf("want RUN_ERROR, got %v", s.Types)
	}
	const want = "The server had an error while processing your request. Sorry about that!"
	if s.Failed.Message != "agent error: Genkit: stream error: received error while streaming: "+want ||
		s.Failed.Code == nil || *s.Failed.Code != "AGENT_ERROR" {
		t.Errorf("RUN_ERROR %q (%v), want Genkit's words and the provider's message %q", s.Failed.Message, s.Failed.Code, want)
	}
	if s.Count("TEXT_MESSAGE_CONTENT") != 1 {
		t.Errorf("the text before the failure was not streamed: %v", s.Types)
	}
}

// The AG-UI client going away aborts Genkit's model request.
func TestCancellation(t *testing.T) {
	r := newReplay(t, "chat_hold.sse")
	r.Hold = true
	adaptertest.Cancellation(t, r.Replay, newAgent(r.genkit(t)), baseInput)
}

// No RUN_ERROR carries a URL or an address unless the server opts in.
func TestErrorsCarryNoAddress(t *testing.T) {
	adaptertest.ErrorsCarryNoAddress(t, func(baseURL string) server.Agent[server.NoState] {
		return newAgent(newGenkit(t, baseURL+"/v1/"))
	}, baseInput, func(message string) string {
		return `{"error":{"message":` + strconv.Quote(message) + `,"type":"server_error"}}`
	})
}

// A refused request reports the provider's message, not its JSON body.
func TestProviderRefused(t *testing.T) {
	r := newReplay(t) // no recorded stream: every request gets HTTP 500
	s := summarize(runHTTP(t, newAgent(r.genkit(t)), baseInput))
	if s.Failed == nil || !strings.HasSuffix(s.Failed.Message, "500 Internal Server Error: no more recorded streams") {
		t.Errorf("RUN_ERROR %+v", s.Failed)
	}
}
