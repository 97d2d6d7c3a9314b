package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/sse"
)

// Input formats a captured stream may come in.
const (
	formatSSE       = "SSE"
	formatJSONLines = "JSON Lines"
	formatJSONArray = "JSON array"
	formatProtobuf  = "protobuf"
)

// maxEvent is the largest event document read in any format: the SSE frame
// limit, which is the reference client's. A longer document is an error, not
// something to buffer.
const maxEvent = agui.DefaultMaxFrame

// errNoEvents reports input that holds no event at all.
var errNoEvents = errors.New("no events in the input")

// errEventTooLarge reports a JSON Lines or array document over maxEvent.
var errEventTooLarge = fmt.Errorf("an event is larger than the %d-byte limit", maxEvent)

// eventStream is a captured stream being read: its format, its documents
// (each valid until the next; an error ends them) and, for SSE, the index of
// the first document whose frame had a line ending in CR or CRLF (-1 when
// none) and that frame's offset (crOffset), known once the documents have
// been read.
//
// at is the byte offset in the input of the document yielded last (SSE: of
// its frame's first data line; protobuf: of its length prefix), or of the
// spot where reading failed; it is kept as the documents are read, so it
// names the rejected event when checking stops there.
type eventStream struct {
	format   string
	docs     iter.Seq2[[]byte, error]
	crAt     int
	crOffset int64
	at       int64
}

// readEvents detects the format of a captured stream from its first bytes and
// returns its documents as they are read, in constant memory for any length:
// a JSON array of events; JSON values one after another (JSON Lines, or
// objects spread over several lines); Server-Sent Events, where each frame's
// data lines joined by newlines are one document and frames without data are
// skipped; or the protobuf binding's length-prefixed frames, each turned into
// the JSON document it stands for. The index of a document is its position in the input.
// Every format has the same per-document cap (maxEvent), and a document
// nested too deeply says so.
func readEvents(in io.Reader) (*eventStream, error) {
	br := bufio.NewReaderSize(in, 64<<10)
	if b, _ := br.Peek(1); len(b) == 1 && b[0] == 0 {
		// A length prefix: frames are at most 10 MiB, so the first byte of
		// a protobuf stream is 0, which no text format starts with.
		es := &eventStream{format: formatProtobuf, crAt: -1}
		es.docs = protoDocs(br, &es.at)
		return es, nil
	}
	base := int64(0)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
		base = 3
	}
	// The first byte that is not white space decides; SSE needs the first
	// line, so white space is only peeked at, not consumed.
	first, lead, err := peekFirst(br)
	if err != nil {
		return nil, err
	}
	es := &eventStream{crAt: -1}
	switch {
	case first == 0:
		return nil, errNoEvents
	case first == '[':
		br.Discard(lead)
		es.format, es.docs = formatJSONArray, jsonDocs(br, true, base+int64(lead), &es.at)
	case first == '{':
		br.Discard(lead)
		es.format, es.docs = formatJSONLines, jsonDocs(br, false, base+int64(lead), &es.at)
	default:
		line, _ := br.Peek(min(br.Buffered(), 4<<10))
		if !looksLikeSSE(bytes.TrimLeft(line, " \t\r\n")) {
			return nil, errors.New("cannot tell the format: expected SSE (data: lines), JSON Lines or a JSON array of events")
		}
		es.format, es.docs = formatSSE, sseDocs(br, &es.crAt, &es.crOffset, base, &es.at)
	}
	return es, nil
}

// peekFirst returns the first byte that is not white space (0 at the end of
// the input) and how many bytes of white space precede it, consuming nothing.
func peekFirst(br *bufio.Reader) (byte, int, error) {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			if err == io.EOF || err == bufio.ErrBufferFull {
				return 0, 0, nil // nothing but white space (or a buffer of it: no format we read)
			}
			return 0, 0, err
		}
		if c := b[n-1]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, n - 1, nil
		}
	}
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

