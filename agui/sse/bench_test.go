package sse

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkReader reads a stream of 1,000 typical frames, as one body
// ("whole": each read fills the buffer) and as a server that flushes every
// frame delivers it ("frames": each read returns one frame).
func BenchmarkReader(b *testing.B) {
	var stream []byte
	for range 1000 {
		stream = AppendFrame(stream, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello, world."}`))
	}
	for _, c := range []struct {
		name string
		body func() io.Reader
	}{
		{"whole", func() io.Reader { return bytes.NewReader(stream) }},
		{"frames", func() io.Reader { return &frameReader{stream} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				r := NewReader(c.body())
				for {
					if _, err := r.Next(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
				r.Release()
			}
		})
	}
}
