// Package sse reads and writes the server-sent-events framing AG-UI uses
// over HTTP: one event per frame, as a single "data:" line holding the
// event's JSON, frames separated by a blank line.
//
// The writer side is fixed by the protocol: "data: ", compact JSON, then two
// LFs, and nothing else. The reader side is forgiving, as the SSE grammar
// allows: lines may end in LF, CRLF or CR; comment lines (": keep-alive")
// and fields other than data are ignored; several data lines join with LF;
// a last frame with no blank line after it still counts. It is stricter than
// the grammar in one way: a frame is capped (10 MiB by default, the reference
// client's limit), so a peer cannot make a reader buffer without bound.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"

	"github.com/agui-go/sdk/agui"
)

// ErrFrameTooLarge is returned (wrapped) by Reader.Next for a frame larger
// than the reader's limit.
var ErrFrameTooLarge = errors.New("sse: frame exceeds the size limit")

// AppendFrame appends one frame carrying data to dst. data must be a single
// line, as compact JSON from AppendJSON always is.
func AppendFrame(dst, data []byte) []byte {
	dst = append(dst, "data: "...)
	dst = append(dst, data...)
	return append(dst, '\n', '\n')
}

// Reader reads frames from a byte stream.
type Reader struct {
	br      *bufio.Reader
	pooled  bool // br came from bufPool
	max     int
	frame   []byte // data of the frame being read
	hasData bool
	pendCR  bool   // the last line ended in CR: a following LF belongs to it
	sawCR   bool   // some line so far ended in CR or CRLF
	lbuf    []byte // the line being read
	err     error
	lastID  string // the id of the last frame dispatched (the SSE "last event ID")
	idBuf   string // the last id field read; it becomes lastID when its frame ends

	off      int64 // bytes of the stream consumed so far
	lineOff  int64 // where the line last returned by line starts
	frameOff int64 // where the first data line of the current frame starts
}

// LastEventID returns the id of the last frame read whole (the value of its
// last `id:` field, or an earlier frame's), as a browser's EventSource keeps
// it: what a client sends back as Last-Event-ID
// to resume the stream. It is "" while the stream carried none.
func (r *Reader) LastEventID() string { return r.lastID }

// SetLastEventID sets the last event ID a new Reader starts with: the one
// of the connection it continues.
func (r *Reader) SetLastEventID(id string) { r.lastID, r.idBuf = id, id }

// NewReader returns a Reader with the default frame limit,
// [agui.DefaultMaxFrame]. Its read buffer
// comes from a pool that Release fills, unless r is already a large enough
// *bufio.Reader, which is read directly.
func NewReader(r io.Reader) *Reader {
	if br, ok := r.(*bufio.Reader); ok && br.Size() >= bufSize {
		return &Reader{br: br, max: agui.DefaultMaxFrame}
	}
	br, _ := bufPool.Get().(*bufio.Reader)
	if br == nil {
		br = bufio.NewReaderSize(nil, bufSize)
	}
	br.Reset(r)
	return &Reader{br: br, max: agui.DefaultMaxFrame, pooled: true}
}

// bufSize is the read buffer of a Reader: large enough that a stream of
// small frames is read in few calls, and that most frames lie wholly in the
// buffer (see buffered).
const bufSize = 32 << 10

// bufPool holds the read buffers of released Readers. A client reading one
// run after another would otherwise allocate 32 KiB per run, about as much
// as the events of a 300-frame run.
var bufPool sync.Pool

// errReleased is what Next returns after Release.
var errReleased = errors.New("sse: Next called after Release")

// Release ends the reader and gives its buffer back for a later NewReader
// to use. The last slice Next returned is invalid from then on, and Next
// returns an error. It is optional: a Reader never released is collected
// as any value is.
func (r *Reader) Release() {
	if r.pooled {
		r.br.Reset(nil) // drop the underlying reader, not to keep it alive
		bufPool.Put(r.br)
	}
	r.br, r.pooled, r.err = nil, false, errReleased
}

// SawCR reports whether any line read so far ended in CR or CRLF. The
// protocol requires producers to end lines with LF alone, and the reference
// client splits frames on LF only, so a linter reports such streams.
func (r *Reader) SawCR() bool { return r.sawCR }

// Offset returns the byte offset, in the stream, of the first data line of
// the frame Next returned last, so that a consumer rejecting a frame's data
// can say where in its input that frame is. After an error from Next it is
// where the line that failed starts (or the frame's first data line).
func (r *Reader) Offset() int64 { return r.frameOff }

// SetMaxFrame sets the largest frame, in bytes of data, Next accepts.
func (r *Reader) SetMaxFrame(n int) { r.max = n }

