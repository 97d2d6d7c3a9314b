package agui_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
)

// TestEncryptedValueType holds the strict codec to what 1.1 added: the
// member is read and written wherever an encryptedValue travels, in JSON and
// protobuf, and anything but a string is refused.
func TestEncryptedValueType(t *testing.T) {
	valid := []string{
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c","encryptedValue":"e","encryptedValueType":"sig"}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","encryptedValue":"e","encryptedValueType":"t","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"encryptedValue":"e","encryptedValueType":"u"}]},{"id":"r","role":"reasoning","content":"x","encryptedValueType":""}]}`,
	}
	for _, doc := range valid {
		ev, err := agui.DecodeEvent([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		out, err := ev.AppendJSON(nil)
		if err != nil || string(out) != doc {
			t.Errorf("JSON round trip\n got %s (%v)\nwant %s", out, err, doc)
		}
		b, err := agui.AppendEventProto(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		back, err := agui.DecodeEventProto(b)
		if err != nil {
			t.Fatal(err)
		}
		if out, _ := back.AppendJSON(nil); strings.Count(string(out), "encryptedValueType") != strings.Count(doc, "encryptedValueType") {
			t.Errorf("protobuf round trip lost the member: %s", out)
		}
	}
	for _, bad := range []string{`42`, `null`, `["x"]`} {
		doc := `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"e","encryptedValueType":` + bad + `}`
		_, err := agui.DecodeEvent([]byte(doc))
		var de *agui.DecodeError
		if !errors.As(err, &de) || de.Path != "/encryptedValueType" {
			t.Errorf("encryptedValueType %s: %v, want a decode error at /encryptedValueType", bad, err)
		}
	}
}
