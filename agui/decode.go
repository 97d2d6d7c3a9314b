package agui

// This file holds the package's decode entry points: the strict package
// functions and the DecodeOptions that choose strictness.

// DecodeEvent decodes one event strictly. See the package documentation for
// what strict means.
func DecodeEvent(data []byte) (Event, error) {
	ev, _, err := decodeEvent(data, false)
	return ev, err
}

// DecodeEventLenient decodes one event the way a forgiving receiver does,
// returning the repairs it made. A malformed known member is still an error.
func DecodeEventLenient(data []byte) (Event, []DecodeWarning, error) {
	return decodeEvent(data, true)
}

func decodeEvent(data []byte, lenient bool) (Event, []DecodeWarning, error) {
	return decodeDocument(data, lenient, decodeEventUnion)
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

// DecodeRunAgentInput decodes a request body strictly. `state: null` reads as
// an absent state, a tolerance the protocol keeps permanently.
func DecodeRunAgentInput(data []byte) (*RunAgentInput, error) {
	in, _, err := decodeInput(data, false)
	return in, err
}

// DecodeRunAgentInputLenient decodes a request body forgivingly, returning the
// repairs it made.
func DecodeRunAgentInputLenient(data []byte) (*RunAgentInput, []DecodeWarning, error) {
	return decodeInput(data, true)
}

func decodeInput(data []byte, lenient bool) (*RunAgentInput, []DecodeWarning, error) {
	return decodeDocument(data, lenient, func(d *decoder) (*RunAgentInput, error) {
		in := new(RunAgentInput)
		return in, in.decodeJSON(d)
	})
}
