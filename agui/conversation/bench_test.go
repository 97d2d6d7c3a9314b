package conversation_test

import (
	"strconv"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
)

// deltasPerMessage: the benchmarks stream messages of 1,000 six-byte deltas
// (6 KB, a long answer), then start the next message.
const deltasPerMessage = 1000

// BenchmarkApplyTextDelta is the reducer's cost per TEXT_MESSAGE_CONTENT in
// steady state, the message start amortised over its deltas.
// BenchmarkStringConcatBaseline, run alongside, is what the obvious
// implementation (content += delta on the message's string, as the
// reference does) costs for the same deltas: it copies the whole content
// each time.
func BenchmarkApplyTextDelta(b *testing.B) {
	c := conversation.New(nil, nil)
	ev := &agui.TextMessageContent{Delta: "token "}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if n%deltasPerMessage == 0 {
			ev.MessageID = "m" + strconv.Itoa(n)
			c.Apply(&agui.TextMessageStart{MessageID: ev.MessageID})
		}
		c.Apply(ev)
		n++
	}
}

func BenchmarkApplyToolCallArgs(b *testing.B) {
	c := conversation.New(nil, nil)
	ev := &agui.ToolCallArgs{Delta: `"x",`}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if n%deltasPerMessage == 0 {
			ev.ToolCallID = "c" + strconv.Itoa(n)
			c.Apply(&agui.ToolCallStart{ToolCallID: ev.ToolCallID, ToolCallName: "f"})
		}
		c.Apply(ev)
		n++
	}
}

func BenchmarkStringConcatBaseline(b *testing.B) {
	var msgs []*agui.AssistantMessage
	var msg *agui.AssistantMessage
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if n%deltasPerMessage == 0 {
			msg = &agui.AssistantMessage{ID: "m" + strconv.Itoa(n), Content: new("")}
			msgs = append(msgs, msg)
		}
		s := *msg.Content + "token "
		msg.Content = &s
		n++
	}
}

// BenchmarkApplyStateDelta: a one-operation delta on a small state.
func BenchmarkApplyStateDelta(b *testing.B) {
	c := conversation.New(nil, []byte(`{"count":0,"items":["a","b","c"],"user":{"name":"ann","plan":"pro"}}`))
	ev := agui.NewStateDelta(agui.JSONPatch{&agui.ReplaceOperation{Path: "/count", Value: []byte(`1`)}})
	b.ReportAllocs()
	for b.Loop() {
		c.Apply(ev)
	}
}
