package app_test

import (
	"testing"

	"example.com/events"
)

func TestHandle(t *testing.T) {
	var e events.Event = &events.RunError{}
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageStart, \*events\.TextMessageContent, \*events\.TextMessageEnd, \*events\.ToolCallArgs, events\.Custom$`
	case *events.RunError:
	}
}
