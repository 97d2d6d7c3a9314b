package agui

import "fmt"

// Example_duplicateMembers shows that the last of two members wins (the
// decoder's verdicts on duplicate members, held to the schema's, are
// TestDuplicateMembers in gen/internal/generator, which has a validator).
func Example_duplicateMembers() {
	ev, err := DecodeEvent([]byte(`{"type":"TEXT_MESSAGE_END","messageId":null,"messageId":"m"}`))
	fmt.Println(ev.(*TextMessageEnd).MessageID, err)
	// Output: m <nil>
}
