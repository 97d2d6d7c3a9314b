package agui_test

import (
	"errors"
	"fmt"

	"github.com/agui-go/sdk/agui"
)

// Events encode to the compact JSON of the wire, with members in the order
// the reference encoder writes them and optional members left out when
// absent.
func ExampleAppendEvent() {
	ev := agui.NewTextMessageContent("msg-1", "Hello")
	ts := int64(1700000000000)
	ev.Timestamp = &ts

	buf, err := agui.AppendEvent(nil, ev)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(buf))
	// Output:
	// {"type":"TEXT_MESSAGE_CONTENT","timestamp":1700000000000,"messageId":"msg-1","delta":"Hello"}
}

// Strict decoding rejects what the schema rejects; the error says where,
// as a JSON Pointer and as a byte offset.
func ExampleDecodeEvent() {
	ev, err := agui.DecodeEvent([]byte(`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	start := ev.(*agui.TextMessageStart)
	fmt.Println(start.Type(), start.MessageID, *start.Role)

	_, err = agui.DecodeEvent([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":42}`))
	var de *agui.DecodeError
	if errors.As(err, &de) {
		fmt.Printf("path %s, offset %d: %s\n", de.Path, de.Offset, de.Reason)
	}
	// Output:
	// TEXT_MESSAGE_START m1 assistant
	// path /delta, offset 56: expected string, got number
}

// Lenient decoding reads what a forgiving client reads: unknown members are
// stripped with a warning, and an event type this SDK does not know is an
// error a consumer may skip.
func ExampleDecodeOptions_DecodeEvent() {
	lenient := agui.DecodeOptions{Lenient: true}
	ev, warnings, err := lenient.DecodeEvent([]byte(`{"type":"STEP_STARTED","stepName":"plan","mood":"sunny"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ev.Type(), ev.(*agui.StepStarted).StepName)
	for _, w := range warnings {
		fmt.Println("warning:", w)
	}

	_, _, err = lenient.DecodeEvent([]byte(`{"type":"FUTURE_EVENT"}`))
	if errors.Is(err, agui.ErrUnknownEventType) {
		fmt.Println("skipped:", err)
	}
	// Output:
	// STEP_STARTED plan
	// warning: at /mood: removed unrecognised member
	// skipped: agui: unknown event type "FUTURE_EVENT"
}

// A StreamDecoder reads the events of one stream in order; the tool call id
// that every argument delta repeats is allocated once, for the first. Its
// zero value is strict; this one forgives what older peers send, as a
// client does.
func ExampleStreamDecoder() {
	dec := agui.StreamDecoder{Options: agui.DecodeOptions{Lenient: true}}
	for _, frame := range []string{
		`{"type":"TOOL_CALL_START","toolCallId":"call-1","toolCallName":"search"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"{\"q\":"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"\"go\"}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"call-1"}`,
	} {
		ev, _, err := dec.DecodeEvent([]byte(frame))
		if err != nil {
			fmt.Println(err)
			return
		}
		if args, ok := ev.(*agui.ToolCallArgs); ok {
			fmt.Printf("%s %s\n", ev.Type(), args.Delta)
		} else {
			fmt.Println(ev.Type())
		}
	}
	// Output:
	// TOOL_CALL_START
	// TOOL_CALL_ARGS {"q":
	// TOOL_CALL_ARGS "go"}
	// TOOL_CALL_END
}
