package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agui-go/sdk/agui/sse"
)

// Input formats a captured stream may come in.
const (
	formatSSE       = "SSE"
	formatJSONLines = "JSON Lines"
	formatJSONArray = "JSON array"
)

// errNoEvents reports input that holds no event at all.
var errNoEvents = errors.New("no events in the input")

// readEvents splits a captured stream into one JSON document per event, in
// order, detecting its format: a JSON array of events; JSON values one
// after another (JSON Lines, or objects spread over several lines); or
// Server-Sent Events, where each frame's data lines joined by newlines are
// one document and frames without data are skipped. The index of a
// document is its position in the input.
func readEvents(data []byte) (docs [][]byte, format string, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return nil, "", errNoEvents
	case trimmed[0] == '[':
		var raw []json.RawMessage
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, formatJSONArray, fmt.Errorf("not a JSON array of events: %w", err)
		}
		for _, r := range raw {
			docs = append(docs, r)
		}
		format = formatJSONArray
	case trimmed[0] == '{':
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				break
			} else if err != nil {
				return nil, formatJSONLines, fmt.Errorf("JSON value %d: %w", len(docs), err)
			}
			docs = append(docs, raw)
		}
		format = formatJSONLines
	case looksLikeSSE(trimmed):
		docs, err = sseFrames(data)
		if err != nil {
			return nil, formatSSE, err
		}
		format = formatSSE
	default:
		return nil, "", errors.New("cannot tell the format: expected SSE (data: lines), JSON Lines or a JSON array of events")
	}
	if len(docs) == 0 {
		return nil, format, errNoEvents
	}
	return docs, format, nil
}

// looksLikeSSE reports whether the first line is an SSE field or comment.
func looksLikeSSE(b []byte) bool {
	line := b
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		line = b[:i]
	}
	if bytes.HasPrefix(line, []byte(":")) {
		return true
	}
	name, _, _ := bytes.Cut(line, []byte(":"))
	switch string(name) {
	case "data", "event", "id", "retry":
		return true
	}
	return false
}

// sseFrames parses Server-Sent Events with the forgiving reader of package
// sse (LF, CRLF or CR line ends; comments and other fields ignored; a last
// frame without its blank line still counts). Each document must be JSON.
func sseFrames(data []byte) ([][]byte, error) {
	var docs [][]byte
	for frame, err := range sse.Frames(bytes.NewReader(data)) {
		if err != nil {
			return nil, fmt.Errorf("SSE frame %d: %w", len(docs), err)
		}
		if !json.Valid(frame) {
			return nil, fmt.Errorf("SSE frame %d: data is not JSON: %s", len(docs), clip(frame))
		}
		docs = append(docs, bytes.Clone(frame))
	}
	return docs, nil
}

func clip(b []byte) string {
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
