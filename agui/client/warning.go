package client

import (
	"log/slog"

	"github.com/agui-go/sdk/agui"
)

// The kinds of warning only the client gives. It gives the kinds of any
// stream reader too (agui.WarnStripped, agui.WarnDropped, agui.WarnFraming)
// and passes the reducer's on with their own kinds (conversation's
// MissingMessage and the rest) when it keeps a conversation.
const (
	// WarnLegacy: the compatibility boundary translated a retired shape
	// (THINKING_* events, binary content parts) into its 1.0 replacement.
	WarnLegacy agui.WarningKind = "legacy"
	// WarnEra: an era shim for an older peer (maxProtocolVersion) lost
	// material that peer cannot carry.
	WarnEra agui.WarningKind = "era"
	// WarnVersion: the producer declared a protocol version this client
	// does not speak.
	WarnVersion agui.WarningKind = "version"
)

// LogWarnings returns a warning handler that logs each warning to l at
// level Warn, for programs that only want them in their logs.
func LogWarnings(l *slog.Logger) func(agui.Warning) {
	return func(w agui.Warning) {
		l.Warn("agui client: "+w.Message, "kind", string(w.Kind), "index", w.Index)
	}
}
