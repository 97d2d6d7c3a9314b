package agui

import "testing"

// BenchmarkProtoEncode compares AppendProto with AppendJSON (the baseline),
// both into a reused buffer, on the payloads of BenchmarkEncode.
func BenchmarkProtoEncode(b *testing.B) {
	for _, c := range benchCases() {
		p := c.ours.(interface{ AppendProto([]byte) ([]byte, error) })
		b.Run(c.name+"/JSON", func(b *testing.B) {
			buf := make([]byte, 0, 4096)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = c.ours.AppendJSON(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(buf)))
		})
		b.Run(c.name+"/Proto", func(b *testing.B) {
			buf := make([]byte, 0, 4096)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = p.AppendProto(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}

// BenchmarkProtoDecode compares DecodeEventProto with DecodeEvent (the
// baseline) on the same events.
func BenchmarkProtoDecode(b *testing.B) {
	for _, c := range benchCases() {
		js, _ := c.ours.AppendJSON(nil)
		pb, _ := AppendEventProto(nil, c.ours)
		b.Run(c.name+"/JSON", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(js)))
			for b.Loop() {
				if _, err := DecodeEvent(js); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/Proto", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(pb)))
			for b.Loop() {
				if _, err := DecodeEventProto(pb); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
