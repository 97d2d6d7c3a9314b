package natslog

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/nats-io/nats.go"
)

// A message of the log holds one event or, from a pipelined writer, several
// consecutive ones: the events that queued while the previous publish was
// on its way go out as one message (group commit). Nothing waits to fill a
// message, so packing adds no latency; it only spares JetStream a message,
// an acknowledgement and a header per event when the agent emits faster
// than the log takes them, which is where the time went (one event per
// message reached a third of raw asynchronous publishes at best).
//
// A message of one event carries it as its payload, as always. A packed
// message says how many it holds in hdrCount, and its payload is each event
// preceded by its length as a uvarint. hdrSeq is the number of its first
// event; its last is hdrSeq + hdrCount - 1 (see high). A terminal event is
// never packed.
const hdrCount = "Agui-Count"

// maxPack bounds a packed message's payload. An event longer than that
// goes alone, whatever its size.
const maxPack = 64 << 10

// countOf is how many events the message with header h holds.
func countOf(h nats.Header) uint64 {
	v := h.Get(hdrCount)
	if v == "" {
		return 1
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 {
		return 1
	}
	return n
}

// high is the number of the last event of the message with header h.
func high(h nats.Header) uint64 { return seqOf(h) + countOf(h) - 1 }

// pack adds data to the packed payload buf, whose events so far number n
// (the one event of a payload not yet packed, when n is 1). It reports
// false, changing nothing, when data does not fit within maxPack.
func pack(buf []byte, n int, data []byte) ([]byte, bool) {
	size := len(buf) + len(data) + 2*binary.MaxVarintLen32
	if size > maxPack {
		return buf, false
	}
	if n == 1 {
		out := make([]byte, 0, min(max(2*size, 1024), maxPack))
		out = binary.AppendUvarint(out, uint64(len(buf)))
		buf = append(out, buf...)
	}
	buf = binary.AppendUvarint(buf, uint64(len(data)))
	return append(buf, data...), true
}

// errBadPack is a packed payload that does not hold what its header says.
var errBadPack = errors.New("natslog: a packed message does not hold the events its header counts")

// unpack calls each for each of the n events of the packed payload data,
// in order, until each returns false; the slices it gets are data's.
func unpack(data []byte, n uint64, each func(i uint64, event []byte) bool) error {
	for i := range n {
		size, k := binary.Uvarint(data)
		if k <= 0 || size > uint64(len(data)-k) {
			return errBadPack
		}
		event := data[k : k+int(size)]
		data = data[k+int(size):]
		if !each(i, event) {
			return nil
		}
	}
	if len(data) != 0 {
		return errBadPack
	}
	return nil
}
