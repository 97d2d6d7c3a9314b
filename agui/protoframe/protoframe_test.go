package protoframe_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
)

func frames(msgs ...string) []byte {
	var b []byte
	for _, m := range msgs {
		b = protoframe.AppendMessage(b, []byte(m))
	}
	return b
}

// readAll reads every frame of r and the error that ended the stream (nil
// for a clean end).
func readAll(r io.Reader, max int) ([]string, error) {
	fr := protoframe.NewReader(r)
	if max > 0 {
		fr.SetMaxFrame(max)
	}
	var out []string
	for {
		msg, err := fr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(msg))
	}
}

func TestReader(t *testing.T) {
	three := frames("one", "", strings.Repeat("x", 70000))
	tests := []struct {
		name     string
		r        io.Reader
		max      int
		want     []string
		err      error
		trailing int
	}{
		{name: "empty stream", r: bytes.NewReader(nil)},
		{name: "several frames in one read", r: bytes.NewReader(three), want: []string{"one", "", strings.Repeat("x", 70000)}},
		{name: "frames split across reads", r: iotest.OneByteReader(bytes.NewReader(three)), want: []string{"one", "", strings.Repeat("x", 70000)}},
		{name: "ends inside the prefix", r: bytes.NewReader(append(frames("one"), 0, 0)), want: []string{"one"}, err: protoframe.ErrTruncated, trailing: 2},
		{name: "ends inside the body", r: bytes.NewReader(frames("one", "two")[:9]), want: []string{"one"}, err: protoframe.ErrTruncated, trailing: 2 + 0},
		{name: "too large", r: bytes.NewReader(frames("12345")), max: 4, err: protoframe.ErrFrameTooLarge},
		{name: "declared larger than the default cap", r: bytes.NewReader([]byte{0x00, 0xa0, 0x00, 0x01}), err: protoframe.ErrFrameTooLarge},
		{name: "reader error", r: iotest.ErrReader(io.ErrClosedPipe), err: io.ErrClosedPipe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(tt.r, tt.max)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("frames = %q, want %q", got, tt.want)
			}
			var te *protoframe.TruncatedError
			if errors.As(err, &te) && tt.name == "ends inside the prefix" && te.Trailing != tt.trailing {
				t.Fatalf("trailing = %d, want %d", te.Trailing, tt.trailing)
			}
		})
	}
}

// TestTruncatedBodyCountsBytes checks the trailing count of a body cut short:
// the prefix and the part of the message that arrived.
func TestTruncatedBodyCountsBytes(t *testing.T) {
	b := frames("hello")[:7] // prefix and "hel"
	_, err := readAll(bytes.NewReader(b), 0)
	var te *protoframe.TruncatedError
	if !errors.As(err, &te) || te.Trailing != 7 {
		t.Fatalf("err = %#v, want a TruncatedError with 7 trailing bytes", err)
	}
	if !strings.Contains(err.Error(), "7 trailing bytes") {
		t.Fatalf("message %q does not say how many bytes", err)
	}
}

func TestWriterReaderRoundTrip(t *testing.T) {
	evs := []agui.Event{
		&agui.RunStarted{ThreadID: "t", RunID: "r"},
		agui.NewTextMessageContent("m", "hello"),
		&agui.RunFinished{ThreadID: "t", RunID: "r", Outcome: &agui.RunFinishedSuccessOutcome{}},
	}
	var buf bytes.Buffer
	w := protoframe.NewWriter(&buf)
	for _, ev := range evs {
		if err := w.WriteEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	// The reference's bytes for RUN_STARTED (protocol.md C.4).
	if want := "0000000c620a0a02080b1201741a0172"; !strings.HasPrefix(hexOf(buf.Bytes()), want) {
		t.Fatalf("stream starts %s, want %s", hexOf(buf.Bytes()), want)
	}
	i := 0
	for msg, err := range protoframe.Frames(iotest.HalfReader(&buf)) {
		if err != nil {
			t.Fatal(err)
		}
		ev, err := agui.DecodeEventProto(msg)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := evs[i].AppendJSON(nil)
		got, _ := ev.AppendJSON(nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("event %d: got %s, want %s", i, got, want)
		}
		i++
	}
	if i != len(evs) {
		t.Fatalf("read %d events, want %d", i, len(evs))
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestAppendFrameAllocs(t *testing.T) {
	ev := agui.NewTextMessageContent("msg-1", "Hello")
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf, _ = protoframe.AppendFrame(buf[:0], ev) }); n != 0 {
		t.Fatalf("%v allocations, want 0", n)
	}
}

// FuzzReader feeds arbitrary bytes through the frame reader in arbitrary
// read sizes: it must end with io.EOF, a truncation, an oversize frame or
// nothing else, never panic, and every frame it returns must be re-framed to
// the same bytes.
func FuzzReader(f *testing.F) {
	f.Add(frames("one", "two"), uint8(1))
	f.Add([]byte{0, 0, 0, 5, 1, 2}, uint8(3))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		var r io.Reader = bytes.NewReader(data)
		if step%2 == 1 {
			r = iotest.OneByteReader(r)
		}
		got, err := readAll(r, 1<<16)
		if err != nil && !errors.Is(err, protoframe.ErrTruncated) && !errors.Is(err, protoframe.ErrFrameTooLarge) {
			t.Fatalf("unexpected error %v", err)
		}
		again := frames(got...)
		if !bytes.HasPrefix(data, again) {
			t.Fatalf("re-framed frames are not a prefix of the input")
		}
		if err == nil && len(again) != len(data) {
			t.Fatalf("clean end after %d of %d bytes", len(again), len(data))
		}
	})
}
