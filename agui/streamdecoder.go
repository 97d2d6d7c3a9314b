package agui

// StreamDecoder decodes the events of one stream, in order, as
// Options.DecodeEvent does, and returns exactly what it returns. What it
// adds is memory of the short strings it decoded last: an identifier that
// comes back in event after event (the toolCallId of every TOOL_CALL_ARGS,
// the messageId of every delta, the threadId and runId of a run's events)
// is allocated once rather than once per event, which is one allocation of
// the two or three a typical streamed event costs. Strings are immutable,
// so sharing them changes nothing a caller can see.
//
// It also owns its decoder, where the package functions take one from a
// pool and give it back: a stream decodes one event at a time, so it does
// not need the pool's synchronisation.
//
// The zero value is ready to use, and strict, as the zero DecodeOptions is:
// one zero value means one thing throughout the package. A reader that
// forgives what older peers send (the client does) says so when it makes
// its decoder:
//
//	dec := agui.StreamDecoder{Options: agui.DecodeOptions{Lenient: true}}
//
// A StreamDecoder is for one stream and not safe for concurrent use;
// between calls it keeps no reference to any input, only up to 16 short
// strings it returned and a scratch buffer.
type StreamDecoder struct {
	// Options is read at every call, so it may change between events.
	Options DecodeOptions

	d    decoder
	strs stringCache
}

// DecodeEvent is Options.DecodeEvent, reusing the strings of earlier
// events of the stream.
func (s *StreamDecoder) DecodeEvent(data []byte) (Event, []DecodeWarning, error) {
	d := &s.d
	d.begin(data, s.Options.Lenient)
	d.strs = &s.strs
	defer s.done()
	return runDocument(d, decodeEventUnion)
}

// done resets the decoder after a document, letting go of a scratch buffer
// that one large document grew.
func (s *StreamDecoder) done() {
	if cap(s.d.scratch) > 64<<10 {
		s.d.scratch = nil
	}
	s.d.reset()
}

// stringCache maps the bytes of a short string to a string decoded before,
// direct-mapped: each string has one slot, chosen from its length and three
// of its bytes, and a newer string takes the slot of an older one. Long
// strings (message text, arguments) and escaped ones are rarely repeated
// and not kept.
type stringCache [16]string

// maxCached is the longest string a stringCache keeps: enough for the UUIDs
// and prefixed ids producers use.
const maxCached = 64

// get returns b as a string, the cached one when it holds the same bytes.
// A nil cache allocates every time, as a plain conversion does.
func (c *stringCache) get(b []byte) string {
	if c == nil || len(b) == 0 || len(b) > maxCached {
		return string(b)
	}
	n := len(b)
	slot := &c[(uint(n)*7+uint(b[0])*3+uint(b[n/2])*5+uint(b[n-1]))%uint(len(c))]
	if *slot == string(b) {
		return *slot
	}
	*slot = string(b)
	return *slot
}
