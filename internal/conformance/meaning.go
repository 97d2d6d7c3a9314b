package conformance

import (
	"fmt"
	"strings"
)

// ourWording maps each fatal fixture to what this SDK's refusal says for
// the same reason: the rule or check that fired and the id or member
// involved. The fixture's errorContains is the TypeScript client's
// sentence; the corpus asks for the reason, not the text. A fatal fixture
// missing here fails, so a new one cannot pass unread.
var ourWording = map[string][]string{
	"chunk-conflicting-role-fatal":            {"restates role", "chunk-role-m1"},
	"chunk-conflicting-tool-name-fatal":       {"restates toolCallName", "chunk-tool-name-tc1"},
	"content-without-start-fatal":             {"not-open", `"orphan-content-m1"`},
	"event-after-run-finished-fatal":          {"run-ended", "already finished with RUN_FINISHED"},
	"first-event-not-run-started-fatal":       {"not-started", "begins with RUN_STARTED"},
	"first-tool-chunk-missing-name-fatal":     {"TOOL_CALL_CHUNK", "without a toolCallName"},
	"malformed-known-field-fatal":             {"/delta", "expected string"},
	"nested-run-started-fatal":                {"duplicate-run-started", "while run"},
	"reasoning-discipline-verified":           {"not-open", `reasoning message "m-reasoning-discipline-1"`},
	"run-finished-with-active-subagent-fatal": {"open-at-finish", "s-run-finished-active-subagent-1"},
	"step-finished-without-start-fatal":       {"not-open", "step-finished-without-start-never-opened"},
	"subagent-finished-unstarted-fatal":       {"not-open", "s-subagent-finished-unstarted-1"},
	"subagent-started-missing-name-fatal":     {"SUBAGENT_STARTED", `missing required property "name"`},
	"unknown-outcome-array-fatal":             {"/outcome", "expected object, got array"},
}

// OurWording is an ErrorMeaning reading the refusal's text (Observed.ErrText,
// else Err) for this SDK's wording of the fixture's reason.
func OurWording(fixture, _ string, o *Observed) error {
	words, ok := ourWording[fixture]
	if !ok {
		return fmt.Errorf("no meaning recorded for fixture %q: add its wording to ourWording", fixture)
	}
	text := o.ErrText
	if text == "" && o.Err != nil {
		text = o.Err.Error()
	}
	for _, w := range words {
		if !strings.Contains(text, w) {
			return fmt.Errorf("the refusal does not say %q", w)
		}
	}
	return nil
}
