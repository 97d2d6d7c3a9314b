package schemamodel

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestNegative breaks the real schema one way at a time. Each broken schema
// must fail to load with a *SchemaError that names the line of the breakage
// and the JSON Pointer of the offending node.
func TestNegative(t *testing.T) {
	t.Parallel()
	base, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		old     string // first occurrence is replaced
		new     string
		pointer string
		msg     string
	}{
		{
			name: "unknown lifecycle action", old: `"action": "open"`, new: `"action": "opne"`,
			pointer: "/$defs/TextMessageStartEvent/x-agui-lifecycle/action", msg: `unknown lifecycle action "opne"`,
		},
		{
			name: "lifecycle id names no property", old: `"id": "messageId"`, new: `"id": "messageID"`,
			pointer: "/$defs/TextMessageStartEvent/x-agui-lifecycle/id", msg: `lifecycle id "messageID" is not a string property`,
		},
		{
			name: "unknown entity", old: `"entity": "toolCall"`, new: `"entity": "toolcall"`,
			pointer: "/$defs/ToolCallStartEvent/x-agui-lifecycle/entity", msg: `unknown entity kind "toolcall"`,
		},
		{
			name: "missing $ref target", old: `"$ref": "#/$defs/TokenUsage"`, new: `"$ref": "#/$defs/TokenUsag"`,
			pointer: "/$defs/RunFinishedEvent/properties/usage/items/$ref", msg: `$ref "#/$defs/TokenUsag" names no definition under $defs`,
		},
		{
			name: "unsupported keyword", old: `"minItems": 1`, new: `"minItems": 1, "uniqueItems": true`,
			pointer: "/$defs/RunFinishedInterruptOutcome/properties/interrupts/uniqueItems", msg: `unsupported keyword "uniqueItems"`,
		},
		{
			name: "bad attribution", old: `"x-agui-attribution": "tag"`, new: `"x-agui-attribution": "tagged"`,
			pointer: "/$defs/TextMessageStartEvent/x-agui-attribution", msg: `unknown attribution "tagged"`,
		},
		{
			name: "proto field not a number", old: `"x-agui-proto-field": 2`, new: `"x-agui-proto-field": "two"`,
			pointer: "/$defs/BaseEvent/properties/timestamp/x-agui-proto-field", msg: "x-agui-proto-field must be a positive integer",
		},
		{
			name: "http code status not an error status", old: `"status": 405`, new: `"status": 205`,
			pointer: "/x-agui-http-error-codes/0/status", msg: `member "status" must be an HTTP error status, an integer from 400 to 599`,
		},
		{
			name: "http code status missing", old: `"status": 405,`, new: ``,
			pointer: "/x-agui-http-error-codes/0", msg: `member "status" must be an HTTP error status, an integer from 400 to 599`,
		},
		{
			name: "event missing from the enum", old: `"TEXT_MESSAGE_END",`, new: ``,
			pointer: "/$defs/TextMessageEndEvent", msg: `event type "TEXT_MESSAGE_END" is missing from the EventType enum`,
		},
	}
	for _, tt := range tests {
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
			if se.File != "events.json" || se.Line < 1 || se.Col < 1 {
				t.Fatalf("no position: %v", se)
			}
			if tt.new != "" {
				if line := 1 + strings.Count(broken[:i], "\n"); se.Line != line {
					t.Errorf("error on line %d, the breakage is on line %d: %v", se.Line, line, se)
				}
			}
		})
	}
}
