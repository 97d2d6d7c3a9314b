package consumer

import (
	"fmt"

	"example.com/events"
)

func exhaustive(e events.Event) string {
	switch x := e.(type) {
	case *events.TextMessageStart, *events.TextMessageContent:
		return fmt.Sprint(x)
	case *events.TextMessageEnd:
	case *events.ToolCallArgs:
	case *events.RunError:
	case events.Custom:
	}
	return ""
}

func exhaustiveWithoutBinding(e events.Event) {
	switch e.(type) {
	case *events.Start: // an alias of *events.TextMessageStart
	case *events.TextMessageContent, *events.TextMessageEnd, *events.ToolCallArgs, *events.RunError:
	case *events.Custom: // *T also counts for a value variant T
	}
}

func missing(e events.Event) {
	switch x := e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.ToolCallArgs, \*events\.RunError$`
	case *events.TextMessageStart, *events.TextMessageContent, *events.TextMessageEnd:
		_ = x
	case events.Custom:
	}
}

func nilCountsNothing(e events.Event) {
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageContent, \*events\.ToolCallArgs, events\.Custom$`
	case nil:
	case *events.TextMessageStart, *events.TextMessageEnd:
	case *events.RunError:
	}
}

func interfaceCaseCountsNothing(e events.Event) {
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageStart, \*events\.TextMessageContent, \*events\.TextMessageEnd$`
	case events.TextEvent:
	case *events.ToolCallArgs, *events.RunError, events.Custom:
	case events.Event:
	}
}

func defaultOnlyPanics(e events.Event) {
	switch e := e.(type) {
	case *events.TextMessageStart:
	default:
		panic(fmt.Sprintf("unexpected event %T", e))
	}
}

func defaultHides(e events.Event) error {
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
	case *events.TextMessageStart, *events.TextMessageContent:
		return nil
	default:
		return fmt.Errorf("unexpected event %T", e)
	}
}

func defaultDoesMoreThanPanic(e events.Event) {
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
	case *events.TextMessageStart, *events.TextMessageContent:
	default:
		fmt.Println("unexpected")
		panic("unexpected")
	}
}

func shadowedPanic(e events.Event) {
	panic := func(string) {}
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
	case *events.TextMessageStart, *events.TextMessageContent:
	default:
		panic("not the builtin")
	}
}

// E is a local alias; the subject's type is still events.Event.
type E = events.Event

func aliasSubject(e E) {
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageContent, \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
	case *events.TextMessageStart:
	}
}

func nested(es []events.Event) {
	for _, e := range es {
		func() {
			switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.RunError$`
			case *events.TextMessageStart, *events.TextMessageContent, *events.TextMessageEnd, *events.ToolCallArgs, events.Custom:
				switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageContent, \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
				case *events.TextMessageStart:
				}
			}
		}()
	}
}

func notSealed(s events.Sink) {
	switch s.(type) {
	case nil:
	}
}

func emptyInterface(v any) {
	switch v.(type) {
	case *events.TextMessageStart:
	}
}
