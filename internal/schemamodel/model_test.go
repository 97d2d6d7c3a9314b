package schemamodel

import (
	"slices"
	"testing"
)

const schemaPath = "../../schema/events.json"

// TestModel pins facts of the resolved model that every consumer relies on.
func TestModel(t *testing.T) {
	t.Parallel()
	m, err := Load(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Events) != 31 {
		t.Fatalf("%d events, want 31", len(m.Events))
	}
	if m.Events[0].Event.Wire != "TEXT_MESSAGE_START" || m.Events[30].Event.Wire != "SUBAGENT_ERROR" {
		t.Errorf("events out of protocol order: %s … %s", m.Events[0].Event.Wire, m.Events[30].Event.Wire)
	}
	var rules []string
	for _, r := range m.Rules {
		rules = append(rules, r.ID)
	}
	want := []string{"run-ended", "duplicate-run-started", "duplicate-start", "not-open", "unknown-id", "out-of-order", "open-at-finish", "owner-mismatch", "not-started"}
	if !slices.Equal(rules, want) {
		t.Errorf("rules %v, want %v", rules, want)
	}
	unions := map[string]int{}
	for _, u := range m.Unions {
		unions[u.GoName] = len(u.Variants)
	}
	for name, n := range map[string]int{"Event": 31, "Message": 7, "ContentPart": 5, "PartSource": 3, "RunFinishedOutcome": 3, "SubagentFinishedOutcome": 2, "JSONPatchOperation": 6} {
		if unions[name] != n {
			t.Errorf("union %s has %d variants, want %d", name, unions[name], n)
		}
	}
}
