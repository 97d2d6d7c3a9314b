package cli

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
)

// protoDocs reads a protobuf stream (application/vnd.ag-ui.event+proto:
// length-prefixed ag_ui.Event messages) as one JSON document per frame, the
// form @ag-ui/proto's decode() gives, so the verifier decodes and judges it
// exactly as it judges SSE. A frame holding only an event type this build
// does not know becomes a document with a type naming its field number,
// which the client profile drops with a warning and the server profile
// rejects, as they treat an unknown type on SSE. Frames are read one at a
// time under the reader's frame limit.
//
// *at is kept as eventStream.at says: the offset of the frame's length
// prefix (4 bytes, big-endian).
func protoDocs(r io.Reader, at *int64) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		n := 0
		var doc []byte
		next := int64(0)
		for msg, err := range protoframe.Frames(r) {
			*at = next
			next += 4 + int64(len(msg))
			if err != nil {
				yield(nil, fmt.Errorf("frame %d: %w", n, err))
				return
			}
			doc, err = agui.EventProtoToJSON(doc[:0], msg)
			var unknown *agui.UnknownEventTypeError
			if errors.As(err, &unknown) {
				doc, err = []byte(`{"type":`+strconv.Quote(unknown.Type)+`}`), nil
			}
			if err != nil {
				yield(nil, fmt.Errorf("frame %d: %w", n, err))
				return
			}
			if !yield(doc, nil) {
				return
			}
			n++
		}
		if n == 0 {
			yield(nil, errNoEvents)
		}
	}
}
