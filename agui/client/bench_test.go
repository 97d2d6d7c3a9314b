package client_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/agui/sse"
)

const (
	benchDeltaJSON = `{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello, world! "}`
	benchDelta     = "data: " + benchDeltaJSON + "\n\n"
)

// cpuClock measures the process's CPU time (user and system, GC included)
// across a benchmark loop. On a shared machine wall time also counts the
// time the benchmark waited for a core; CPU time per op is the work done,
// and it is reported beside ns/op as cpu-ns/op.
type cpuClock struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock{cpuNow()} }

func (c cpuClock) report(b *testing.B, n int) {
	b.ReportMetric(float64(cpuNow()-c.start)/float64(n), "cpu-ns/op")
}

// repeatReader yields prefix once, then frame forever.
type repeatReader struct {
	prefix, frame []byte
	off           int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.prefix) > 0 {
			c := copy(p[n:], r.prefix)
			r.prefix = r.prefix[c:]
			n += c
			continue
		}
		c := copy(p[n:], r.frame[r.off:])
		r.off = (r.off + c) % len(r.frame)
		n += c
	}
	return n, nil
}

// BenchmarkClientReadDelta is the steady-state cost of one text delta on
// the client: SSE parse, compatibility check, lenient decode, chunk
// expansion, client verification and the reducer (one op = one delta).
// The reducer starts a fresh answer every 1,000 deltas, inside the timed
// loop, so that the figure is for answers of a realistic size rather than
// one message growing without end.
func BenchmarkClientReadDelta(b *testing.B) {
	benchReadDelta(b, benchDelta)
}

// BenchmarkClientReadDeltaProto is BenchmarkClientReadDelta over the
// protobuf binding: the same delta, length-prefixed, read by the
// protoframe reader and pushed with PushProto (which turns it into the JSON
// the other benchmark reads, then runs the same stages).
func BenchmarkClientReadDeltaProto(b *testing.B) {
	open := protoBody(b, runStarted, `{"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}`)
	frame := protoBody(b, benchDeltaJSON)
	r := protoframe.NewReader(&repeatReader{prefix: open, frame: frame})
	p, _ := client.NewPipeline()
	benchPipeline(b, len(frame), r.Next, p.PushProto)
}

// BenchmarkClientReadDeltaGeneral is the same with a frame the fast path
// does not take (a space after each colon), so every delta goes through
// the general lenient decoder: the cost the fast path saves.
func BenchmarkClientReadDeltaGeneral(b *testing.B) {
	benchReadDelta(b, `data: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-1", "delta": "Hello, world! "}`+"\n\n")
}

func benchReadDelta(b *testing.B, benchDelta string) {
	open := "data: " + runStarted + "\n\n" + `data: {"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}` + "\n\n"
	r := sse.NewReader(&repeatReader{prefix: []byte(open), frame: []byte(benchDelta)})
	p, _ := client.NewPipeline()
	benchPipeline(b, len(benchDelta), r.Next, p.Push)
}

// benchPipeline reads two opening frames, then times one delta frame per
// op through push and the reducer.
func benchPipeline(b *testing.B, frameLen int, next func() ([]byte, error), push func([]byte, func(agui.Event) bool) error) {
	var conv *conversation.Conversation
	fresh := func() {
		conv = conversation.New(nil, nil)
		conv.Apply(&agui.TextMessageStart{MessageID: "msg-1"})
	}
	fresh()
	sink := func(ev agui.Event) bool {
		if ws := conv.Apply(ev); ws != nil {
			b.Fatal(ws)
		}
		return true
	}
	for range 2 {
		f, _ := next()
		if err := push(f, func(agui.Event) bool { return true }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.SetBytes(int64(frameLen))
	n := 0
	cpu := startCPU()
	for b.Loop() {
		f, err := next()
		if err != nil {
			b.Fatal(err)
		}
		if err := push(f, sink); err != nil {
			b.Fatal(err)
		}
		if n++; n == 1000 {
			n = 0
			fresh()
		}
	}
	cpu.report(b, b.N)
}

// BenchmarkBaselineNaiveRead is the in-run baseline: what a hand-rolled
// client does per frame (split lines, json.Unmarshal into a struct), with no
// verification at all.
func BenchmarkBaselineNaiveRead(b *testing.B) {
	sc := bufio.NewScanner(&repeatReader{frame: []byte(benchDelta)})
	b.ReportAllocs()
	b.SetBytes(int64(len(benchDelta)))
	var ev struct {
		Type      string `json:"type"`
		MessageID string `json:"messageId"`
		Delta     string `json:"delta"`
	}
	cpu := startCPU()
	for b.Loop() {
		for sc.Scan() {
			line := sc.Bytes()
			if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				if err := json.Unmarshal(data, &ev); err != nil {
					b.Fatal(err)
				}
				break
			}
		}
	}
	cpu.report(b, b.N)
}

// BenchmarkLoopbackRun1000 is a whole Agent run over loopback HTTP: a
// request, a 1,000-delta answer, everything the client does with it, the
// reducer included (one op = one run; ns/delta reported).
func BenchmarkLoopbackRun1000(b *testing.B) {
	benchLoopback(b, "text/event-stream", sseRun1000())
}

// BenchmarkLoopbackRun1000Proto is BenchmarkLoopbackRun1000 with the
// answer in protobuf.
func BenchmarkLoopbackRun1000Proto(b *testing.B) {
	docs := []string{runStarted, `{"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}`}
	for range 1000 {
		docs = append(docs, benchDeltaJSON)
	}
	docs = append(docs, `{"type":"TEXT_MESSAGE_END","messageId":"msg-1"}`, runFinished)
	benchLoopback(b, protoframe.MediaType, protoBody(b, docs...), client.WithProtobuf())
}

func sseRun1000() []byte {
	var body strings.Builder
	body.WriteString("data: " + runStarted + "\n\n")
	body.WriteString(`data: {"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}` + "\n\n")
	for range 1000 {
		body.WriteString(benchDelta)
	}
	body.WriteString(`data: {"type":"TEXT_MESSAGE_END","messageId":"msg-1"}` + "\n\n")
	body.WriteString("data: " + runFinished + "\n\n")
	return []byte(body.String())
}

// benchLoopback times whole Agent runs against a server answering payload.
func benchLoopback(b *testing.B, ct string, payload []byte, opts ...client.Option) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Length", strconv.Itoa(len(payload)))
		w.Write(payload)
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL, opts...)
	b.ReportAllocs()
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		a := c.NewThread()
		res, err := a.Run(context.Background(), client.RunParams{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.NewMessages) != 1 {
			b.Fatalf("%d messages", len(res.NewMessages))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/delta")
}
