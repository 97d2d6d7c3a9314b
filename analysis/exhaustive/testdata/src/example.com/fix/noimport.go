package fix

import "example.com/fixsource"

func next() int {
	switch fixsource.Next().(type) { // want `^missing cases in switch of type events\.Event: \*events\.TextMessageStart, \*events\.TextMessageContent, \*events\.TextMessageEnd, \*events\.ToolCallArgs, \*events\.RunError, events\.Custom$`
	case nil:
		return 0
	}
	return 1
}
