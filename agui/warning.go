package agui

import "strconv"

// WarningKind classifies a [Warning]: a stable kebab-case string, so that a
// program or a test can react to one class of finding without parsing the
// message. The set is open. The kinds any reader of a stream meets are
// declared here; the packages with findings of their own declare theirs
// (client: the compatibility boundary, era shims and version checks;
// conversation: what the reducer cannot apply).
type WarningKind string

const (
	// WarnStripped: lenient decoding removed an unrecognised member, union
	// member or list element, or read a legacy null as absent. The message
	// holds the [DecodeWarning] it comes from, JSON Pointer included.
	WarnStripped WarningKind = "stripped"
	// WarnDropped: a frame held an event of a type this SDK does not know,
	// and the event was dropped.
	WarnDropped WarningKind = "dropped-event"
	// WarnFraming: the stream's SSE framing is read here but not by every
	// peer: lines ending in CR or CRLF, which the reference client cannot
	// split.
	WarnFraming WarningKind = "framing"
)

// Warning is a finding about a stream that does not fail it: something a
// reader repaired, dropped or could not apply, and went on past. The client,
// the reducer (conversation.Apply) and the stream checker (verify) all report
// their findings as Warnings, so that one handler, printer or test assertion
// serves each of them.
//
// A Warning is a value, not a log line, because a program that shows a
// repaired stream, or a test that asserts one, needs the kind and the place
// as well as the text.
type Warning struct {
	Kind WarningKind
	// Index is the 0-based position of the frame the warning is about,
	// counting every frame of the stream (dropped ones included). It is -1
	// when the warning is about no frame (the input a client sends) or when
	// its maker does not know the frame: conversation.Apply is given an
	// event, not its place, and the client fills the index in.
	Index int
	// Offset is the byte offset in the input at which that frame starts,
	// when the reader keeps track of it (verify.CheckStreamAt); -1
	// otherwise.
	Offset int64
	// Message says what was found, for people. Where the reference client
	// warns about the same thing, it is the reference's text.
	Message string
}

// String formats the warning as
// "frame 3: [stripped] at /futureProp: removed unrecognised member on RUN_STARTED",
// or without the "frame 3: " when Index is -1.
func (w Warning) String() string {
	s := "[" + string(w.Kind) + "] " + w.Message
	if w.Index >= 0 {
		s = "frame " + strconv.Itoa(w.Index) + ": " + s
	}
	return s
}

// DecodeWarning describes one repair made by a lenient decode: something the
// document contained that strict decoding would have rejected and that was
// dropped or normalised instead.
//
// It is not a [Warning]: it is about one document, located by a JSON
// Pointer inside it, and is made before the document has a place in any
// stream. A reader of a stream (the client, verify) turns each one into a
// [WarnStripped] Warning that carries the frame's position.
type DecodeWarning struct {
	Path    string // JSON Pointer of the repaired value ("" = the document itself)
	Message string // lower-case, e.g. "removed unrecognised member"
}

// String formats the warning as "at /messages/0/foo: removed unrecognised member".
func (w DecodeWarning) String() string {
	if w.Path == "" {
		return "at the document root: " + w.Message
	}
	return "at " + w.Path + ": " + w.Message
}
