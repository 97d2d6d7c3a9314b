package conversation_test

import (
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
)

// The UI's side between runs: appended messages and a set state go out
// with the next input, the agent's events apply over them, and a pending
// tool call is found, with its streamed arguments, until a tool message
// answers it.
func TestAppendSetStateToolCall(t *testing.T) {
	var conv conversation.Conversation // the zero value is usable
	conv.Append(&agui.UserMessage{ID: "u1", Content: agui.TextContent("hi")}, nil)
	conv.SetState([]byte(`{"n":1}`))
	in, err := conv.NextInput(conversation.InputOptions{ThreadID: "t", RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Messages) != 1 || string(in.State) != `{"n":1}` {
		t.Fatalf("input messages %d, state %s", len(in.Messages), in.State)
	}
	for _, ev := range events(t, `
		{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
		{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}
		{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"pick"}
		{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"a\":"}
		{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"1}"}
		{"type":"TOOL_CALL_END","toolCallId":"c1"}
		{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}`) {
		if ws := conv.Apply(ev); ws != nil {
			t.Fatalf("%s: %v", ev.Type(), ws)
		}
	}
	if string(conv.State()) != `{"n":2}` {
		t.Fatalf("state %s", conv.State())
	}
	tc, ok := conv.ToolCall("c1")
	if !ok || tc.Function.Name != "pick" || tc.Function.Arguments != `{"a":1}` || conv.Answered("c1") {
		t.Fatalf("tool call %+v, %v, answered %v", tc, ok, conv.Answered("c1"))
	}
	if _, ok := conv.ToolCall("c2"); ok {
		t.Fatal("an unknown call was found")
	}
	conv.Append(&agui.ToolMessage{ID: "tm", ToolCallID: "c1", Content: agui.TextContent("done")})
	if !conv.Answered("c1") {
		t.Fatal("the tool message does not answer the call")
	}
	conv.SetState(nil)
	in, err = conv.NextInput(conversation.InputOptions{RunID: "r2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Messages) != 3 || string(in.State) != `{}` || in.ThreadID != "t" {
		t.Fatalf("second input: %d messages, state %s, thread %s", len(in.Messages), in.State, in.ThreadID)
	}
}
