package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func collect(t *testing.T, r io.Reader, max int) ([]string, error) {
	t.Helper()
	sr := NewReader(r)
	if max > 0 {
		sr.SetMaxFrame(max)
	}
	var out []string
	for {
		data, err := sr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(data))
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"one frame", "data: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"no space after the colon", "data:{}\n\n", []string{`{}`}},
		{"two frames", "data: 1\n\ndata: 2\n\n", []string{"1", "2"}},
		{"CRLF", "data: 1\r\n\r\ndata: 2\r\n\r\n", []string{"1", "2"}},
		{"CR", "data: 1\r\rdata: 2\r\r", []string{"1", "2"}},
		{"comments and other fields ignored", ": keep-alive\n\nevent: x\nid: 7\nretry: 10\ndata: 1\n\n", []string{"1"}},
		{"data lines join with LF", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"last frame without blank line", "data: 1\n\ndata: 2", []string{"1", "2"}},
		{"frame with no data is skipped", "event: x\n\n\n\ndata: 1\n\n", []string{"1"}},
		{"empty data line makes an empty frame", "data:\n\n", []string{""}},
		{"field without colon", "data\n\n", []string{""}},
		{"only one leading space is removed", "data:  x\n\n", []string{" x"}},
		{"empty input", "", nil},
		{"common and other shapes mixed", "data: 1\n\nid: 5\ndata: 2\n\ndata:3\n\ndata: 4\r\n\r\ndata: 5\n\ndata: 6\ndata: 7\n\ndata: 8\n\n", []string{"1", "2", "3", "4", "5", "6\n7", "8"}},
		{"a data line then another field", "data: 1\nevent: x\n\n", []string{"1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, wrap := range []func(io.Reader) io.Reader{
				func(r io.Reader) io.Reader { return r },
				iotest.OneByteReader,
				iotest.HalfReader,
				framewise,
			} {
				got, err := collect(t, wrap(strings.NewReader(tt.in)), 0)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
			}
		})
	}
}

// frameReader returns, on each Read, the stream up to and including its
// next blank line (LF LF): one frame a read, as a socket from a server that
// flushes every frame does.
type frameReader struct{ rest []byte }

func framewise(r io.Reader) io.Reader {
	b, _ := io.ReadAll(r)
	return &frameReader{b}
}

func (r *frameReader) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		return 0, io.EOF
	}
	n := len(r.rest)
	if i := bytes.Index(r.rest, []byte("\n\n")); i >= 0 {
		n = i + 2
	}
	n = copy(p, r.rest[:n])
	r.rest = r.rest[n:]
	return n, nil
}

// A frame that a read brings in whole is read in place, however few bytes
// the reads before it left in the buffer: the general loop, which copies,
// is not used.
func TestReaderFramePerRead(t *testing.T) {
	var stream []byte
	for i := range 100 {
		stream = AppendFrame(stream, []byte(strings.Repeat("x", i)))
	}
	r := NewReader(framewise(bytes.NewReader(stream)))
	defer r.Release()
	for i := range 100 {
		data, err := r.Next()
		if err != nil || string(data) != strings.Repeat("x", i) {
			t.Fatalf("frame %d: %q, %v", i, data, err)
		}
		if want := int64(i*(len("data: \n\n")) + i*(i-1)/2); r.Offset() != want {
			t.Fatalf("frame %d at %d, want %d", i, r.Offset(), want)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last frame: %v", err)
	}
	if cap(r.frame) != 0 || cap(r.lbuf) != 0 {
		t.Fatalf("the general loop copied frames (frame %d, line %d bytes)", cap(r.frame), cap(r.lbuf))
	}
}

func TestReaderLimits(t *testing.T) {
	big := "data: " + strings.Repeat("x", 100) + "\n\n"
	if _, err := collect(t, strings.NewReader(big), 50); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("long line: %v", err)
	}
	joined := strings.Repeat("data: "+strings.Repeat("x", 20)+"\n", 5) + "\n"
	if _, err := collect(t, strings.NewReader(joined), 50); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("many data lines: %v", err)
	}
	// A stream with no line end at all is bounded too.
	if _, err := collect(t, strings.NewReader(strings.Repeat("y", 200)), 50); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("no line end: %v", err)
	}
}

