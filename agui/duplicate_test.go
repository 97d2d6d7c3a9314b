package agui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestDuplicateMembers checks that a member given twice is read as JSON.parse
// reads it, the last one winning whole, and that the decoder agrees with the
// schema validating that parse (the official schema accepts what the last
// occurrences make valid): earlier occurrences are not validated at all.
func TestDuplicateMembers(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	event, err := c.Compile("../schema/events.json#Event")
	if err != nil {
		t.Fatal(err)
	}
	hostile := `{"type":"TEXT_MESSAGE_END"` + strings.Repeat(`,"messageId":null`, 20000) + `,"messageId":"m"}`
	tests := []struct {
		name string
		in   string
		out  string // re-encoded; "" means rejected
	}{
		{"null then string", `{"type":"TEXT_MESSAGE_END","messageId":null,"messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`},
		{"string then null", `{"type":"TEXT_MESSAGE_END","messageId":"m","messageId":null}`, ""},
		{"two strings", `{"type":"TEXT_MESSAGE_END","messageId":"a","messageId":"b"}`, `{"type":"TEXT_MESSAGE_END","messageId":"b"}`},
		{"wrong type then right", `{"type":"RAW","type":"TEXT_MESSAGE_END","messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`},
		{"unknown type then known", `{"type":"NOPE","type":"TEXT_MESSAGE_END","messageId":"m"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`},
		{"known type then unknown", `{"type":"TEXT_MESSAGE_END","messageId":"m","type":"NOPE"}`, ""},
		{"nested union, last role wins", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user","role":"reasoning","content":"r"}]}`, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"reasoning","content":"r"}]}`},
		{"right type then wrong", `{"type":"TEXT_MESSAGE_END","messageId":"m","type":"RAW"}`, ""},
		{"bad optional then good", `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":1.5,"timestamp":7}`, `{"type":"TEXT_MESSAGE_END","timestamp":7,"messageId":"m"}`},
		{"good optional then bad", `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":7,"timestamp":"x"}`, ""},
		{"unknown member twice", `{"type":"TEXT_MESSAGE_END","messageId":"m","zz":1,"zz":2}`, ""},
		{"nested failure replaced", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":1},"function":{"name":"f","arguments":"{}"}}]}]}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`},
		{"nested object replaced whole", `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"function":{"name":"g"}}]}]}`, ""},
		{"syntax error is never forgiven", `{"type":"TEXT_MESSAGE_END","messageId":nul,"messageId":"m"}`, ""},
		{"many failing duplicates", hostile, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := DecodeEvent([]byte(tt.in))
			schemaOK := false
			if doc, err := jsonschemaUnmarshal([]byte(tt.in)); err == nil {
				schemaOK = event.Validate(doc) == nil
			}
			if tt.out == "" {
				if err == nil {
					t.Fatalf("accepted: %s", clip(tt.in))
				}
				if schemaOK {
					t.Errorf("the schema accepts what the decoder rejects (%v)", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !schemaOK {
				t.Errorf("the schema rejects what the decoder accepts")
			}
			got, err := ev.AppendJSON(nil)
			if err != nil || string(got) != tt.out {
				t.Errorf("re-encoded = %s, %v; want %s", got, err, tt.out)
			}
		})
	}
}

// Example_duplicateMembers shows that the last of two members wins.
func Example_duplicateMembers() {
	ev, err := DecodeEvent([]byte(`{"type":"TEXT_MESSAGE_END","messageId":null,"messageId":"m"}`))
	fmt.Println(ev.(*TextMessageEnd).MessageID, err)
	// Output: m <nil>
}
