package agui

import (
	"encoding/json"
	"strings"
	"testing"
)

// The baselines are plain structs with json tags, encoded and decoded by
// encoding/json's reflection: the way a Go SDK without generated codecs
// does it. They carry the same members as the generated types.

type stdBase struct {
	Timestamp *int64          `json:"timestamp,omitempty"`
	RawEvent  json.RawMessage `json:"rawEvent,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

type stdTextMessageContent struct {
	Type          string  `json:"type"`
	MessageID     string  `json:"messageId"`
	Delta         string  `json:"delta"`
	SubagentRunID *string `json:"subagentRunId,omitempty"`
	stdBase
}

type stdToolCallArgs struct {
	Type          string  `json:"type"`
	ToolCallID    string  `json:"toolCallId"`
	Delta         string  `json:"delta"`
	SubagentRunID *string `json:"subagentRunId,omitempty"`
	stdBase
}

type stdStateSnapshot struct {
	Type          string          `json:"type"`
	Snapshot      json.RawMessage `json:"snapshot"`
	SubagentRunID *string         `json:"subagentRunId,omitempty"`
	stdBase
}

type stdFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type stdToolCall struct {
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Function stdFunctionCall `json:"function"`
}

type stdMessage struct {
	Role       string        `json:"role"`
	ID         string        `json:"id"`
	Content    any           `json:"content,omitempty"`
	Name       *string       `json:"name,omitempty"`
	ToolCalls  []stdToolCall `json:"toolCalls,omitempty"`
	ToolCallID string        `json:"toolCallId,omitempty"`
}

type stdMessagesSnapshot struct {
	Type     string       `json:"type"`
	Messages []stdMessage `json:"messages"`
	stdBase
}

var (
	benchDelta    = "The quick brown fox jumps over the lazy dog, "
	benchArgs     = `{"city":"Seoul","unit":"c`
	benchState    = json.RawMessage(`{"counter":42,"items":[{"id":"a","done":true,"tags":["x","y"]},{"id":"b","done":false,"tags":[]}],"user":{"name":"Jiwoo","locale":"ko-KR","prefs":{"theme":"dark","beta":null}},"history":[1,2,3,4,5,6,7,8,9,10]}`)
	benchMessages = func() []Message {
		var ms []Message
		for i := range 8 {
			id := strings.Repeat("m", 1+i%3)
			ms = append(ms,
				&UserMessage{ID: id + "u", Content: TextContent("What is the weather in Seoul today?")},
				&AssistantMessage{ID: id + "a", ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "weather", Arguments: `{"city":"Seoul"}`}}}},
				&ToolMessage{ID: id + "t", ToolCallID: "c1", Content: TextContent(`{"temp":3}`)},
			)
		}
		return ms
	}()
)

func stdMessages() []stdMessage {
	var ms []stdMessage
	for _, m := range benchMessages {
		//agui:nonexhaustive the benchmark builds only these three roles
		switch m := m.(type) {
		case *UserMessage:
			s, _ := m.Content.Text()
			ms = append(ms, stdMessage{Role: "user", ID: m.ID, Content: s})
		case *AssistantMessage:
			ms = append(ms, stdMessage{Role: "assistant", ID: m.ID, ToolCalls: []stdToolCall{{ID: "c1", Type: "function", Function: stdFunctionCall{Name: "weather", Arguments: `{"city":"Seoul"}`}}}})
		case *ToolMessage:
			s, _ := m.Content.Text()
			ms = append(ms, stdMessage{Role: "tool", ID: m.ID, ToolCallID: m.ToolCallID, Content: s})
		}
	}
	return ms
}

type benchCase struct {
	name string
	ours Event
	std  any
	dec  func() any // a fresh encoding/json target
}

func benchCases() []benchCase {
	return []benchCase{
		{"TextMessageContent", NewTextMessageContent("msg-1", benchDelta),
			&stdTextMessageContent{Type: "TEXT_MESSAGE_CONTENT", MessageID: "msg-1", Delta: benchDelta},
			func() any { return new(stdTextMessageContent) }},
		{"ToolCallArgs", NewToolCallArgs("call-1", benchArgs),
			&stdToolCallArgs{Type: "TOOL_CALL_ARGS", ToolCallID: "call-1", Delta: benchArgs},
			func() any { return new(stdToolCallArgs) }},
		{"StateSnapshot", NewStateSnapshot(benchState),
			&stdStateSnapshot{Type: "STATE_SNAPSHOT", Snapshot: benchState},
			func() any { return new(stdStateSnapshot) }},
		{"MessagesSnapshot", NewMessagesSnapshot(benchMessages),
			&stdMessagesSnapshot{Type: "MESSAGES_SNAPSHOT", Messages: stdMessages()},
			func() any { return new(stdMessagesSnapshot) }},
	}
}

// TestBenchCasesAgree proves the baselines encode the same documents as the
// generated code, so the benchmarks compare like with like.
func TestBenchCasesAgree(t *testing.T) {
	for _, c := range benchCases() {
		ours, err := c.ours.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		std, err := json.Marshal(c.std)
		if err != nil {
			t.Fatal(err)
		}
		assertJSONEqual(t, std, ours)
	}
}

// BenchmarkEncode compares AppendJSON into a reused buffer (Generated) with
// encoding/json.Marshal (Std).
func BenchmarkEncode(b *testing.B) {
	for _, c := range benchCases() {
		b.Run(c.name+"/Generated", func(b *testing.B) {
			buf := make([]byte, 0, 4096)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = c.ours.AppendJSON(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(buf)))
		})
		b.Run(c.name+"/Std", func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				out, err := json.Marshal(c.std)
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			b.SetBytes(int64(n))
		})
	}
}

// BenchmarkDecode compares DecodeEvent (which also picks the event type)
// with encoding/json.Unmarshal into the already-known concrete struct.
func BenchmarkDecode(b *testing.B) {
	for _, c := range benchCases() {
		data, _ := c.ours.AppendJSON(nil)
		b.Run(c.name+"/Generated", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := DecodeEvent(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/Std", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := json.Unmarshal(data, c.dec()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
