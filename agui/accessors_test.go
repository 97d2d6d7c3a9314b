package agui

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agui-go/sdk/internal/schemamodel"
)

// TestUnionAccessors checks, for every schema sample that decodes to a union
// variant, that the accessors every variant shares report what the wire
// says, so consumers can rely on them instead of a type switch.
func TestUnionAccessors(t *testing.T) {
	m, err := schemamodel.Load("../schema/events.json")
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]int{}
	for _, def := range schemamodel.Definitions(m) {
		sample, err := schemamodel.Sample(m, def)
		if err != nil {
			t.Fatal(err)
		}
		v, err := decodeDefinition(def, newDecoder(sample, false))
		if err != nil {
			t.Fatalf("%s: %v", def, err)
		}
		var wire map[string]any
		if err := json.Unmarshal(sample, &wire); err != nil {
			t.Fatal(err)
		}
		check := func(union, member string, got any) {
			t.Helper()
			checked[union]++
			if want := wire[member]; got != want {
				t.Errorf("%s as %s: accessor for %q = %v, want %v", def, union, member, got, want)
			}
		}
		switch v := v.(type) {
		case Message:
			check("Message", "role", string(v.Role()))
			check("Message", "id", v.MessageID())
		case ContentPart:
			check("ContentPart", "type", v.Type())
		case PartSource:
			check("PartSource", "type", v.Type())
		case RunFinishedOutcome:
			check("RunFinishedOutcome", "type", v.Type())
		case SubagentFinishedOutcome:
			check("SubagentFinishedOutcome", "type", v.Type())
		case JSONPatchOperation:
			check("JSONPatchOperation", "op", v.Op())
		}
	}
	for _, u := range []string{"Message", "ContentPart", "PartSource", "RunFinishedOutcome", "SubagentFinishedOutcome", "JSONPatchOperation"} {
		if checked[u] == 0 {
			t.Errorf("no sample of %s was checked", u)
		}
	}
}

// ExampleMessage shows reading what every message shares without a type
// switch.
func ExampleMessage() {
	msgs := []Message{
		&UserMessage{ID: "u1", Content: TextContent("hi")},
		&AssistantMessage{ID: "a1", Content: new("hello")},
	}
	for _, m := range msgs {
		fmt.Println(m.MessageID(), m.Role())
	}
	// Output:
	// u1 user
	// a1 assistant
}

// TestAttributable checks that exactly the events the schema marks as tagged
// (x-agui-attribution "tag") can be tagged through Attributable, and that the
// tag set through it is the one the codec writes.
func TestAttributable(t *testing.T) {
	m, err := schemamodel.Load("../schema/events.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Events {
		sample, err := schemamodel.Sample(m, s.Name)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := DecodeEvent(sample)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		a, ok := ev.(Attributable)
		if want := s.Event.Attribution == schemamodel.AttributionTag; ok != want {
			t.Errorf("%s: Attributable = %v, want %v", s.Name, ok, want)
		}
		if !ok {
			continue
		}
		a.Attributed().SubagentRunID = new("tag-1")
		out, err := ev.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		var wire map[string]any
		if err := json.Unmarshal(out, &wire); err != nil {
			t.Fatal(err)
		}
		if wire["subagentRunId"] != "tag-1" {
			t.Errorf("%s: subagentRunId set through Attributed is %v on the wire", s.Name, wire["subagentRunId"])
		}
	}
	var msg Message = &UserMessage{ID: "u"}
	if _, ok := msg.(Attributable); !ok {
		t.Error("messages compose the Attributable mixin but are not Attributable")
	}
}
