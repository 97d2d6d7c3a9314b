package agui

import "sync"

// Decoders are pooled: a decoder carries its stacks inline (about half a
// kilobyte), and reusing one makes a decode cost only what it produces.
var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

func getDecoder(data []byte, lenient bool) *decoder {
	d := decoderPool.Get().(*decoder) // reset by putDecoder, or new
	d.begin(data, lenient)
	return d
}

// putDecoder returns d to the pool, reset. Decoders that grew large are
// left to the GC.
func putDecoder(d *decoder) {
	if cap(d.scratch) > 64<<10 || cap(d.path) > 64 {
		return
	}
	d.reset()
	decoderPool.Put(d)
}

// begin readies a reset (or zero) decoder for data.
func (d *decoder) begin(data []byte, lenient bool) {
	d.data, d.lenient = data, lenient
	d.starts = d.startsBuf[:0]
	d.path = d.pathBuf[:0]
}

// reset drops every reference to the input and to what was decoded,
// keeping the scratch buffer (emptied). It resets the fields one by one:
// assigning a whole zero decoder clears half a kilobyte, with a write
// barrier on every pointer while the GC marks, and that twice per document
// was a tenth of decoding a small event. TestDecoderResetsEverything keeps
// the list complete.
func (d *decoder) reset() {
	clear(d.pathBuf[:]) // popped keys stay behind len(d.path), and alias the input
	d.data, d.pos, d.lenient, d.mark = nil, 0, false, 0
	d.starts, d.path, d.warnings, d.objects, d.strs = nil, nil, nil, nil, nil
	d.scratch = d.scratch[:0]
}

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

// AppendEvent appends the JSON encoding of ev to dst; it is ev.AppendJSON
// with a nil check.
func AppendEvent(dst []byte, ev Event) ([]byte, error) {
	if ev == nil {
		return dst, &EncodeError{Type: "Event", Err: errMissing}
	}
	return ev.AppendJSON(dst)
}

// unmarshalStruct is the body of every generated UnmarshalJSON: a strict
// decode of one whole document into *v, which is reset first so no member of
// an earlier value survives.
func unmarshalStruct[T any, P interface {
	*T
	decodeJSON(*decoder) error
}](data []byte, v P) error {
	*v = *new(T)
	d := getDecoder(data, false)
	defer putDecoder(d)
	if err := v.decodeJSON(d); err != nil {
		return err
	}
	return d.end()
}

// unmarshalList is unmarshalStruct for named list types such as JSONPatch.
func unmarshalList[E any](data []byte, v *[]E, decode func(*decoder) ([]E, error)) error {
	d := getDecoder(data, false)
	defer putDecoder(d)
	list, err := decode(d)
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return err
	}
	*v = list
	return nil
}

// unmarshalEnum reads a whole document that must be a JSON string accepted by
// valid; allowed lists the defined values for the error message.
func unmarshalEnum(data []byte, allowed string, valid func(string) bool) (string, error) {
	d := getDecoder(data, false)
	defer putDecoder(d)
	s, err := d.str()
	if err == nil && !valid(s) {
		err = d.badEnum(s, allowed)
	}
	if err == nil {
		err = d.end()
	}
	return s, err
}
