package interop

import (
	"encoding/json"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
)

// Two event sequences found to reduce differently in the reference client
// and in package conversation (issue 24). The first is matched; the second
// is a difference kept on purpose, pinned here on both sides so that a
// change to either reducer shows (the reason is in the conversation
// package doc).
func TestReducerDivergences(t *testing.T) {
	type want struct {
		// ours, ref: the messages each reducer ends with, as JSON.
		ours, ref string
	}
	cases := []struct {
		name    string
		history string // a JSON array of messages
		events  []string
		want    want
	}{
		{
			// A subagent's TOOL_CALL_START whose toolCallId is the id of a
			// message already there: both reducers add a second assistant
			// message under that id (the ids clash), and the reference
			// attributes a new message to the subagent only when its id was
			// unused. Matched: the clash is not the subagent's message.
			name:    "tool call id of an existing message",
			history: `[{"id":"x","role":"assistant","content":"hi"}]`,
			events:  []string{`{"type":"TOOL_CALL_START","toolCallId":"x","toolCallName":"look","subagentRunId":"s1"}`},
			want: want{
				ours: `[{"id":"x","role":"assistant","content":"hi"},{"id":"x","role":"assistant","toolCalls":[{"id":"x","type":"function","function":{"name":"look","arguments":""}}]}]`,
				ref:  `[{"id":"x","role":"assistant","content":"hi"},{"id":"x","role":"assistant","toolCalls":[{"id":"x","type":"function","function":{"name":"look","arguments":""}}]}]`,
			},
		},
		{
			// A tool result minted under the id of a text message being
			// streamed, then more text for that id. The tool message goes
			// right after its call's message, before the text message, and
			// the reference finds the first message with the id: it appends
			// the text to the tool message and loses its parts. Kept: the
			// text goes to the message TEXT_MESSAGE_START opened, the first
			// message with the id in the order they were made, and nothing
			// the agent sent is lost.
			name:    "text for the id of a tool result",
			history: `[]`,
			events: []string{
				`{"type":"TOOL_CALL_START","toolCallId":"tc","toolCallName":"shot"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"tc"}`,
				`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
				`{"type":"TOOL_CALL_RESULT","messageId":"m1","toolCallId":"tc","content":[{"type":"image","source":{"type":"url","value":"https://example.com/a.png"}}]}`,
				`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hello"}`,
			},
			want: want{
				ours: `[{"id":"tc","role":"assistant","toolCalls":[{"id":"tc","type":"function","function":{"name":"shot","arguments":""}}]},{"id":"m1","role":"tool","content":[{"type":"image","source":{"type":"url","value":"https://example.com/a.png"}}],"toolCallId":"tc"},{"id":"m1","role":"assistant","content":"hello"}]`,
				ref:  `[{"id":"tc","role":"assistant","toolCalls":[{"id":"tc","type":"function","function":{"name":"shot","arguments":""}}]},{"id":"m1","toolCallId":"tc","role":"tool","content":"hello"},{"id":"m1","role":"assistant","content":""}]`,
			},
		},
	}
	rcs := make([]reducerCase, len(cases))
	for i, c := range cases {
		if err := json.Unmarshal([]byte(c.history), &rcs[i].Messages); err != nil {
			t.Fatal(err)
		}
		rcs[i].State = json.RawMessage(`{}`)
		for _, e := range c.events {
			rcs[i].Events = append(rcs[i].Events, json.RawMessage(e))
		}
	}
	refs := referenceReduce(t, rcs)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := agui.DecodeRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":` + c.history + `}`))
			if err != nil {
				t.Fatal(err)
			}
			conv := conversation.New(in.Messages, json.RawMessage(`{}`))
			for _, e := range c.events {
				ev, err := agui.DecodeEvent([]byte(e))
				if err != nil {
					t.Fatal(err)
				}
				conv.Apply(ev)
			}
			ours := decodeNumbers(t, mustMarshal(t, encodeAll(t, conv.Messages())))
			if got, want := string(mustMarshal(t, ours)), string(mustMarshal(t, decodeNumbers(t, []byte(c.want.ours)))); got != want {
				t.Errorf("ours\n got  %s\n want %s", got, want)
			}
			ref := decodeNumbers(t, mustMarshal(t, refs[i].Messages))
			if got, want := string(mustMarshal(t, ref)), string(mustMarshal(t, decodeNumbers(t, []byte(c.want.ref)))); got != want {
				t.Errorf("reference\n got  %s\n want %s", got, want)
			}
		})
	}
}
