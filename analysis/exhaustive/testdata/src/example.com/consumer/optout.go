package consumer

import "example.com/events"

func optOutAbove(e events.Event) {
	//agui:nonexhaustive
	switch e.(type) {
	case *events.TextMessageStart:
	}
}

func optOutEndOfLine(e events.Event) {
	switch e.(type) { //agui:nonexhaustive only starts matter
	case *events.TextMessageStart:
	}
}

func optOutLabel(e events.Event) {
	//agui:nonexhaustive
loop:
	for {
		//agui:nonexhaustive
	inner:
		switch e.(type) {
		case *events.TextMessageStart:
			break loop
		default:
			break inner
		}
	}
}

func optOutEnum(t events.EventType) {
	// Comments may precede the directive.
	//agui:nonexhaustive
	switch t {
	case events.EventTypeRunError:
	}
}

func optOutTooFarAbove(e events.Event) {
	//agui:nonexhaustive

	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageContent, \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
	case *events.TextMessageStart:
	}
}

func optOutMisspelled(e events.Event) {
	//agui:nonexhaustively
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageContent, \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
	case *events.TextMessageStart:
	}
}

func optOutWithSpace(e events.Event) {
	// agui:nonexhaustive is not a directive: directives have no space.
	switch e.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageContent, \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
	case *events.TextMessageStart:
	}
}

func optOutOnlyItsOwnSwitch(a, b events.Event) {
	switch a.(type) { //agui:nonexhaustive
	case *events.TextMessageStart:
		switch b.(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageContent, \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
		case *events.TextMessageStart:
		}
	}
}
