package events

// The variants, declared out of alphabetical order so that diagnostics show
// declaration order.

type TextMessageStart struct{}

func (*TextMessageStart) Type() EventType { return EventTypeTextMessageStart }
func (*TextMessageStart) isEvent()        {}

type TextMessageContent struct{ Delta string }

func (*TextMessageContent) Type() EventType { return EventTypeTextMessageContent }
func (*TextMessageContent) isEvent()        {}

type (
	TextMessageEnd struct{}
	ToolCallArgs   struct{}
)

func (*TextMessageEnd) Type() EventType { return EventTypeTextMessageEnd }
func (*TextMessageEnd) isEvent()        {}
func (*ToolCallArgs) Type() EventType   { return EventTypeToolCallArgs }
func (*ToolCallArgs) isEvent()          {}

type RunError struct{ Message string }

func (*RunError) Type() EventType { return EventTypeRunError }
func (*RunError) isEvent()        {}

// Custom implements Event with value receivers, so Custom itself is the
// variant (and *Custom implements Event too).
type Custom struct{ Name string }

func (Custom) Type() EventType { return EventTypeCustom }
func (Custom) isEvent()        {}

// Start is an alias, not another variant.
type Start = TextMessageStart

// TextEvent is implemented by some variants; it is not a variant itself.
type TextEvent interface {
	Event
	isText()
}

func (*TextMessageStart) isText()   {}
func (*TextMessageContent) isText() {}
func (*TextMessageEnd) isText()     {}

// Sink has no directive: switches over it are never checked.
type Sink interface{ Put(Event) }

type discard struct{}

func (discard) Put(Event) {}

type bufferSink struct{ buf []Event }

func (s *bufferSink) Put(e Event) { s.buf = append(s.buf, e) }

// notAVariant has no methods.
type notAVariant struct{}

// kind is hand-written code in the declaring package: it is checked.
func kind(e Event) string {
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
	case *TextMessageStart, *TextMessageContent, *TextMessageEnd:
		return "text"
	}
	return ""
}
