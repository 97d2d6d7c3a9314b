package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	cclient "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/client/sse"
	cevents "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/events"
	ctypes "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/types"
	cencoder "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/encoding/encoder"
	csse "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/encoding/sse"
	"github.com/sirupsen/logrus"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
)

// Every benchmark has an "agui-go" and a "community" sub-benchmark (and
// sometimes a baseline): with -count > 1 the sides alternate, so that a
// change in the machine's load falls on both (the comparison is a ratio
// of figures from the same run).

// cpuNow is the process's CPU time, user and system. On a shared machine
// wall time also counts waiting for a core; CPU per op (cpu-ns/op) is the
// work done, and it is what BENCHMARKS.md prefers.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time since start per op, or per unit when an
// op is per units (a run of deltas, say) and unit is not "op".
func reportCPU(b *testing.B, start time.Duration, per int, unit string) {
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N)/float64(per), "cpu-ns/"+unit)
}

// BenchmarkEmitDelta is one text delta emitted into a writer that drops
// it: for agui-go its HTTP handler (helper, verifier, encoding, buffered
// flush), for the community SDK its SSEWriter with a fresh event (how an
// agent produces each delta with it).
func BenchmarkEmitDelta(b *testing.B) { benchEmit(b, delta) }

// BenchmarkEmitEscapedDelta is BenchmarkEmitDelta with the escape-heavy
// delta: quotes, backslashes, control characters and multi-byte UTF-8 take
// the encoders off their fast path of bytes copied as they are.
func BenchmarkEmitEscapedDelta(b *testing.B) { benchEmit(b, escapedDelta) }

func benchEmit(b *testing.B, text string) {
	b.Run("agui-go", func(b *testing.B) {
		b.ReportAllocs()
		var cpu time.Duration
		agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			m, err := rc.StartTextMessage(server.WithID(messageID))
			if err != nil {
				return server.Outcome{}, err
			}
			b.ResetTimer()
			cpu = cpuNow()
			for range b.N {
				if err := m.Append(text); err != nil {
					return server.Outcome{}, err
				}
			}
			reportCPU(b, cpu, 1, "op")
			b.StopTimer()
			return server.Success(), m.End()
		})
		w := newDiscardWriter()
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(runInput))
		req.Header.Set("Content-Type", "application/json")
		server.NewHandler(agent).ServeHTTP(w, req)
		if w.n < b.N*len(text) {
			b.Fatalf("%d bytes written for %d deltas", w.n, b.N)
		}
	})
	b.Run("community", func(b *testing.B) {
		b.ReportAllocs()
		ctx := context.Background()
		sw := csse.NewSSEWriter()
		w := newDiscardWriter()
		cpu := cpuNow()
		for b.Loop() {
			ev := cevents.NewTextMessageContentEvent(messageID, text)
			untimed(ev.BaseEvent)
			if err := sw.WriteEvent(ctx, w, ev); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu, 1, "op")
		if w.n < b.N*len(text) {
			b.Fatalf("%d bytes written for %d deltas", w.n, b.N)
		}
	})
}

// BenchmarkEncodeDelta is the encoding alone: a built TEXT_MESSAGE_CONTENT
// to its JSON bytes (agui-go's generated AppendJSON into a reused buffer;
// the community encoder's EncodeEvent, which validates, then marshals).
func BenchmarkEncodeDelta(b *testing.B) {
	b.Run("agui-go", func(b *testing.B) {
		ev := &agui.TextMessageContent{MessageID: messageID, Delta: delta}
		buf := make([]byte, 0, 256)
		b.ReportAllocs()
		cpu := cpuNow()
		for b.Loop() {
			var err error
			if buf, err = ev.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu, 1, "op")
		b.SetBytes(int64(len(buf)))
	})
	b.Run("community", func(b *testing.B) {
		ctx := context.Background()
		enc := cencoder.NewEventEncoder()
		ev := cevents.NewTextMessageContentEvent(messageID, delta)
		untimed(ev.BaseEvent)
		var out []byte
		b.ReportAllocs()
		cpu := cpuNow()
		for b.Loop() {
			var err error
			if out, err = enc.EncodeEvent(ctx, ev, "application/json"); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu, 1, "op")
		b.SetBytes(int64(len(out)))
	})
}

