package events

// EventType names an event on the wire.
//
//agui:enum
type EventType string // want EventType:`^enum\(EventTypeTextMessageStart, EventTypeTextMessageContent, EventTypeTextMessageEnd, EventTypeToolCallArgs, EventTypeRunError, EventTypeCustom, EventTypeTextMessageBegin\)$`

const (
	EventTypeTextMessageStart   EventType = "TEXT_MESSAGE_START"
	EventTypeTextMessageContent EventType = "TEXT_MESSAGE_CONTENT"
	EventTypeTextMessageEnd               = EventType("TEXT_MESSAGE_END")
	EventTypeToolCallArgs       EventType = "TOOL_CALL_ARGS"
	EventTypeRunError           EventType = "RUN_ERROR"
	EventTypeCustom             EventType = "CUSTOM"

	// EventTypeTextMessageBegin is an old spelling of
	// EventTypeTextMessageStart; a case for either value covers both.
	EventTypeTextMessageBegin = EventTypeTextMessageStart
)

// Untyped, or of another type: not members.
const (
	raw       = "RAW"
	rawString = string(EventTypeCustom)
	otherRole = Other(2)
)

type (
	// Role is a chat role; the directive is on a spec inside a group.
	//
	//agui:enum
	Role int // want Role:`^enum\(RoleUser, RoleAssistant, RoleTool\)$`

	Other int
)

const (
	RoleUser Role = iota
	RoleAssistant
	RoleTool
	_
)

// Status is not an enum: it has no directive.
type Status string

const (
	StatusOK   Status = "ok"
	StatusFail Status = "fail"
)

func (t EventType) text() bool {
	switch t { // want `^missing cases in switch of type events\.EventType: events\.EventTypeToolCallArgs, events\.EventTypeRunError, events\.EventTypeCustom$`
	case EventTypeTextMessageStart, EventTypeTextMessageContent, EventTypeTextMessageEnd:
		return true
	}
	return false
}
