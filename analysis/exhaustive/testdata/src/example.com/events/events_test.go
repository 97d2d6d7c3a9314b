package events

// fakeEvent and EventTypeFake are declared in a test file, so they are not
// part of the sets that the package's other code must handle.

type fakeEvent struct{}

func (*fakeEvent) Type() EventType { return EventTypeFake }
func (*fakeEvent) isEvent()        {}

const EventTypeFake EventType = "FAKE"

func handled(e Event) bool {
	switch e.(type) {
	case *TextMessageStart, *TextMessageContent, *TextMessageEnd, *ToolCallArgs, *RunError, Custom:
		return true
	}
	return false
}

func handledType(t EventType) bool {
	switch t {
	case EventTypeTextMessageStart, EventTypeTextMessageContent, EventTypeTextMessageEnd,
		EventTypeToolCallArgs, EventTypeRunError, EventTypeCustom:
		return true
	}
	return false
}
