//go:build !agui_noverify

package verify_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/verify"
)

func ExampleServer() {
	var v verify.Server
	for _, ev := range []agui.Event{
		agui.NewRunStarted("thread-1", "run-1"),
		agui.NewTextMessageStart("msg-1"),
		agui.NewTextMessageContent("msg-2", "hello"),
	} {
		if err := v.Observe(ev); err != nil {
			fmt.Println(err)
			var ve *verify.Error
			if errors.As(err, &ve) {
				fmt.Println(ve.Rule, ve.Index, ve.ID)
			}
		}
	}
	// Output:
	// TEXT_MESSAGE_CONTENT breaks rule `not-open` (content and terminators require a matching start): message "msg-2" is not open [open: messages={"msg-1"}]
	// not-open 2 msg-2
}

func ExampleClient() {
	// Two runs in one stream, the first failed: the client profile accepts
	// it, as the reference client does. The second run never ends, which
	// Finish reports.
	var v verify.Client
	for _, ev := range []agui.Event{
		agui.NewRunStarted("thread-1", "run-1"),
		agui.NewRunError("model unavailable"),
		agui.NewRunStarted("thread-1", "run-2"),
		agui.NewTextMessageStart("msg-1"),
	} {
		if err := v.Observe(ev); err != nil {
			fmt.Println(err)
		}
	}
	err := v.Finish()
	fmt.Println(errors.Is(err, verify.ErrTruncated))
	fmt.Println(err)
	// Output:
	// true
	// truncated stream: the stream ended inside run "run-2", before RUN_FINISHED or RUN_ERROR [open: messages={"msg-1"}]
}

func ExampleCheck() {
	stream := [][]byte{
		[]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
		[]byte(`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Hi"}`),
		[]byte(`{"type":"FUTURE_EVENT"}`),
		[]byte(`{"type":"TEXT_MESSAGE_END","messageId":"m"}`),
	}
	r := verify.Check(verify.ClientProfile, stream)
	fmt.Println(r.OK(), r.Index, r.Event)
	fmt.Println(r.Err)
	for _, w := range r.Warnings {
		fmt.Println(w.Index, w.Message)
	}
	// Output:
	// false 3 TEXT_MESSAGE_END
	// TEXT_MESSAGE_END breaks rule `not-open` (content and terminators require a matching start): message "m" is not open [open: nothing]
	// 2 dropped: agui: unknown event type "FUTURE_EVENT"
}

// CheckStreamAt reads a stream as it is checked and says where in the input
// the rejected event and each warned one start: here JSON Lines, where the
// reader's position after each line is the next document's offset.
func ExampleCheckStreamAt() {
	input := `{"type":"RUN_STARTED","threadId":"t","runId":"r","x":1}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
`
	var at int64
	docs := func(yield func([]byte, error) bool) {
		for line := range strings.Lines(input) {
			if !yield([]byte(line), nil) {
				return
			}
			at += int64(len(line))
		}
	}
	r, err := verify.CheckStreamAt(verify.ClientProfile, docs, func() int64 { return at })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Index, r.Offset, r.Event)
	for _, w := range r.Warnings {
		fmt.Println(w.Index, w.Offset, w.Message)
	}
	// Output:
	// 1 56 TEXT_MESSAGE_END
	// 0 0 at /x: removed unrecognised member
}

func ExampleRule_Describe() {
	for _, r := range verify.Rules() {
		fmt.Printf("%s: %s\n", r, r.Describe())
	}
	// Output:
	// run-ended: no event may follow RUN_FINISHED or RUN_ERROR
	// duplicate-run-started: a run starts once
	// duplicate-start: an entity cannot be opened while it is already open
	// not-open: content and terminators require a matching start
	// unknown-id: a tool result must answer a tool call this run introduced
	// out-of-order: a tool result must come after its call's TOOL_CALL_END
	// open-at-finish: RUN_FINISHED requires everything opened in the run to be closed, subagents included
	// owner-mismatch: only the subagent that opened an entity may continue, close or reopen it
	// not-started: a stream begins with RUN_STARTED, or with RUN_ERROR for a run that failed before it started
}
