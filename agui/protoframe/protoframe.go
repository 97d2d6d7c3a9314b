// Package protoframe reads and writes the framing of AG-UI's protobuf
// binding (media type application/vnd.ag-ui.event+proto): each event is one
// ag_ui.Event message preceded by its length as a 4-byte unsigned
// big-endian integer, with nothing between frames.
//
// The reader takes frames split across reads or sharing one, caps a frame at
// 10 MiB (the reference client's limit) so a peer cannot make it buffer
// without bound, and tells a stream that ends inside a frame (a truncated
// run) from one that ends cleanly: the former is a *TruncatedError, which
// matches ErrTruncated.
package protoframe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/agui-go/sdk/agui"
)

// MediaType is the content type of a protobuf event stream.
const MediaType = "application/vnd.ag-ui.event+proto"

// headerLen is the size of the length prefix.
const headerLen = 4

var (
	// ErrFrameTooLarge is returned (wrapped) for a frame whose declared
	// length is above the reader's limit.
	ErrFrameTooLarge = errors.New("protoframe: frame exceeds the size limit")
	// ErrTruncated is matched by every *TruncatedError.
	ErrTruncated = errors.New("protoframe: the stream ended inside a frame")
)

// TruncatedError reports a stream that ended inside a frame: in the length
// prefix, or before the declared number of bytes arrived.
type TruncatedError struct {
	Trailing int // bytes of the unfinished frame that were read, prefix included
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("protoframe: the stream ended inside a frame: %d trailing bytes could not be read as a complete message", e.Trailing)
}

// Is reports whether target is ErrTruncated.
func (e *TruncatedError) Is(target error) bool { return target == ErrTruncated }

// AppendFrame appends the frame of ev (length prefix and message) to dst,
// encoding into dst itself: with enough capacity nothing is allocated. On
// error dst is returned unchanged.
func AppendFrame(dst []byte, ev agui.Event) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	out, err := agui.AppendEventProto(dst, ev)
	if err != nil {
		return dst[:start], err
	}
	n := len(out) - start - headerLen
	if n > agui.DefaultMaxFrame {
		return dst[:start], fmt.Errorf("%w: %d bytes", ErrFrameTooLarge, n)
	}
	binary.BigEndian.PutUint32(out[start:], uint32(n))
	return out, nil
}

// AppendMessage appends a frame carrying msg, an encoded ag_ui.Event.
func AppendMessage(dst, msg []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// Writer writes frames to an io.Writer, one Write per event.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteEvent writes the frame of ev.
func (w *Writer) WriteEvent(ev agui.Event) error {
	var err error
	if w.buf, err = AppendFrame(w.buf[:0], ev); err != nil {
		return err
	}
	_, err = w.w.Write(w.buf)
	return err
}

// Reader reads frames from a byte stream.
type Reader struct {
	br    *bufio.Reader
	max   int
	hdr   [headerLen]byte // a field, not a local: passed to io.ReadFull it would escape, one allocation per frame
	frame []byte
	err   error
}

// NewReader returns a Reader with the default frame limit,
// [agui.DefaultMaxFrame].
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 32<<10), max: agui.DefaultMaxFrame}
}

// SetMaxFrame sets the largest frame, in bytes of message, Next accepts.
func (r *Reader) SetMaxFrame(n int) { r.max = n }

// Next returns the message of the next frame. The slice is valid until the
// next call. At a clean end of the stream it returns io.EOF; a stream that
// ends inside a frame gives a *TruncatedError; a frame above the limit a
// wrapped ErrFrameTooLarge; anything else is the underlying reader's error.
// After an error every call returns it again.
func (r *Reader) Next() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	n, err := io.ReadFull(r.br, r.hdr[:])
	switch {
	case err == io.EOF:
		r.err = io.EOF
		return nil, r.err
	case err == io.ErrUnexpectedEOF:
		r.err = &TruncatedError{Trailing: n}
		return nil, r.err
	case err != nil:
		r.err = err
		return nil, err
	}
	size := binary.BigEndian.Uint32(r.hdr[:])
	if uint64(size) > uint64(r.max) {
		r.err = fmt.Errorf("%w: a frame declares %d bytes, the limit is %d", ErrFrameTooLarge, size, r.max)
		return nil, r.err
	}
	// Grow as bytes arrive rather than trusting the declared size up front,
	// so a peer that declares 10 MiB and sends nothing costs nothing.
	r.frame = r.frame[:0]
	for len(r.frame) < int(size) {
		chunk := min(int(size)-len(r.frame), 64<<10)
		r.frame = slices.Grow(r.frame, chunk)
		got, err := io.ReadFull(r.br, r.frame[len(r.frame):len(r.frame)+chunk])
		r.frame = r.frame[:len(r.frame)+got]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			r.err = &TruncatedError{Trailing: headerLen + len(r.frame)}
			return nil, r.err
		}
		if err != nil {
			r.err = err
			return nil, err
		}
	}
	return r.frame, nil
}

// Frames iterates over the messages of r; the stream ends at io.EOF, and
// any other error is yielded once, last. Each slice is valid for one
// iteration.
func Frames(r io.Reader) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		fr := NewReader(r)
		for {
			msg, err := fr.Next()
			if err == io.EOF {
				return
			}
			if !yield(msg, err) || err != nil {
				return
			}
		}
	}
}
