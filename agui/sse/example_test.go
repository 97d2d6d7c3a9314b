package sse_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/sse"
)

// A producer writes each event's compact JSON as one frame.
func ExampleAppendFrame() {
	ev := agui.NewRunStarted("thread-1", "run-1")
	data, err := ev.AppendJSON(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	frame := sse.AppendFrame(nil, data)
	fmt.Printf("%q\n", frame)
	// Output:
	// "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"thread-1\",\"runId\":\"run-1\"}\n\n"
}

// A consumer reads frames forgivingly: comments are skipped, CRLF line ends
// are read, several data lines join with LF, and a last frame without its
// blank line still counts.
func ExampleFrames() {
	stream := ": keep-alive\r\n" +
		"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\r\n\r\n" +
		"data: {\"type\":\"RUN_FINISHED\",\n" +
		"data:  \"threadId\":\"t\",\"runId\":\"r\"}\n"
	for data, err := range sse.Frames(strings.NewReader(stream)) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		ev, err := agui.DecodeEvent(data)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(ev.Type(), bytes.Count(data, []byte("\n"))+1, "line(s)")
	}
	// Output:
	// RUN_STARTED 1 line(s)
	// RUN_FINISHED 2 line(s)
}