// Encoding alone produces the same JSON on both sides.
func TestEncodingsAreEqual(t *testing.T) {
	ours, err := (&agui.TextMessageContent{MessageID: messageID, Delta: delta}).AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := cevents.NewTextMessageContentEvent(messageID, delta)
	untimed(ev.BaseEvent)
	theirs, err := cencoder.NewEventEncoder().EncodeEvent(context.Background(), ev, "application/json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, theirs) {
		t.Fatalf("agui-go %s\ncommunity %s", ours, theirs)
	}
}

// oursDeltaFrame is the frame agui-go's handler writes for one delta of
// text.
func oursDeltaFrame(t *testing.T, text string) []byte {
	frames := strings.SplitAfter(serve(t, server.NewHandler(oursAgent(1, text, nil))), "\n\n")
	return []byte(frames[2])
}

// communityDeltaFrame is the frame the community SSEWriter writes for one.
func communityDeltaFrame(t *testing.T, text string) []byte {
	var buf bytes.Buffer
	ev := cevents.NewTextMessageContentEvent(messageID, text)
	untimed(ev.BaseEvent)
	if err := csse.NewSSEWriter().WriteEvent(context.Background(), &buf, ev); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The yardsticks of the loopback run are net/http handlers that write
// agui-go's own frames, encoded beforehand, and do nothing else: what is
// left of a server once encoding, verifying and the SDK's bookkeeping are
// gone. They differ in how the bytes reach net/http, which is most of what
// a loopback run costs:
//
//   - noFlushHandler (plain-noflush) writes each frame and never flushes:
//     net/http sends its 4 KiB buffer whenever it fills, so a client sees
//     nothing of a slow stream until 4 KiB of it have built up. Cheap, but
//     not a streaming server; kept because earlier reports compared with it.
//   - flushHandler (plain-flush) writes and flushes each frame: the honest
//     streaming baseline, what a handler does when every event must reach
//     the client at once (the community SDK's writer does the same).
//   - piecesHandler (plain-pieces) writes the run in pieces as large as the
//     ones agui-go's handler hands net/http, flushing each: the cost of the
//     bytes and the system calls with nothing to encode, the limit a
//     coalescing server can approach.

// noFlushHandler writes the frames, one Write each, and never flushes.
func noFlushHandler(frames []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range frames {
			if _, err := io.WriteString(w, f); err != nil {
				return
			}
		}
	})
}

// flushHandler writes each frame and flushes it.
func flushHandler(frames []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
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

// aguiWritePiece is the most agui-go's handler hands net/http in one Write
// (writePiece in agui/server/handler.go, unexported there; change both
// together).
const aguiWritePiece = 32 << 10

// piecesHandler writes the frames joined, cut into pieces of
// aguiWritePiece bytes (wherever the cut falls, as agui-go's writer cuts),
// and flushes after each piece.
func piecesHandler(frames []string) http.Handler {
	body := []byte(strings.Join(frames, ""))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for rest := body; len(rest) > 0; {
			n := min(len(rest), aguiWritePiece)
			if _, err := w.Write(rest[:n]); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			rest = rest[n:]
		}
	})
}

// bodyHandler serves the same frames, joined, with one Write: net/http
// sends such a body in a few large system calls, so a client reading it
// spends its time on its own work (reading, framing, decoding, checking)
// rather than waiting for a server writing frame by frame, which alone
// takes about as long per frame as the whole read.
func bodyHandler(frames []string) http.Handler {
	body := []byte(strings.Join(frames, ""))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	})
}

// oursFrames is the body of agui-go's handler for an n-delta run, frame by
// frame.
func oursFrames(n int) []string { return oursTextFrames(n, delta) }

// oursTextFrames is oursFrames with deltas of text.
func oursTextFrames(n int, text string) []string {
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(runInput))
	req.Header.Set("Content-Type", "application/json")
	server.NewHandler(oursAgent(n, text, nil)).ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		panic(fmt.Sprintf("agui-go handler: %d %s", w.Code, w.Body))
	}
	frames := strings.SplitAfter(w.Body.String(), "\n\n")
	return frames[:len(frames)-1] // the empty string after the last frame
}

