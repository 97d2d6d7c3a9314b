package client_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// The shape benchmarks read the same 1,000-delta run (1,004 frames) in the
// three shapes a client meets, side by side:
//
//   - whole: the body in one write, so reads return many frames each (the
//     best case);
//   - frames: a server that writes and flushes every frame, as a streaming
//     server does when events come one at a time, so that each read
//     returns one frame;
//   - escaped: the whole body again, with deltas full of escapes (\", \n,
//     \t, \\) and multi-byte UTF-8, as a model writing code or prose in
//     another script streams them.
//
// One op is one run; cpu-ns/frame (the process's CPU time) and ns/frame
// are the figures, the run's setup spread over its frames.

// shapeServerEnv, set in the environment, makes the test binary the server
// of BenchmarkClientReadShapes (see TestMain).
const shapeServerEnv = "AGUI_CLIENT_SHAPE_SERVER"

var shapes = []string{"whole", "frames", "escaped"}

// BenchmarkClientReadShapes is Client.Run over loopback HTTP from a
// net/http server in a child process, so that the CPU time is the
// client's alone: a server flushing every frame spends several times the
// client's work on its own system calls, and in the same process that
// would bury the client's figure. "neutral" beside each is the floor any
// client pays for the shape: net/http and a line scanner counting data
// lines, decoding nothing. agui-go's figure less the neutral one is the
// SDK's own work.
func BenchmarkClientReadShapes(b *testing.B) {
	url := startShapeServer(b)
	for _, shape := range shapes {
		b.Run(shape+"/agui-go", func(b *testing.B) {
			c, err := client.New(url + "/" + shape)
			if err != nil {
				b.Fatal(err)
			}
			benchRun(b, c)
		})
		b.Run(shape+"/neutral", func(b *testing.B) { benchNeutral(b, url+"/"+shape) })
	}
}

// BenchmarkClientReadMemoryShapes is BenchmarkClientReadShapes with the
// body in memory (no socket, no system call, no wake-up): what remains is
// the client's own work for each shape. For "frames" every Read of the
// body returns one frame.
func BenchmarkClientReadMemoryShapes(b *testing.B) {
	for _, shape := range shapes {
		b.Run(shape, func(b *testing.B) {
			var rt http.RoundTripper = memoryTransport(strings.Join(shapeFrames(shape), ""))
			if shape == "frames" {
				rt = framesTransport(shapeFrames(shape))
			}
			c, err := client.New("http://agent.invalid/", client.WithHTTPClient(&http.Client{Transport: rt}))
			if err != nil {
				b.Fatal(err)
			}
			benchRun(b, c)
		})
	}
}

// shapeFrames is the run a shape serves, frame by frame.
func shapeFrames(shape string) []string {
	body := sseRun1000()
	if shape == "escaped" {
		body = escapedRun1000()
	}
	f := strings.SplitAfter(string(body), "\n\n")
	return f[:len(f)-1] // the empty string after the last frame
}

// escapedDelta is the escape-heavy delta frame.
const escapedDelta = `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"He said \"héllo\"\n\tC:\\tmp — 世界 🙂 "}` + "\n\n"

func escapedRun1000() []byte {
	return bytes.ReplaceAll(sseRun1000(), []byte(benchDelta), []byte(escapedDelta))
}

// serveShapes is the child process of BenchmarkClientReadShapes: it serves
// each shape at /<shape> on a loopback port, writes the server's URL on a
// line of its own, and runs until its standard input closes.
func serveShapes() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	mux := http.NewServeMux()
	for _, shape := range shapes {
		frames := shapeFrames(shape)
		whole := strings.Join(frames, "")
		mux.HandleFunc("/"+shape, func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			if shape != "frames" {
				w.Header().Set("Content-Length", strconv.Itoa(len(whole)))
				io.WriteString(w, whole)
				return
			}
			rc := http.NewResponseController(w)
			for _, f := range frames {
				if _, err := io.WriteString(w, f); err != nil {
					return
				}
				if err := rc.Flush(); err != nil {
					return
				}
			}
		})
	}
	go http.Serve(ln, mux)
	os.Stdout.WriteString("http://" + ln.Addr().String() + "\n")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// startShapeServer starts serveShapes in a child process, stopped when the
// benchmark ends, and returns its URL.
func startShapeServer(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), shapeServerEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("the shape server did not start: %v", err)
	}
	return strings.TrimSpace(line)
}

const shapeRunFrames = 1004

// benchRun times whole runs of c, each of shapeRunFrames events.
func benchRun(b *testing.B, c *client.Client) {
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
	ctx := context.Background()
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		n := 0
		for _, err := range c.Run(ctx, in) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != shapeRunFrames {
			b.Fatalf("%d events, want %d", n, shapeRunFrames)
		}
	}
	reportPerFrame(b, cpu)
}

// benchNeutral times the neutral reader on url.
func benchNeutral(b *testing.B, url string) {
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"threadId":"t","runId":"r"}`))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if bytes.HasPrefix(sc.Bytes(), []byte("data:")) {
				n++
			}
		}
		resp.Body.Close()
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
		if n != shapeRunFrames {
			b.Fatalf("%d frames, want %d", n, shapeRunFrames)
		}
	}
	reportPerFrame(b, cpu)
}

func reportPerFrame(b *testing.B, cpu cpuClock) {
	per := float64(b.N * shapeRunFrames)
	b.ReportMetric(float64((cpuNow()-cpu.start).Nanoseconds())/per, "cpu-ns/frame")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/frame")
}

// frameReader is a body whose every Read returns at most one frame, as a
// socket does from a server that flushes each.
type frameReader struct {
	frames []string
	i, off int
}

func (r *frameReader) Read(p []byte) (int, error) {
	if r.i == len(r.frames) {
		return 0, io.EOF
	}
	n := copy(p, r.frames[r.i][r.off:])
	r.off += n
	if r.off == len(r.frames[r.i]) {
		r.i, r.off = r.i+1, 0
	}
	return n, nil
}

// framesTransport is memoryTransport with a frameReader body.
type framesTransport []string

func (m framesTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp := answer(r, "text/event-stream", nil)
	resp.Body = io.NopCloser(&frameReader{frames: m})
	return resp, nil
}
