// Package fix is where the suggested fix inserts missing cases: before a
// default clause, with the file's own import name, once per enum value,
// with literals for unexported members of another package and no case for
// an unexported variant there.
package fix

import (
	"fmt"

	ev "example.com/events"
	"example.com/fixlocal"
)

func describe(e ev.Event) string {
	switch e := e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError$`
	case *ev.TextMessageStart:
		return "start"
	case *ev.TextMessageContent:
		return e.Delta
	case ev.Custom:
		return e.Name
	default:
		return fmt.Sprint(e)
	}
}

// every misses all seven members (six values): the diagnostic names five
// and counts the rest, the fix inserts six cases.
func every(t ev.EventType) {
	switch t { // want `^missing cases in switch of type events\.EventType: events\.EventTypeTextMessageStart, events\.EventTypeTextMessageContent, events\.EventTypeTextMessageEnd, events\.EventTypeToolCallArgs, events\.EventTypeRunError and 2 more$`
	}
}

func level(l fixlocal.Level) {
	switch l { // want `^missing cases in switch of type fixlocal\.Level: fixlocal\.LevelHigh, fixlocal\.levelSecret$`
	case fixlocal.LevelLow:
	}
}

func shape(s fixlocal.Shape) {
	if s != nil {
		switch s.(type) { // want `^missing cases in switch of type fixlocal\.Shape: \*fixlocal\.Circle, fixlocal\.Square, \*fixlocal\.hidden$`
		}
	}
}
