package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
)

// protoFrames reads a protobuf stream (application/vnd.ag-ui.event+proto:
// length-prefixed ag_ui.Event messages) into one JSON document per frame,
// the form @ag-ui/proto's decode() gives, so the verifier decodes and
// judges it exactly as it judges SSE. A frame holding only an event type
// this build does not know becomes a document with a type naming its field
// number, which the client profile drops with a warning and the server
// profile rejects, as they treat an unknown type on SSE.
func protoFrames(data []byte) ([][]byte, error) {
	var docs [][]byte
	for msg, err := range protoframe.Frames(bytes.NewReader(data)) {
		if err != nil {
			return nil, fmt.Errorf("frame %d: %w", len(docs), err)
		}
		doc, err := agui.EventProtoToJSON(nil, msg)
		var unknown *agui.UnknownEventTypeError
		if errors.As(err, &unknown) {
			doc, err = []byte(`{"type":`+strconv.Quote(unknown.Type)+`}`), nil
		}
		if err != nil {
			return nil, fmt.Errorf("frame %d: %w", len(docs), err)
		}
		docs = append(docs, doc)
	}
	return docs, nil
}