func TestReaderPassesErrors(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom))
	got, err := collect(t, r, 0)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("got %q, %v", got, err)
	}
	// An error where a frame would start is returned, and again on every
	// later call, with the offset where it happened.
	sr := NewReader(io.MultiReader(framewise(strings.NewReader("data: 1\n\n")), iotest.ErrReader(boom)))
	if data, err := sr.Next(); err != nil || string(data) != "1" {
		t.Fatalf("first frame: %q, %v", data, err)
	}
	for range 2 {
		if _, err := sr.Next(); !errors.Is(err, boom) || sr.Offset() != 9 {
			t.Fatalf("got %v at %d, want boom at 9", err, sr.Offset())
		}
	}
}

func TestAppendFrameRoundTrip(t *testing.T) {
	var buf []byte
	for _, d := range []string{`{"type":"RUN_STARTED"}`, `{}`, `"x"`} {
		buf = AppendFrame(buf, []byte(d))
	}
	if !bytes.HasPrefix(buf, []byte("data: {\"type\"")) || bytes.Contains(buf, []byte("\r")) {
		t.Fatalf("framing: %q", buf)
	}
	var got []string
	for data, err := range Frames(bytes.NewReader(buf)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	if strings.Join(got, "|") != `{"type":"RUN_STARTED"}|{}|"x"` {
		t.Fatalf("got %q", got)
	}
}

// FuzzReader: any input is read to its end or to an error without panicking,
// reading in one go and one byte at a time give the same frames, and frames
// written with AppendFrame read back unchanged.
func FuzzReader(f *testing.F) {
	f.Add([]byte("data: 1\r\n\r\ndata: 2\r"), []byte("x"))
	f.Add([]byte(": c\n\ndata:\ndata: a\n"), []byte(`{"a":"b"}`))
	f.Fuzz(func(t *testing.T, stream, payload []byte) {
		whole, err1 := collect(t, bytes.NewReader(stream), 1<<16)
		bytewise, err2 := collect(t, iotest.OneByteReader(bytes.NewReader(stream)), 1<<16)
		if (err1 == nil) != (err2 == nil) || strings.Join(whole, "\x00") != strings.Join(bytewise, "\x00") {
			t.Fatalf("chunking changes the result: %q %v / %q %v", whole, err1, bytewise, err2)
		}
		framed, err3 := collect(t, framewise(bytes.NewReader(stream)), 1<<16)
		if (err1 == nil) != (err3 == nil) || strings.Join(whole, "\x00") != strings.Join(framed, "\x00") {
			t.Fatalf("reading a frame at a time changes the result: %q %v / %q %v", whole, err1, framed, err3)
		}
		// Every frame's offset is where a data line starts.
		checkOffsets(t, NewReader(bytes.NewReader(stream)), stream)
		checkOffsets(t, NewReader(framewise(bytes.NewReader(stream))), stream)
		if bytes.ContainsAny(payload, "\r\n") {
			return
		}
		got, err := collect(t, bytes.NewReader(AppendFrame(nil, payload)), 1<<16)
		if err != nil || len(got) != 1 || got[0] != string(payload) {
			t.Fatalf("round trip of %q: %q, %v", payload, got, err)
		}
	})
}

// checkOffsets reads r to its end, checking that every frame's offset is
// the start of a data line of stream.
func checkOffsets(t *testing.T, r *Reader, stream []byte) {
	t.Helper()
	for {
		if _, err := r.Next(); err != nil {
			return
		}
		off := r.Offset()
		if off < 0 || off > int64(len(stream)) || !bytes.HasPrefix(stream[off:], []byte("data")) ||
			off > 0 && !bytes.ContainsAny(stream[off-1:off], "\r\n") {
			t.Fatalf("offset %d is not the start of a data line in %q", off, stream)
		}
	}
}

func TestSawCR(t *testing.T) {
	for in, want := range map[string]bool{"data: 1\n\n": false, "data: 1\r\n\r\n": true, "data: 1\r\r": true, "data: 1": false} {
		r := NewReader(strings.NewReader(in))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
		if r.SawCR() != want {
			t.Errorf("%q: SawCR %v, want %v", in, r.SawCR(), want)
		}
	}
}

func TestLastEventID(t *testing.T) {
	r := NewReader(strings.NewReader("id: 1\ndata: a\n\n: c\n\ndata: b\n\nid: 3\ndata: c\n\nid: 4\ndata: d"))
	var got []string
	for {
		_, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, r.LastEventID())
	}
	// "b" has no id of its own and keeps the last one; "d", read at the end
	// of the stream without its blank line, is delivered with its id.
	if want := "1,1,3,4"; strings.Join(got, ",") != want {
		t.Fatalf("ids %v, want %s", got, want)
	}
	// A frame cut before its end is not delivered and its id not taken.
	r = NewReader(io.MultiReader(strings.NewReader("id: 1\ndata: a\n\nid: 2\n"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || r.LastEventID() != "1" {
		t.Fatalf("after a cut frame: %v, id %q", err, r.LastEventID())
	}
}

// TestOffset checks that each frame's offset is where its first data line
// starts, whatever the line endings and whatever precedes it. Every stream
// holds two frames, whose first data lines carry "a" and "b", and is read
// one byte at a time as well, so offsets survive refills of the buffer.
func TestOffset(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream string
	}{
		{"LF", "data: a\n\ndata: b\n\n"},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n"},
		{"CR", "data: a\r\rdata: b\r\r"},
		{"comments and fields first", ": hi\nevent: x\ndata: a\n\n: again\r\nid: 7\r\ndata: b\r\n\r\n"},
		{"several data lines", "\n\ndata: a\ndata: a2\n\n\n\ndata: b\ndata: b2"},
		{"no blank line at the end", "data: a\n\ndata: b"},
	} {
		want := []int64{int64(strings.Index(tc.stream, "data: a")), int64(strings.Index(tc.stream, "data: b"))}
		for _, oneByte := range []bool{false, true} {
			var in io.Reader = strings.NewReader(tc.stream)
			if oneByte {
				in = iotest.OneByteReader(in)
			}
			r := NewReader(in)
			var got []int64
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r.Offset())
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s (one byte at a time: %v): offsets %v, want %v", tc.name, oneByte, got, want)
			}
		}
	}
}

