package agui

// This file holds the package's decode entry points: the strict package
// functions, and DecodeOptions, whose methods decode with the strictness it
// chooses.

// DecodeEvent decodes one event strictly. See the package documentation for
// what strict means. It is DecodeOptions{}.DecodeEvent without the warnings,
// which a strict decode never has.
func DecodeEvent(data []byte) (Event, error) {
	ev, _, err := decodeEvent(data, false)
	return ev, err
}

// DecodeEventProto decodes one ag_ui.Event message (without its length
// prefix) strictly. An envelope carrying only an arm this SDK does not know
// is an *UnknownEventTypeError, which matches ErrUnknownEventType; any
// other failure is a *DecodeError.
func DecodeEventProto(b []byte) (Event, error) {
	ev, _, err := decodeEventProto(b, false)
	return ev, err
}

// DecodeRunAgentInput decodes a request body strictly. `state: null` reads as
// an absent state, a tolerance the protocol keeps permanently.
func DecodeRunAgentInput(data []byte) (*RunAgentInput, error) {
	in, _, err := decodeInput(data, false)
	return in, err
}

// DecodeOptions chooses how strictly a document is decoded. The zero value
// is strict, so DecodeOptions{}.DecodeEvent(b) decodes as DecodeEvent(b)
// does; the package functions are the shorthand for it, as proto.Unmarshal
// is for proto.UnmarshalOptions{}.Unmarshal in protobuf-go.
//
// Strictness is an option rather than a second function per decoder because
// it is a choice a program often makes once, at run time (a flag, a server
// setting), and then applies to every decode: it keeps one DecodeOptions and
// calls its methods, which are named and shaped alike, instead of branching
// between twins at each call. A [StreamDecoder] takes the same options.
type DecodeOptions struct {
	// Lenient decodes the way the reference client's forgiving receiver
	// does: unknown members and unrecognised union members are removed,
	// legacy nulls read as absent, and each repair is reported as a
	// [DecodeWarning]. A malformed known member is an error either way, and
	// so is an unknown event type ([*UnknownEventTypeError]). False, the
	// zero value, rejects everything the schema rejects.
	Lenient bool
}

// DecodeEvent decodes one JSON event, returning the repairs a lenient
// decode made (none when strict).
func (o DecodeOptions) DecodeEvent(data []byte) (Event, []DecodeWarning, error) {
	return decodeEvent(data, o.Lenient)
}

// DecodeEventProto decodes one ag_ui.Event message (without its length
// prefix), returning the repairs a lenient decode made (none when strict).
// The message is read into the event's JSON form and that is decoded, so the
// options apply as they do to DecodeEvent.
func (o DecodeOptions) DecodeEventProto(b []byte) (Event, []DecodeWarning, error) {
	return decodeEventProto(b, o.Lenient)
}

// DecodeRunAgentInput decodes a request body, returning the repairs a
// lenient decode made (none when strict).
func (o DecodeOptions) DecodeRunAgentInput(data []byte) (*RunAgentInput, []DecodeWarning, error) {
	return decodeInput(data, o.Lenient)
}

func decodeEvent(data []byte, lenient bool) (Event, []DecodeWarning, error) {
	return decodeDocument(data, lenient, decodeEventUnion)
}

func decodeEventProto(b []byte, lenient bool) (Event, []DecodeWarning, error) {
	t := getProtoReader()
	defer putProtoReader(t)
	var err error
	if t.out, err = t.event(t.out[:0], b); err != nil {
		return nil, nil, err
	}
	// The JSON decoder copies what it keeps, so the buffer can be reused.
	return decodeEvent(t.out, lenient)
}

func decodeInput(data []byte, lenient bool) (*RunAgentInput, []DecodeWarning, error) {
	return decodeDocument(data, lenient, func(d *decoder) (*RunAgentInput, error) {
		in := new(RunAgentInput)
		return in, in.decodeJSON(d)
	})
}

// decodeDocument decodes one whole document with a pooled decoder.
func decodeDocument[T any](data []byte, lenient bool, decode func(*decoder) (T, error)) (T, []DecodeWarning, error) {
	d := getDecoder(data, lenient)
	defer putDecoder(d)
	return runDocument(d, decode)
}

// runDocument reads the value decode reads at d's cursor, then nothing but
// whitespace.
func runDocument[T any](d *decoder, decode func(*decoder) (T, error)) (T, []DecodeWarning, error) {
	v, err := decode(d)
	if err == nil {
		err = d.end()
	}
	if err != nil {
		if err == errDropped {
			err = d.fail("the document lost a required member it cannot do without")
		}
		var zero T
		return zero, d.Warnings(), err
	}
	return v, d.Warnings(), nil
}