// jsonDocs reads JSON values one after another, or the elements of one JSON
// array, with a json.Decoder over a reader that lets no value read more than
// maxEvent bytes.
//
// base is the offset of br's first byte in the input; *at is kept as
// eventStream.at says.
func jsonDocs(br *bufio.Reader, array bool, base int64, at *int64) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		lr := &valueLimit{r: br}
		dec := json.NewDecoder(lr)
		n := 0
		fail := func(err error) {
			*at = base + dec.InputOffset()
			var se *json.SyntaxError
			if errors.As(err, &se) {
				*at = base + se.Offset - 1 // the error occurred after reading Offset bytes
			}
			switch {
			case errors.Is(err, errEventTooLarge):
				err = fmt.Errorf("JSON value %d: %w", n, err)
			case array:
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					err = errors.New("unexpected end of JSON input") // as json.Unmarshal says it
				}
				err = fmt.Errorf("not a JSON array of events: %w", describeJSONError(err))
			default:
				err = fmt.Errorf("JSON value %d: %w", n, describeJSONError(err))
			}
			yield(nil, err)
		}
		if array {
			lr.reset()
			if _, err := dec.Token(); err != nil { // the '['
				fail(err)
				return
			}
		}
		for {
			if array && !dec.More() {
				break
			}
			lr.reset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF && !array {
				break
			} else if err != nil {
				fail(err)
				return
			}
			if len(raw) > maxEvent { // the reader's allowance has slack for read-ahead; this is exact
				fail(errEventTooLarge)
				return
			}
			*at = base + dec.InputOffset() - int64(len(raw))
			if !yield(raw, nil) {
				return
			}
			n++
		}
		if array {
			if _, err := dec.Token(); err != nil { // the ']'
				fail(err)
				return
			}
			if dec.More() {
				yield(nil, errors.New("not a JSON array of events: data after the array"))
				return
			}
		}
		if n == 0 {
			yield(nil, errNoEvents)
		}
	}
}

// valueLimit is the reader under jsonDocs' decoder: each Read returns at most
// what is left of the allowance of the value being decoded, and none is left
// once maxEvent bytes (and a little for the decoder's read-ahead) were read
// for one value.
type valueLimit struct {
	r    io.Reader
	left int
}

func (l *valueLimit) reset() { l.left = maxEvent + 4<<10 }

func (l *valueLimit) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errEventTooLarge
	}
	n, err := l.r.Read(p[:min(len(p), l.left)])
	l.left -= n
	return n, err
}

// describeJSONError names the cause of a document encoding/json refuses for
// its nesting in words a reader of the CLI's output understands.
func describeJSONError(err error) error {
	if err != nil && strings.Contains(err.Error(), "exceeded max depth") {
		return fmt.Errorf("the document is nested too deeply (more than 10000 levels): %w", err)
	}
	return err
}

// sseDocs reads Server-Sent Events with the forgiving reader of package sse
// (LF, CRLF or CR line ends; comments and other fields ignored; a last frame
// without its blank line still counts). Each document must be JSON. *crAt is
// set to the index of the first document whose frame had a line ending in CR
// or CRLF, and *crOffset to that frame's offset.
func sseDocs(br *bufio.Reader, crAt *int, crOffset *int64, base int64, at *int64) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		r := sse.NewReader(br)
		n := 0
		for {
			frame, err := r.Next()
			if err == io.EOF {
				break
			}
			*at = base + r.Offset()
			if err != nil {
				yield(nil, fmt.Errorf("SSE frame %d: %w", n, err))
				return
			}
			if !json.Valid(frame) {
				var v json.RawMessage
				if err := describeJSONError(json.Unmarshal(frame, &v)); err != nil && strings.Contains(err.Error(), "nested too deeply") {
					yield(nil, fmt.Errorf("SSE frame %d: %w", n, err))
				} else {
					yield(nil, fmt.Errorf("SSE frame %d: data is not JSON: %s", n, clip(frame)))
				}
				return
			}
			if *crAt < 0 && r.SawCR() {
				*crAt, *crOffset = n, *at
			}
			if !yield(frame, nil) {
				return
			}
			n++
		}
		if n == 0 {
			yield(nil, errNoEvents)
		}
	}
}

func clip(b []byte) string {
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