// TestRelease: a released reader refuses to read on; a reader built after
// it (possibly on its buffer) reads only its own stream, even when the
// released one stopped mid-stream with bytes still buffered; and a
// caller's own *bufio.Reader is read directly and never pooled.
func TestRelease(t *testing.T) {
	first := NewReader(strings.NewReader("data: 1\n\ndata: left over\n\n"))
	if got, err := first.Next(); err != nil || string(got) != "1" {
		t.Fatalf("first frame: %q, %v", got, err)
	}
	first.Release()
	if _, err := first.Next(); err == nil || err == io.EOF {
		t.Fatalf("Next after Release: %v", err)
	}
	first.Release() // twice is harmless
	got, err := collect(t, strings.NewReader("data: 2\n\n"), 0)
	if err != nil || strings.Join(got, "|") != "2" {
		t.Fatalf("after a release: %q, %v", got, err)
	}

	own := bufio.NewReaderSize(strings.NewReader("data: 3\n\ndata: 4\n\n"), 64<<10)
	r := NewReader(own)
	if got, err := r.Next(); err != nil || string(got) != "3" {
		t.Fatalf("own buffer: %q, %v", got, err)
	}
	r.Release()
	for range 4 {
		NewReader(strings.NewReader("")).Release() // would hand out own if it were pooled
	}
	if rest, _ := io.ReadAll(own); string(rest) != "data: 4\n\n" {
		t.Fatalf("the caller's reader was disturbed: %q left", rest)
	}
}
