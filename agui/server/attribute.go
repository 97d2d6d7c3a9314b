package server

import "github.com/agui-go/sdk/agui"

// attribute gives ev the subagent attribution tag when ev can carry one and
// has none. Every event that may be tagged embeds agui.Attribution; the
// SUBAGENT_* events name their subagent in a required member of their own,
// and the run's lifecycle events and MESSAGES_SNAPSHOT are never attributed,
// so those do not implement agui.Attributable and are left alone.
func attribute(ev agui.Event, tag *string) {
	if a, ok := ev.(agui.Attributable); ok && a.Attributed().SubagentRunID == nil {
		a.Attributed().SubagentRunID = tag
	}
}