// BenchmarkLoopbackRun1000 is a whole run over loopback HTTP, request to
// last byte, of a 1,000-delta answer, read by the same neutral client
// (one op = one run; ns/delta and cpu-ns/delta reported). The plain-*
// sides are the yardsticks described above noFlushHandler; CPU per delta
// is the figure to compare, since the server and the client share the
// process and its two cores.
func BenchmarkLoopbackRun1000(b *testing.B) {
	frames := oursFrames(runDeltas)
	for _, side := range []struct {
		name string
		h    http.Handler
	}{
		{"plain-noflush", noFlushHandler(frames)},
		{"plain-flush", flushHandler(frames)},
		{"plain-pieces", piecesHandler(frames)},
		{"agui-go", oursHandler(runDeltas, nil)},
		{"community", communityHandler(runDeltas, nil)},
	} {
		b.Run(side.name, func(b *testing.B) {
			srv := httptest.NewServer(side.h)
			defer srv.Close()
			hc := srv.Client()
			ctx := context.Background()
			b.ReportAllocs()
			cpu := cpuNow()
			for b.Loop() {
				if err := neutralRun(ctx, hc, srv.URL, runDeltas+4); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu, runDeltas, "delta")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/runDeltas, "ns/delta")
		})
	}
}

// BenchmarkClientRead is each SDK's client reading a 1,000-delta run from
// a server that writes the whole body at once: framing, decoding and
// checking every frame (for agui-go its Client.Run, with the verifier; for
// the community SDK its SSE client, then its EventDecoder and each event's
// Validate, as its examples do, having no verifier). ns/frame and
// cpu-ns/frame are the figures. "neutral" is the floor: net/http and a
// line scanner reading the same body, decoding nothing. This is the best
// case of a client: the other ClientRead benchmarks are held against it.
func BenchmarkClientRead(b *testing.B) {
	benchClientRead(b, bodyHandler(oursFrames(runDeltas)), runDeltas+4)
}

// BenchmarkClientReadFrames is BenchmarkClientRead from a server that
// writes and flushes every frame (flushHandler), as a streaming server
// does when events come one at a time: the client's reads return a frame
// each instead of 4 KiB or more. The server's work is in the process's CPU
// time as well; the neutral reader's figure, beside the one from the
// whole-body server, shows how much of the difference any client pays.
func BenchmarkClientReadFrames(b *testing.B) {
	benchClientRead(b, flushHandler(oursFrames(runDeltas)), runDeltas+4)
}

// BenchmarkClientReadEscaped is BenchmarkClientRead (whole body) with the
// escape-heavy delta: each delta's JSON string has escapes to undo and
// UTF-8 to check.
func BenchmarkClientReadEscaped(b *testing.B) {
	benchClientRead(b, bodyHandler(oursTextFrames(runDeltas, escapedDelta)), runDeltas+4)
}

func benchClientRead(b *testing.B, h http.Handler, frames int) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	perFrame := func(b *testing.B, cpu time.Duration) {
		reportCPU(b, cpu, frames, "frame")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(frames), "ns/frame")
	}
	b.Run("agui-go", func(b *testing.B) {
		c, err := client.New(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		in := &agui.RunAgentInput{ThreadID: threadID, RunID: runID}
		b.ReportAllocs()
		cpu := cpuNow()
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
		perFrame(b, cpu)
	})
	b.Run("community", func(b *testing.B) {
		log := logrus.New()
		log.SetOutput(io.Discard)
		c := cclient.NewClient(cclient.Config{Endpoint: srv.URL, Logger: log})
		dec := cevents.NewEventDecoder(log)
		in := ctypes.RunAgentInput{ThreadID: threadID, RunID: runID}
		b.ReportAllocs()
		cpu := cpuNow()
		for b.Loop() {
			if n, err := communityRead(ctx, c, dec, in); err != nil {
				b.Fatal(err)
			} else if n != frames {
				b.Fatalf("%d events, want %d", n, frames)
			}
		}
		perFrame(b, cpu)
	})
	b.Run("neutral", func(b *testing.B) {
		hc := srv.Client()
		b.ReportAllocs()
		cpu := cpuNow()
		for b.Loop() {
			if err := neutralRun(ctx, hc, srv.URL, frames); err != nil {
				b.Fatal(err)
			}
		}
		perFrame(b, cpu)
	})
}

// communityRead reads one run with the community client and decodes and
// validates every frame, returning how many events it read.
func communityRead(ctx context.Context, c *cclient.Client, dec *cevents.EventDecoder, in ctypes.RunAgentInput) (int, error) {
	frames, errs, err := c.Stream(cclient.StreamOptions{Context: ctx, Payload: in})
	if err != nil {
		return 0, err
	}
	n := 0
	for f := range frames {
		var probe struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(f.Data, &probe); err != nil {
			return n, err
		}
		ev, err := dec.DecodeEvent(probe.Type, f.Data)
		if err != nil {
			return n, err
		}
		if err := ev.Validate(); err != nil {
			return n, err
		}
		n++
	}
	for err := range errs {
		return n, err
	}
	return n, nil
}

