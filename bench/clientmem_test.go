package bench

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// The loopback client reads (ClientRead, ClientReadFrames) carry the
// server's and the socket's CPU time: from a server that flushes every
// frame, each frame costs a system call on both ends and a wake-up of the
// reading goroutine, which depend on how the two goroutines meet on the
// cores more than on either's work, so the client's share cannot be told
// from them (the neutral reader alone costs some 30 times more per frame
// there than on a whole body, and as unsteadily). BenchmarkClientReadMemory
// takes the socket away: an http.RoundTripper answers from memory, handing
// the client the run's body whole, or one frame per Read as a socket would
// from a server that flushes each frame, or whole with escape-heavy
// deltas. What is left is each client's own work, per read and per frame.

// memTransport answers every request with the same pieces, one per Read:
// the run's frames, or its whole body as one piece.
type memTransport struct{ pieces []string }

func newMemTransport(frames []string, perFrame bool) memTransport {
	if perFrame {
		return memTransport{frames}
	}
	return memTransport{[]string{strings.Join(frames, "")}}
}

func (t memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    &pieceReader{pieces: t.pieces},
		Request: req, ContentLength: -1,
	}, nil
}

// pieceReader returns its pieces in order, never more than one per Read.
type pieceReader struct {
	pieces []string
	cur    string
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if r.cur == "" {
		if len(r.pieces) == 0 {
			return 0, io.EOF
		}
		r.cur, r.pieces = r.pieces[0], r.pieces[1:]
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

func (r *pieceReader) Close() error { return nil }

// memCases are the bodies of BenchmarkClientReadMemory: "body" is the
// best case the others are held against.
var memCases = []struct {
	name     string
	text     string
	perFrame bool
}{
	{"body", delta, false},
	{"frames", delta, true},
	{"escaped", escapedDelta, false},
}

// BenchmarkClientReadMemory is agui-go's client (Client.Run, verifier
// included) and the neutral reader reading a 1,000-delta run through an
// in-memory transport: whole, one frame per Read, and whole with
// escape-heavy deltas (cpu-ns/frame and ns/frame).
func BenchmarkClientReadMemory(b *testing.B) {
	ctx := context.Background()
	for _, mc := range memCases {
		frames := oursTextFrames(runDeltas, mc.text)
		hc := &http.Client{Transport: newMemTransport(frames, mc.perFrame)}
		perFrame := func(b *testing.B, cpu0 int64) {
			b.ReportMetric(float64(int64(cpuNow())-cpu0)/float64(b.N)/float64(len(frames)), "cpu-ns/frame")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(frames)), "ns/frame")
		}
		b.Run(mc.name+"/agui-go", func(b *testing.B) {
			c, err := client.New("http://agent.invalid/", client.WithHTTPClient(hc))
			if err != nil {
				b.Fatal(err)
			}
			in := &agui.RunAgentInput{ThreadID: threadID, RunID: runID}
			b.ReportAllocs()
			cpu := int64(cpuNow())
			for b.Loop() {
				n := 0
				for _, err := range c.Run(ctx, in) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != len(frames) {
					b.Fatalf("%d events, want %d", n, len(frames))
				}
			}
			perFrame(b, cpu)
		})
		b.Run(mc.name+"/neutral", func(b *testing.B) {
			b.ReportAllocs()
			cpu := int64(cpuNow())
			for b.Loop() {
				if err := neutralRun(ctx, hc, "http://agent.invalid/", len(frames)); err != nil {
					b.Fatal(err)
				}
			}
			perFrame(b, cpu)
		})
	}
}

// The in-memory transport hands over the run exactly, in the pieces asked
// for, and agui-go's client reads every event of it each way.
func TestMemTransportDeliversTheRun(t *testing.T) {
	for _, mc := range memCases {
		frames := oursTextFrames(20, mc.text)
		tr := newMemTransport(frames, mc.perFrame)
		req, err := http.NewRequest(http.MethodPost, "http://agent.invalid/", strings.NewReader(runInput))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		reads, buf := 0, make([]byte, 64<<10)
		var body strings.Builder
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				reads++
				body.Write(buf[:n])
			}
			if err == io.EOF {
				break
			}
		}
		if want := map[bool]int{false: 1, true: len(frames)}[mc.perFrame]; reads != want {
			t.Errorf("%s: %d reads, want %d", mc.name, reads, want)
		}
		if body.String() != strings.Join(frames, "") {
			t.Errorf("%s: the body differs from the run", mc.name)
		}
		c, err := client.New("http://agent.invalid/", client.WithHTTPClient(&http.Client{Transport: tr}))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, err := range c.Run(context.Background(), &agui.RunAgentInput{ThreadID: threadID, RunID: runID}) {
			if err != nil {
				t.Fatalf("%s: %v", mc.name, err)
			}
			n++
		}
		if n != len(frames) {
			t.Errorf("%s: %d events of %d", mc.name, n, len(frames))
		}
	}
}
