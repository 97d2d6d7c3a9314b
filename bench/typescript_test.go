package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/internal/interop"
)

// The TypeScript figures come from internal/interop/node/peerbench.mjs,
// run on the SDK's pinned Node packages (npm ci from their lock file on
// first use). Each benchmark pairs one with the agui-go path doing the same
// work, so the two land in the same run.

// tsResult is what peerbench.mjs prints.
type tsResult struct {
	NsPerOp    float64         `json:"nsPerOp"`
	CPUNsPerOp float64         `json:"cpuNsPerOp"`
	Check      json.RawMessage `json:"check"`
}

// runTS runs peerbench.mjs with args; tb skips when Node is missing.
func runTS(tb testing.TB, args ...string) tsResult {
	tb.Helper()
	dir, err := interop.NodeDir()
	if err != nil {
		tb.Skip(err)
	}
	cmd := exec.Command("node", append([]string{"peerbench.mjs"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			tb.Fatalf("peerbench.mjs %v: %v\n%s", args, err, ee.Stderr)
		}
		tb.Fatalf("peerbench.mjs %v: %v", args, err)
	}
	var r tsResult
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("peerbench.mjs %v printed %q: %v", args, out, err)
	}
	return r
}

// reportTS reports the best of the node runs the benchmark loop made.
func reportTS(b *testing.B, args []string, check func(tsResult)) {
	best := tsResult{}
	for b.Loop() {
		r := runTS(b, args...)
		check(r)
		if best.NsPerOp == 0 || r.NsPerOp < best.NsPerOp {
			best.NsPerOp = r.NsPerOp
		}
		if best.CPUNsPerOp == 0 || r.CPUNsPerOp < best.CPUNsPerOp {
			best.CPUNsPerOp = r.CPUNsPerOp
		}
	}
	b.ReportMetric(0, "ns/op") // the process start is not the figure
	b.ReportMetric(best.NsPerOp, "ns/frame")
	b.ReportMetric(best.CPUNsPerOp, "cpu-ns/frame")
}

// oursFrame is agui-go's encoding of the delta as an SSE frame.
func oursFrame(dst []byte, ev *agui.TextMessageContent, scratch []byte) ([]byte, []byte, error) {
	data, err := ev.AppendJSON(scratch[:0])
	if err != nil {
		return dst, data, err
	}
	return sse.AppendFrame(dst[:0], data), data, nil
}

// BenchmarkEncodeFrame is one TEXT_MESSAGE_CONTENT to its SSE frame: the
// work of @ag-ui/encoder's EventEncoder.encode (ns/frame; one op = one
// frame).
func BenchmarkEncodeFrame(b *testing.B) {
	b.Run("agui-go", func(b *testing.B) {
		ev := &agui.TextMessageContent{MessageID: messageID, Delta: delta}
		frame, scratch := make([]byte, 0, 256), make([]byte, 0, 256)
		b.ReportAllocs()
		cpu := cpuNow()
		for b.Loop() {
			var err error
			if frame, scratch, err = oursFrame(frame, ev, scratch); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu, 1, "frame")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/frame")
	})
	b.Run("typescript", func(b *testing.B) {
		want := strconv.Quote(string(tsWantFrame(b)))
		reportTS(b, []string{"encode"}, func(r tsResult) {
			if string(r.Check) != want {
				b.Fatalf("the TypeScript encoder wrote %s, want %s", r.Check, want)
			}
		})
	})
}

func tsWantFrame(tb testing.TB) []byte {
	frame, _, err := oursFrame(nil, &agui.TextMessageContent{MessageID: messageID, Delta: delta}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return frame
}

// BenchmarkPipelineRead is the client's read pipeline over a 1,000-delta
// run held in memory: framing, decoding and verifying each frame, no HTTP
// (ns/frame). agui-go: sse.Reader and client.Pipeline, as Client.Run
// drives them; TypeScript: transformHttpEventStream, transformChunks and
// verifyEvents, as runAgent applies them. The community SDK has no such
// pipeline apart from its HTTP client (see BenchmarkClientRead).
func BenchmarkPipelineRead(b *testing.B) {
	frames := oursFrames(runDeltas)
	body := []byte(strings.Join(frames, ""))
	b.Run("agui-go", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuNow()
		for b.Loop() {
			if n, err := pipelineRead(body); err != nil {
				b.Fatal(err)
			} else if n != len(frames) {
				b.Fatalf("%d events, want %d", n, len(frames))
			}
		}
		reportCPU(b, cpu, len(frames), "frame")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(frames)), "ns/frame")
	})
	b.Run("typescript", func(b *testing.B) {
		reportTS(b, []string{"read", strconv.Itoa(runDeltas)}, func(r tsResult) {
			if string(r.Check) != strconv.Itoa(len(frames)) {
				b.Fatalf("the TypeScript pipeline delivered %s events, want %d", r.Check, len(frames))
			}
		})
	})
}

// pipelineRead runs agui-go's read pipeline over body and counts events.
func pipelineRead(body []byte) (int, error) {
	p, err := client.NewPipeline()
	if err != nil {
		return 0, err
	}
	r := sse.NewReader(bytes.NewReader(body))
	n := 0
	count := func(agui.Event) bool { n++; return true }
	for {
		f, err := r.Next()
		if err == io.EOF {
			return n, p.Finish()
		}
		if err != nil {
			return n, err
		}
		if err := p.Push(f, count); err != nil {
			return n, err
		}
	}
}

// The TypeScript encoder writes the same frame as agui-go for the
// payload, and its read pipeline delivers every event of the same run.
func TestTypeScriptDoesTheSameWork(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Node")
	}
	if r := runTS(t, "encode", "10"); string(r.Check) != strconv.Quote(string(tsWantFrame(t))) {
		t.Errorf("the TypeScript encoder wrote %s, agui-go %q", r.Check, tsWantFrame(t))
	}
	if r := runTS(t, "read", "20"); string(r.Check) != "24" {
		t.Errorf("the TypeScript pipeline delivered %s events of 24", r.Check)
	}
	n, err := pipelineRead([]byte(strings.Join(oursFrames(20), "")))
	if err != nil || n != 24 {
		t.Errorf("agui-go's pipeline delivered %d events of 24: %v", n, err)
	}
}
