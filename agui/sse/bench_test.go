package sse

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkReader reads a stream of 1,000 typical frames.
func BenchmarkReader(b *testing.B) {
	var stream []byte
	for range 1000 {
		stream = AppendFrame(stream, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello, world."}`))
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(stream))
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
