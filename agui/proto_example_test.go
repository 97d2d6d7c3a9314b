package agui_test

import (
	"errors"
	"fmt"

	"github.com/agui-go/sdk/agui"
)

// An event encodes to the protobuf binding into a reused buffer and decodes
// back; an envelope from a newer protocol is an unknown event type, which a
// forgiving reader skips.
func ExampleDecodeEventProto() {
	buf := make([]byte, 0, 256)
	buf, err := agui.NewTextMessageContent("msg-1", "Hello").AppendProto(buf[:0])
	if err != nil {
		panic(err)
	}
	ev, err := agui.DecodeEventProto(buf)
	if err != nil {
		panic(err)
	}
	fmt.Println(ev.Type(), ev.(*agui.TextMessageContent).Delta)

	future := []byte{0xc2, 0x02, 0x02, 0x08, 0x01} // envelope field 40
	if _, err := agui.DecodeEventProto(future); errors.Is(err, agui.ErrUnknownEventType) {
		fmt.Println("skipped:", err)
	}
	// Output:
	// TEXT_MESSAGE_CONTENT Hello
	// skipped: agui: unknown event type "protobuf envelope field 40"
}
