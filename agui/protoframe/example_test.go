package protoframe_test

import (
	"bytes"
	"fmt"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
)

// A stream of the protobuf binding is written frame by frame and read back
// with the streaming reader.
func Example() {
	var stream bytes.Buffer
	w := protoframe.NewWriter(&stream)
	for _, ev := range []agui.Event{
		&agui.RunStarted{ThreadID: "t", RunID: "r"},
		agui.NewTextMessageStart("m"),
		agui.NewTextMessageContent("m", "Hello"),
		agui.NewTextMessageEnd("m"),
		&agui.RunFinished{ThreadID: "t", RunID: "r"},
	} {
		if err := w.WriteEvent(ev); err != nil {
			panic(err)
		}
	}
	fmt.Printf("first frame: % x\n", stream.Bytes()[:16])

	for msg, err := range protoframe.Frames(&stream) {
		if err != nil {
			panic(err) // a *TruncatedError when the stream ends inside a frame
		}
		ev, err := agui.DecodeEventProto(msg)
		if err != nil {
			panic(err)
		}
		fmt.Println(ev.Type())
	}
	// Output:
	// first frame: 00 00 00 0c 62 0a 0a 02 08 0b 12 01 74 1a 01 72
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT
	// TEXT_MESSAGE_END
	// RUN_FINISHED
}
