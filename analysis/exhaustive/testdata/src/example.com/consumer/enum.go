package consumer

import (
	"fmt"

	"example.com/events"
)

func enumExhaustive(e events.Event) {
	switch e.Type() {
	case events.EventTypeTextMessageStart, events.EventTypeTextMessageContent, events.EventTypeTextMessageEnd:
	case events.EventTypeToolCallArgs, events.EventTypeRunError:
	case (events.EventTypeCustom):
	}
}

func enumMissing(e events.Event) {
	switch e.Type() { // want `^missing cases in switch of type events\.EventType: events\.EventTypeToolCallArgs, events\.EventTypeRunError$`
	case events.EventTypeTextMessageBegin: // same value as EventTypeTextMessageStart
	case events.EventTypeTextMessageContent, events.EventTypeTextMessageEnd, events.EventTypeCustom:
	}
}

func enumMissingSharedValue(t events.EventType) {
	switch t { // want `^missing cases in switch of type events\.EventType: events\.EventTypeTextMessageStart, events\.EventTypeTextMessageBegin$`
	case events.EventTypeTextMessageContent, events.EventTypeTextMessageEnd:
	case events.EventTypeToolCallArgs, events.EventTypeRunError, events.EventTypeCustom:
	}
}

const start = events.EventTypeTextMessageStart

func enumByValue(e events.Event) {
	switch t := e.Type(); t {
	case start, "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END":
	case "TOOL_CALL_ARGS", "RUN_" + "ERROR", events.EventType("CUSTOM"):
	}
}

func enumByValueMissing(t events.EventType) {
	switch t { // want `^missing cases in switch of type events\.EventType: events\.EventTypeTextMessageContent, events\.EventTypeTextMessageEnd, events\.EventTypeRunError$`
	case "TEXT_MESSAGE_START", "TOOL_CALL_ARGS", "CUSTOM", "NOT_A_MEMBER":
	}
}

func enumDefaultPanics(t events.EventType) {
	switch t {
	case events.EventTypeRunError:
	default:
		panic(fmt.Sprint("unexpected ", t))
	}
}

func enumDefaultHides(t events.EventType) string {
	switch t { // want `^missing cases in switch of type events\.EventType: events\.EventTypeTextMessageStart, events\.EventTypeTextMessageContent, events\.EventTypeTextMessageEnd, events\.EventTypeToolCallArgs, events\.EventTypeCustom, events\.EventTypeTextMessageBegin$`
	case events.EventTypeRunError:
		return "error"
	default:
		return "other"
	}
}

func intEnum(r events.Role) {
	switch r { // want `^missing cases in switch of type events\.Role: events\.RoleTool$`
	case events.RoleUser, 1:
	}
	switch r {
	case 0, 1, 2:
	}
}

func notEnums(t events.EventType, s events.Status, n int) {
	switch {
	case t == events.EventTypeRunError:
	}
	switch string(t) {
	case "RUN_ERROR":
	}
	switch s {
	case events.StatusOK:
	}
	switch n {
	case 1:
	}
}
