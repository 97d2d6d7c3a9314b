package client

import (
	"log/slog"
	"strconv"
)

// WarningKind classifies a Warning. Kinds are stable strings so that a
// program (or a test) can react to one class of repair without parsing the
// message.
type WarningKind string

const (
	// WarnDropped: an event of a type this client does not know was dropped.
	WarnDropped WarningKind = "dropped-event"
	// WarnStripped: lenient decoding removed an unrecognised member, union
	// member or list element, or read a legacy null as absent.
	WarnStripped WarningKind = "stripped"
	// WarnLegacy: the compatibility boundary translated a retired shape
	// (THINKING_* events, binary content parts) into its 1.0 replacement.
	WarnLegacy WarningKind = "legacy"
	// WarnEra: an era shim for an older peer (maxProtocolVersion) lost
	// material that peer cannot carry.
	WarnEra WarningKind = "era"
	// WarnVersion: the producer declared a protocol version this client
	// does not speak.
	WarnVersion WarningKind = "version"
	// WarnFraming: the SSE framing works here but not everywhere: lines
	// ending in CR or CRLF, which the reference client cannot read.
	WarnFraming WarningKind = "framing"
	// WarnReducer: the conversation could not apply an event as sent (an
	// unappliable state patch, a delta for a missing message, …).
	WarnReducer WarningKind = "reducer"
)

// Warning is one thing the client repaired, dropped or could not apply
// without failing the run. The reference client prints these to the
// console; here they are values, so a program can count, show or assert
// them.
type Warning struct {
	Kind WarningKind
	// Index is the 0-based position of the SSE frame the warning is about,
	// counting every frame of the response (dropped ones included); -1 for
	// a warning about the outgoing input.
	Index   int
	Message string
}

// String formats the warning as "frame 3: [stripped] at /futureProp: …".
func (w Warning) String() string {
	where := "input"
	if w.Index >= 0 {
		where = "frame " + strconv.Itoa(w.Index)
	}
	return where + ": [" + string(w.Kind) + "] " + w.Message
}

// LogWarnings returns a warning handler that logs each warning to l at
// level Warn, for programs that only want them in their logs.
func LogWarnings(l *slog.Logger) func(Warning) {
	return func(w Warning) {
		l.Warn("agui client: "+w.Message, "kind", string(w.Kind), "index", w.Index)
	}
}
