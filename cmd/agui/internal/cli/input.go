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
	formatProtobuf  = "protobuf"
)

// errNoEvents reports input that holds no event at all.
var errNoEvents = errors.New("no events in the input")

// readEvents splits a captured stream into one JSON document per event, in
// order, detecting its format: a JSON array of events; JSON values one
// after another (JSON Lines, or objects spread over several lines); or
// Server-Sent Events, where each frame's data lines joined by newlines are
// one document and frames without data are skipped. The index of a
// document is its position in the input.
//
// crAt is the index of the first SSE frame whose lines end in CR or CRLF
// rather than LF, or -1.
func readEvents(data []byte) (docs [][]byte, format string, crAt int, err error) {
	crAt = -1
	if len(data) > 0 && data[0] == 0 {
		// A length prefix: frames are at most 10 MiB, so the first byte of
		// a protobuf stream is 0, which no text format starts with.
		docs, err = protoFrames(data)
		if err == nil && len(docs) == 0 {
			err = errNoEvents
		}
		return docs, formatProtobuf, crAt, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return nil, "", crAt, errNoEvents
	case trimmed[0] == '[':
		var raw []json.RawMessage
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, formatJSONArray, crAt, fmt.Errorf("not a JSON array of events: %w", err)
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
				return nil, formatJSONLines, crAt, fmt.Errorf("JSON value %d: %w", len(docs), err)
			}
			docs = append(docs, raw)
		}
		format = formatJSONLines
	case looksLikeSSE(trimmed):
		docs, crAt, err = sseFrames(data)
		if err != nil {
			return nil, formatSSE, crAt, err
		}
		format = formatSSE
	default:
		return nil, "", crAt, errors.New("cannot tell the format: expected SSE (data: lines), JSON Lines or a JSON array of events")
	}
	if len(docs) == 0 {
		return nil, format, crAt, errNoEvents
	}
	return docs, format, crAt, nil
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
// crAt is the index of the first document whose frame had a line ending in
// CR or CRLF, or -1.
func sseFrames(data []byte) (docs [][]byte, crAt int, err error) {
	crAt = -1
	r := sse.NewReader(bytes.NewReader(data))
	for {
		frame, err := r.Next()
		if err == io.EOF {
			return docs, crAt, nil
		}
		if err != nil {
			return nil, crAt, fmt.Errorf("SSE frame %d: %w", len(docs), err)
		}
		if !json.Valid(frame) {
			return nil, crAt, fmt.Errorf("SSE frame %d: data is not JSON: %s", len(docs), clip(frame))
		}
		if crAt < 0 && r.SawCR() {
			crAt = len(docs)
		}
		docs = append(docs, bytes.Clone(frame))
	}
}

func clip(b []byte) string {
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
