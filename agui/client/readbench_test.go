package client_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// BenchmarkClientReadMemory is Client.Run reading a 1,000-delta run
// (1,004 frames) from an in-memory body: request encoding, SSE framing,
// decoding, chunk expansion, verification and the iterator, everything a
// caller ranging over Run pays, with no reducer. The body comes from
// memoryTransport, so no socket, server goroutine or scheduler hand-off is
// in the figure. One op is one run; ns/frame and allocs/frame are the
// figures, the per-run costs (the request, the pipeline) spread over the
// frames as they are in practice.
func BenchmarkClientReadMemory(b *testing.B) {
	benchReadMemory(b, sseRun1000())
}

// BenchmarkClientReadMemoryStamped is BenchmarkClientReadMemory with every
// delta stamped, as the community Go SDK sends them by default
// ({"type":…,"timestamp":…,"messageId":…,"delta":…}).
func BenchmarkClientReadMemoryStamped(b *testing.B) {
	stamped := `{"type":"TEXT_MESSAGE_CONTENT","timestamp":1764547200000,"messageId":"msg-1","delta":"Hello, world! "}`
	benchReadMemory(b, bytes.ReplaceAll(sseRun1000(), []byte(benchDeltaJSON), []byte(stamped)))
}

// BenchmarkClientReadMemoryToolArgs is BenchmarkClientReadMemory for a tool
// call whose arguments stream as 1,000 TOOL_CALL_ARGS deltas: JSON text,
// so escaped, and no two alike. Every delta takes the general decoder.
func BenchmarkClientReadMemoryToolArgs(b *testing.B) {
	var body bytes.Buffer
	body.WriteString("data: " + runStarted + "\n\n")
	body.WriteString(`data: {"type":"TOOL_CALL_START","toolCallId":"call-7f3a","toolCallName":"search"}` + "\n\n")
	for i := range 1000 {
		fmt.Fprintf(&body, `data: {"type":"TOOL_CALL_ARGS","toolCallId":"call-7f3a","delta":"\"q%d\": \"item %d\", "}`+"\n\n", i, i)
	}
	body.WriteString(`data: {"type":"TOOL_CALL_END","toolCallId":"call-7f3a"}` + "\n\n")
	body.WriteString("data: " + runFinished + "\n\n")
	benchReadMemory(b, body.Bytes())
}

// benchReadMemory times Client.Run over body, a 1,004-frame run.
func benchReadMemory(b *testing.B, body []byte) {
	const frames = 1004
	c, err := client.New("http://agent.invalid/", client.WithHTTPClient(&http.Client{Transport: memoryTransport(body)}))
	if err != nil {
		b.Fatal(err)
	}
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := startCPU()
	for b.Loop() {
		n := 0
		for _, err := range c.Run(ctx, in) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != frames {
			b.Fatalf("%d events, want %d", n, frames)
		}
	}
	cpuNs := cpuNow() - cpu.start
	runtime.ReadMemStats(&after)
	perFrame := float64(b.N * frames)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perFrame, "ns/frame")
	b.ReportMetric(float64(cpuNs.Nanoseconds())/perFrame, "cpu-ns/frame")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/perFrame, "allocs/frame")
}
