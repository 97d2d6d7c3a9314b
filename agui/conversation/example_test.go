package conversation_test

import (
	"fmt"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/chunks"
	"github.com/agui-go/sdk/agui/conversation"
)

// A stream as a client delivers it: chunks expanded, then folded into the
// conversation.
func Example() {
	conv := conversation.New([]agui.Message{
		&agui.UserMessage{ID: "u1", Content: agui.TextContent("What is 6 × 7?")},
	}, nil)

	stream := []agui.Event{
		&agui.RunStarted{ThreadID: "t1", RunID: "r1"},
		&agui.TextMessageChunk{MessageID: new("a1"), Delta: new("It is ")},
		&agui.TextMessageChunk{Delta: new("42.")},
		agui.NewStateSnapshot([]byte(`{"answered":1}`)),
		agui.NewStateDelta(agui.JSONPatch{&agui.ReplaceOperation{Path: "/answered", Value: []byte(`2`)}}),
		&agui.RunFinished{ThreadID: "t1", RunID: "r1"},
	}
	var x chunks.Expander
	for _, ev := range stream {
		expanded, err := x.Expand(nil, ev)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, ev := range expanded {
			for _, w := range conv.Apply(ev) {
				fmt.Println("warning:", w)
			}
		}
	}

	for _, m := range conv.Messages() {
		b, _ := m.AppendJSON(nil)
		fmt.Println(string(b))
	}
	fmt.Println(string(conv.State()), conv.Outcome().Status)

	// The next run carries the whole history and the state.
	next, _ := conv.NextInput(conversation.InputOptions{RunID: "r2"})
	fmt.Println(next.ThreadID, next.RunID, len(next.Messages))
	// Output:
	// {"id":"u1","role":"user","content":"What is 6 × 7?"}
	// {"id":"a1","role":"assistant","content":"It is 42."}
	// {"answered":2} succeeded
	// t1 r2 2
}

// An interrupted run, then the resume: NextInput refuses a resume that
// leaves an interrupt unanswered, and accepts one that answers them all.
func ExampleConversation_NextInput() {
	conv := conversation.New(nil, nil)
	conv.Apply(&agui.RunStarted{ThreadID: "t1", RunID: "r1"})
	conv.Apply(&agui.RunFinished{ThreadID: "t1", RunID: "r1", Outcome: &agui.RunFinishedInterruptOutcome{
		Interrupts: []agui.Interrupt{{ID: "approve-1", Reason: "approval"}, {ID: "approve-2", Reason: "approval"}},
	}})
	fmt.Println(conv.Outcome().Status, len(conv.Interrupts()))

	_, err := conv.NextInput(conversation.InputOptions{Resume: []agui.ResumeEntry{
		{InterruptID: "approve-1", Status: agui.ResumeStatusResolved, Payload: []byte(`{"ok":true}`)},
	}})
	fmt.Println(err)

	in, err := conv.NextInput(conversation.InputOptions{RunID: "r2", Resume: []agui.ResumeEntry{
		{InterruptID: "approve-1", Status: agui.ResumeStatusResolved, Payload: []byte(`{"ok":true}`)},
		{InterruptID: "approve-2", Status: agui.ResumeStatusCancelled},
	}})
	fmt.Println(in.ThreadID, in.RunID, len(in.Resume), err)
	// Output:
	// interrupted 2
	// Thread has 1 pending interrupt(s) not addressed by resume: approve-2
	// t1 r2 2 <nil>
}
