package agui

import "errors"

// This file holds the package's encode entry points through the Event
// interface, one per binding; the per-type AppendJSON and AppendProto
// methods are generated.

// AppendEvent appends the JSON encoding of ev to dst; it is ev.AppendJSON
// with a nil check.
func AppendEvent(dst []byte, ev Event) ([]byte, error) {
	if ev == nil {
		return dst, &EncodeError{Type: "Event", Err: errMissing}
	}
	return ev.AppendJSON(dst)
}

// AppendEventProto appends the protobuf encoding of ev (one ag_ui.Event
// message, without the length prefix a stream puts before it) to dst.
func AppendEventProto(dst []byte, ev Event) ([]byte, error) {
	if ev == nil {
		return dst, errors.New("agui: cannot encode a nil event")
	}
	p, ok := ev.(interface{ AppendProto([]byte) ([]byte, error) })
	if !ok {
		return dst, &UnknownEventTypeError{Type: string(ev.Type())}
	}
	return p.AppendProto(dst)
}
