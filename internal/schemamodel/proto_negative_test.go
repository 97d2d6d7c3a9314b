package schemamodel

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestProtoAnnotationErrors breaks the protobuf annotations of the real
// schema one way at a time: each broken schema must fail to load with a
// *SchemaError naming the offending node.
func TestProtoAnnotationErrors(t *testing.T) {
	t.Parallel()
	base, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, old, new, pointer, msg string
	}{
		{
			name: "unknown well-known type", old: `"x-agui-proto-json": "Value"`, new: `"x-agui-proto-json": "Any"`,
			pointer: "/$defs/Interrupt/properties/responseSchema/x-agui-proto-json", msg: `x-agui-proto-json must be "Value" or "Struct"`,
		},
		{
			name: "parts carrier not a number", old: `"x-agui-proto-parts": 8`, new: `"x-agui-proto-parts": 0`,
			pointer: "/$defs/UserMessage/properties/content/x-agui-proto-parts", msg: "x-agui-proto-parts must be a positive integer",
		},
		{
			name: "optional not a boolean", old: `"x-agui-proto-optional": true`, new: `"x-agui-proto-optional": 1`,
			pointer: "/$defs/ToolCallResultEvent/properties/content/x-agui-proto-optional", msg: "x-agui-proto-optional must be a boolean",
		},
		{
			name: "two members on one number", old: `"x-agui-proto-field": 12,`, new: `"x-agui-proto-field": 1,`,
			pointer: "/$defs/ActivityMessage", msg: "protobuf field 1 is used by both",
		},
		{
			name: "one number, two members of a shared message", old: `"x-agui-proto-field": 12,`, new: `"x-agui-proto-field": 4,`,
			pointer: "/$defs/ActivityMessage", msg: "protobuf field 4 of the shared Message message is name in one variant and activityType in ActivityMessage",
		},
		{
			name: "member without a number", old: `"x-agui-proto-field": 12,`, new: ``,
			pointer: "/$defs/ActivityMessage/properties/activityType", msg: "member ActivityMessage.activityType has no x-agui-proto-field",
		},
		{
			name: "unknown variant annotation", old: `"x-agui-proto": {
        "enum": 0
      }`, new: `"x-agui-proto": {
        "enmu": 0
      }`,
			pointer: "/$defs/AddOperation/x-agui-proto/enmu", msg: `unknown x-agui-proto member "enmu"`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := string(base)
			i := strings.Index(src, tt.old)
			if i < 0 {
				t.Fatalf("%q not in the schema", tt.old)
			}
			broken := src[:i] + tt.new + src[i+len(tt.old):]
			_, err := LoadBytes("events.json", []byte(broken))
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("want a *SchemaError, got %v", err)
			}
			if se.Pointer != tt.pointer || !strings.Contains(se.Msg, tt.msg) {
				t.Fatalf("got  %s: %s\nwant %s: …%s…", se.Pointer, se.Msg, tt.pointer, tt.msg)
			}
		})
	}
}