// Next returns the data of the next frame that has any. The slice is valid
// until the next call. At the end of the stream it returns io.EOF; any other
// error is the underlying reader's, or a wrapped ErrFrameTooLarge.
func (r *Reader) Next() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if data, ok := r.buffered(); ok {
		return data, nil
	}
	if r.br.Buffered() == 0 {
		// Nothing is buffered: read before choosing a way. A server that
		// flushes every frame makes each read return one frame, and
		// without this every frame would go the general way below.
		if _, err := r.br.Peek(1); err != nil {
			// Peek hands the error over once: keep it, as the general
			// loop would with nothing of a frame read.
			r.frameOff, r.lineOff = r.off, r.off
			r.err = err
			return nil, err
		}
		if data, ok := r.buffered(); ok {
			return data, nil
		}
	}
	r.frame, r.hasData = r.frame[:0], false
	for {
		line, err := r.line()
		if !r.hasData {
			r.frameOff = r.lineOff // until its first data line, the frame starts here
		}
		if err != nil {
			if err == io.EOF && r.hasData {
				r.err = io.EOF
				r.lastID = r.idBuf
				return r.frame, nil // a last frame without its blank line
			}
			r.err = err
			return nil, err
		}
		if len(line) == 0 {
			// The frame is dispatched: its id (if any) is now the
			// last event ID, and not before, so that a connection
			// dropped inside a frame resumes with that frame.
			r.lastID = r.idBuf
			if r.hasData {
				return r.frame, nil
			}
			continue
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if !found {
			value = nil
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if string(name) == "id" && bytes.IndexByte(value, 0) < 0 {
			r.idBuf = string(value) // a NUL makes the field ignored (SSE spec)
			continue
		}
		if string(name) != "data" {
			continue // a comment, or an event or retry field
		}
		if r.hasData {
			r.frame = append(r.frame, '\n')
		}
		if len(r.frame)+len(value) > r.max {
			r.err = fmt.Errorf("%w (%d bytes)", ErrFrameTooLarge, r.max)
			return nil, r.err
		}
		r.frame = append(r.frame, value...)
		r.hasData = true
	}
}

// buffered is Next for a frame of the shape every AG-UI producer writes,
// when all of it is already in the read buffer: one "data:" line and a
// blank line, both ending in LF. It returns the data in place, a slice of
// the buffer, rather than copying it twice (into the line, then into the
// frame) as the general loop does. Nothing overwrites the buffer before
// the next call: Discard of buffered bytes never reads, and the next read
// happens in the next Next. Any other shape (another field, several data
// lines, CR, a frame over the limit, one not wholly buffered yet) returns
// false with nothing consumed, and the general loop reads it; FuzzReader
// checks that both ways read the same frames.
func (r *Reader) buffered() ([]byte, bool) {
	if r.pendCR {
		return nil, false
	}
	win, _ := r.br.Peek(r.br.Buffered())
	if !bytes.HasPrefix(win, dataField) {
		return nil, false
	}
	i := bytes.IndexByte(win, '\n')
	if i < 0 || i+1 == len(win) || win[i+1] != '\n' || bytes.IndexByte(win[:i], '\r') >= 0 {
		return nil, false
	}
	data := win[len(dataField):i]
	if len(data) > 0 && data[0] == ' ' {
		data = data[1:]
	}
	if len(data) > r.max {
		return nil, false // the general loop reports it
	}
	r.frameOff, r.lineOff = r.off, r.off+int64(i+1)
	r.br.Discard(i + 2)
	r.off += int64(i + 2)
	r.lastID = r.idBuf
	return data, true
}

var dataField = []byte("data:")

// line returns the next line without its terminator, reading LF, CRLF and
// CR endings. It scans the buffered window for a line end rather than
// reading byte by byte. A line longer than the frame limit is an error.
func (r *Reader) line() ([]byte, error) {
	r.lbuf = r.lbuf[:0]
	r.lineOff = r.off
	limit := r.max + len("data: ")
	for {
		if r.br.Buffered() == 0 {
			if _, err := r.br.Peek(1); err != nil {
				if err == io.EOF && len(r.lbuf) > 0 {
					return r.lbuf, nil // a last line without its terminator
				}
				return nil, err
			}
		}
		win, _ := r.br.Peek(r.br.Buffered())
		if r.pendCR {
			r.pendCR = false
			if win[0] == '\n' {
				r.br.Discard(1) // the LF of a CRLF whose CR ended the last line
				r.off++
				r.lineOff = r.off
				continue
			}
		}
		i := lineEnd(win)
		n := i
		if i < 0 {
			n = len(win)
		}
		if len(r.lbuf)+n > limit {
			return nil, fmt.Errorf("%w (%d bytes)", ErrFrameTooLarge, r.max)
		}
		r.lbuf = append(r.lbuf, win[:n]...)
		if i < 0 {
			r.br.Discard(n)
			r.off += int64(n)
			continue
		}
		r.pendCR = win[i] == '\r'
		r.sawCR = r.sawCR || r.pendCR
		r.br.Discard(i + 1)
		r.off += int64(i + 1)
		return r.lbuf, nil
	}
}

// lineEnd returns the index of the first CR or LF in b, or -1. Two
// IndexByte scans (vectorised) beat one IndexAny (a byte-at-a-time set
// lookup) several times over on the long lines of a stream; the CR scan
// only covers the line the LF scan found.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	end := i
	if i < 0 {
		end = len(b)
	}
	if j := bytes.IndexByte(b[:end], '\r'); j >= 0 {
		return j
	}
	return i
}

// Frames iterates over the frames of r; the stream ends at io.EOF, and any
// other error is yielded once, last. Each slice is valid for one iteration.
func Frames(r io.Reader) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		sr := NewReader(r)
		defer sr.Release() // each slice lived for its iteration only
		for {
			data, err := sr.Next()
			if err == io.EOF {
				return
			}
			if !yield(data, err) || err != nil {
				return
			}
		}
	}
}
