// Package app is a consumer under an unrelated import path.
package app

import ev "example.com/events"

func Handle(e ev.Event) {
	switch e := e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageEnd, \*events\.ToolCallArgs, events\.Custom$`
	case *ev.TextMessageStart:
	case *ev.TextMessageContent:
		_ = e.Delta
	case *ev.RunError:
	}
}
