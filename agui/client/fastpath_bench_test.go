package client

import "testing"

// BenchmarkFastDelta is the fast path alone, on the plain delta of the
// read benchmarks and on the escape-heavy one.
func BenchmarkFastDelta(b *testing.B) {
	for _, c := range []struct{ name, frame string }{
		{"plain", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello, world! "}`},
		{"escaped", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"He said \"héllo\"\n\tC:\\tmp — 世界 🙂 "}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			frame := []byte(c.frame)
			var s deltaSlab
			b.ReportAllocs()
			for b.Loop() {
				if s.fastDelta(frame) == nil {
					b.Fatal("not taken")
				}
			}
		})
	}
}