// The two clients read the same events from the benchmark's stream.
func TestClientsReadTheSameEvents(t *testing.T) {
	frames := oursFrames(20)
	srv := httptest.NewServer(noFlushHandler(frames))
	defer srv.Close()
	ctx := context.Background()
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	for d, err := range c.Run(ctx, &agui.RunAgentInput{ThreadID: threadID, RunID: runID}) {
		ev := d.Event
		if err != nil {
			t.Fatal(err)
		}
		data, err := agui.AppendEvent(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		ours = append(ours, string(data))
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	n, err := communityRead(ctx, cclient.NewClient(cclient.Config{Endpoint: srv.URL, Logger: log}), cevents.NewEventDecoder(log), ctypes.RunAgentInput{ThreadID: threadID, RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	if len(ours) != len(frames) || n != len(frames) {
		t.Fatalf("agui-go read %d events, community %d, of %d frames", len(ours), n, len(frames))
	}
	for i, f := range frames {
		if want := strings.TrimSuffix(strings.TrimPrefix(f, "data: "), "\n\n"); ours[i] != want {
			t.Errorf("event %d: read back as %s, sent %s", i, ours[i], want)
		}
	}
}

// BenchmarkIdleRun is the memory an open run costs while its agent waits:
// idleRuns runs are opened at once, each past RUN_STARTED, and the growth of
// the heap and stacks in use (server and the neutral client, the client the
// same on both sides) is reported per run as bytes/run. The connections
// are kept alive from a first round, so the figure is the run's own cost
// on top of net/http's per-connection cost, which both sides share.
func BenchmarkIdleRun(b *testing.B) {
	for _, side := range []struct {
		name string
		h    func(wait func(context.Context)) http.Handler
	}{
		{"agui-go", func(wait func(context.Context)) http.Handler { return oursHandler(1, wait) }},
		{"community", func(wait func(context.Context)) http.Handler { return communityHandler(1, wait) }},
	} {
		b.Run(side.name, func(b *testing.B) {
			var total float64
			for b.Loop() {
				total += idleRunBytes(b, side.h)
			}
			b.ReportMetric(total/float64(b.N), "bytes/run")
		})
	}
}

const idleRuns = 100

func idleRunBytes(b *testing.B, handler func(wait func(context.Context)) http.Handler) float64 {
	// Each round of runs waits on its own gate.
	var gate atomic.Pointer[chan struct{}]
	wait := func(ctx context.Context) {
		select {
		case <-*gate.Load():
		case <-ctx.Done():
		}
	}
	srv := httptest.NewServer(handler(wait))
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: idleRuns}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	round := func(runs int, measure func()) {
		release := make(chan struct{})
		gate.Store(&release)
		var opened, done sync.WaitGroup
		errs := make(chan error, runs)
		for range runs {
			opened.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				if err := idleRun(hc, srv.URL, opened.Done); err != nil {
					errs <- err
				}
			}()
		}
		opened.Wait()
		measure()
		close(release)
		done.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
	// A first round opens the connections and warms the pools, so that
	// one-off costs are not counted; the second is measured.
	round(idleRuns, func() {})
	before := inUse()
	var after int64
	round(idleRuns, func() { after = inUse() })
	return float64(after-before) / idleRuns
}

// idleRun is the neutral client of the idle measurement: it calls open
// once RUN_STARTED has arrived, then reads the rest of the run (which
// the server sends after release is closed).
func idleRun(hc *http.Client, url string, open func()) error {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(runInput))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		open()
		return err
	}
	defer resp.Body.Close()
	buf := make([]byte, 4096)
	var got []byte
	for !bytes.Contains(got, []byte("\n\n")) {
		n, err := resp.Body.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if open != nil {
				open()
			}
			return fmt.Errorf("before RUN_STARTED: %w", err)
		}
	}
	if !bytes.Contains(got, []byte(`"RUN_STARTED"`)) {
		return fmt.Errorf("first frame %q", got)
	}
	open()
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if !bytes.Contains(append(got, rest...), []byte(`"RUN_FINISHED"`)) {
		return fmt.Errorf("run ended without RUN_FINISHED")
	}
	return nil
}

// inUse is the heap and stack memory in use after a collection.
func inUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}
