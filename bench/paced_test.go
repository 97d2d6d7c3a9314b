package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server"
)

// The paced benchmarks measure latency, not throughput: an agent emits a
// text delta every pace, as a model streams tokens, on many streams at
// once, and each delta is timed from the moment the agent calls emit to the
// moment the client's read returns its frame. agui-go's handler gathers
// what is emitted within its flush latency into one write; the yardstick,
// pacedFlushHandler, writes and flushes every frame the moment it is
// emitted and does nothing else (its frames are encoded beforehand), so it
// is as early as a server can be. The client is the same neutral reader on
// both sides (net/http and a line scanner).
//
// How a read is matched to its emit: the server side notes when each
// emit began in a table shared with the client, indexed by stream and by
// the delta's place in the stream, and the client looks it up when it has
// read the frame (a stream's frames arrive in order, so the n-th delta the
// client reads is the n-th the agent emitted). Carrying the time in the
// delta's text would have done as well, but the frames would then differ
// from the ones every other benchmark sends, the yardstick could not write
// frames encoded beforehand, and the client would have to parse each one.
// Both ends read the same monotonic clock (time.Since of one base time).

// pacedRound is one round of a paced benchmark: streams runs at once, each
// emitting deltas deltas pace apart, stream s offset by s/streams of a pace
// so that the emits of many streams spread over the pace instead of falling
// at the same instant.
type pacedRound struct {
	base            time.Time // the origin of every reading
	pace            time.Duration
	streams, deltas int

	ready sync.WaitGroup // a stream is done with it when its server side waits at the gate
	gate  chan struct{}  // closed once every stream is ready
	start time.Time      // when stream 0 emits its first delta; set before gate is closed

	// emitted is when the emit call of each delta began, in ns since
	// base, by stream and by delta; 0 until then.
	emitted [][]atomic.Int64
	// late counts the emits that began more than a pace after their
	// slot: when it is not 0, the machine could not keep the pace, and the
	// latencies are those of a lighter load than the one asked for.
	late atomic.Int64
}

func newPacedRound(base time.Time, pace time.Duration, streams, deltas int) *pacedRound {
	r := &pacedRound{base: base, pace: pace, streams: streams, deltas: deltas, gate: make(chan struct{})}
	r.ready.Add(streams)
	r.emitted = make([][]atomic.Int64, streams)
	for s := range r.emitted {
		r.emitted[s] = make([]atomic.Int64, deltas)
	}
	return r
}

// emitPaced is the server side of stream s: once every stream is ready, it
// calls emit for each delta at its slot, noting when the call began.
func (r *pacedRound) emitPaced(ctx context.Context, s int, emit func() error) error {
	r.ready.Done()
	select {
	case <-r.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	first := r.start.Add(time.Duration(s) * r.pace / time.Duration(r.streams))
	for i := range r.deltas {
		slot := first.Add(time.Duration(i) * r.pace)
		if wait := time.Until(slot); wait > 0 {
			time.Sleep(wait)
		}
		now := time.Since(r.base)
		if now-slot.Sub(r.base) > r.pace {
			r.late.Add(1)
		}
		r.emitted[s][i].Store(int64(now))
		if err := emit(); err != nil {
			return err
		}
	}
	return nil
}

// pacedKey is the context key under which pacedServer passes each request
// its round and its stream number.
type pacedKey struct{}

type pacedStream struct {
	round *pacedRound
	s     int
}

// pacedServer hands each request the current round and the stream number
// the client put in its URL (?s=), so that the same handler, agui-go's or
// the yardstick, serves every stream of every round.
func pacedServer(cur *atomic.Pointer[pacedRound], h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := strconv.Atoi(r.URL.Query().Get("s"))
		round := cur.Load()
		if err != nil || round == nil || s < 0 || s >= round.streams {
			http.Error(w, "no such stream", http.StatusBadRequest)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), pacedKey{}, pacedStream{round, s})))
	})
}

// pacedOurs is agui-go's handler, as it ships, serving the paced agent.
func pacedOurs() http.Handler {
	return server.NewHandler(server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		ps := ctx.Value(pacedKey{}).(pacedStream)
		m, err := rc.StartTextMessage(server.WithID(messageID))
		if err != nil {
			return server.Outcome{}, err
		}
		if err := ps.round.emitPaced(ctx, ps.s, func() error { return m.Append(delta) }); err != nil {
			return server.Outcome{}, err
		}
		return server.Success(), m.End()
	}))
}

// pacedFlushHandler is the yardstick: agui-go's frames of the same run,
// encoded beforehand, each written and flushed the moment it is emitted.
func pacedFlushHandler() http.Handler {
	frames := oursFrames(1)
	head, deltaFrame, tail := strings.Join(frames[:2], ""), frames[2], strings.Join(frames[3:], "")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ps := r.Context().Value(pacedKey{}).(pacedStream)
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		write := func(f string) error {
			if _, err := io.WriteString(w, f); err != nil {
				return err
			}
			return rc.Flush()
		}
		if write(head) != nil {
			return
		}
		if ps.round.emitPaced(r.Context(), ps.s, func() error { return write(deltaFrame) }) != nil {
			return
		}
		_ = write(tail)
	})
}

// pacedClient is the neutral reader's side of the paced benchmarks: one
// connection per stream, kept from round to round, and a read buffer and
// a latency table per stream, reused, so that the rounds allocate little
// (a collection during a round adds its pause to some latencies).
type pacedClient struct {
	hc   *http.Client
	tr   *http.Transport
	url  string
	bufs [][]byte
	lat  [][]int64 // ns from emit to read, by stream and by delta
}

func newPacedClient(url string, streams, deltas int) *pacedClient {
	tr := &http.Transport{MaxIdleConnsPerHost: streams, DisableCompression: true}
	c := &pacedClient{hc: &http.Client{Transport: tr}, tr: tr, url: url,
		bufs: make([][]byte, streams), lat: make([][]int64, streams)}
	for s := range streams {
		c.bufs[s] = make([]byte, 4<<10)
		c.lat[s] = make([]int64, deltas)
	}
	return c
}

func (c *pacedClient) close() { c.tr.CloseIdleConnections() }

// round runs r: every stream opens, and once every server side waits at
// the gate, the pacing starts a millisecond later (time enough for every
// emitter to leave the gate). It returns the CPU time of the process from
// the gate to the last read. The latencies are in c.lat.
func (c *pacedClient) round(r *pacedRound) (time.Duration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan error, r.streams)
	var done sync.WaitGroup
	for s := range r.streams {
		done.Add(1)
		go func() {
			defer done.Done()
			if err := c.read(ctx, r, s); err != nil {
				errs <- fmt.Errorf("stream %d: %w", s, err)
				cancel() // the others' server sides leave the gate
			}
		}()
	}
	ready := make(chan struct{})
	go func() { r.ready.Wait(); close(ready) }()
	select {
	case <-ready:
	case err := <-errs:
		// A stream failed before its server side was ready: the
		// others stop at the gate with their requests' contexts; the
		// waiter above stays, but the benchmark fails anyway.
		done.Wait()
		return 0, err
	}
	cpu := cpuNow()
	r.start = time.Now().Add(time.Millisecond)
	close(r.gate)
	done.Wait()
	cpu = cpuNow() - cpu
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return cpu, errors.Join(all...)
}

// read is stream s of round r: a POST, then the body line by line to its
// end, noting for each delta the time from its emit to the return of the
// read that delivered its line. It fails unless every frame arrived, the
// deltas each after their emit.
func (c *pacedClient) read(ctx context.Context, r *pacedRound, s int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"?s="+strconv.Itoa(s), strings.NewReader(runInput))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(c.bufs[s], 64<<10)
	frames, deltas := 0, 0
	for sc.Scan() {
		now := int64(time.Since(r.base))
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("data:")) {
			continue
		}
		frames++
		if !bytes.Contains(line, []byte(`"TEXT_MESSAGE_CONTENT"`)) {
			continue
		}
		if deltas == r.deltas {
			return fmt.Errorf("more than %d deltas", r.deltas)
		}
		emitted := r.emitted[s][deltas].Load()
		if emitted == 0 || now < emitted {
			return fmt.Errorf("delta %d read at %d ns, emitted at %d", deltas, now, emitted)
		}
		c.lat[s][deltas] = now - emitted
		deltas++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if frames != r.deltas+4 || deltas != r.deltas {
		return fmt.Errorf("%d frames and %d deltas, want %d and %d", frames, deltas, r.deltas+4, r.deltas)
	}
	return nil
}

// pacedDeltas is how many deltas each stream emits in a round: a second's
// worth at the pace, but no more than 20,000 in all (1,000 streams at 1 ms
// would otherwise be a million), and at least 20. A round then lasts a
// second at most, with 1,000 streams 20 paces, and has at least 100
// deltas to take percentiles of: at 10 ms a single stream's p99 is the
// second slowest of its round.
func pacedDeltas(streams int, pace time.Duration) int {
	return max(20, min(20_000/streams, int(time.Second/pace)))
}

// pacedSides are the two servers of each paced benchmark.
var pacedSides = []struct {
	name string
	h    func() http.Handler
}{
	{"agui-go", pacedOurs},
	{"plain-flush", pacedFlushHandler},
}

// BenchmarkPacedLatency is the latency of each delta, emit to read, at a
// delta every 1 ms and every 10 ms, on 1, 100 and 1,000 streams at once,
// for agui-go's handler and for the write-and-flush yardstick: p50-µs and
// p99-µs over every delta of the benchmark's rounds (one op = one round,
// after a warm-up round that opens the connections). late-% is the share
// of the emits that began more than a pace late (the machine did not
// keep up), cpu-ns/delta the process's CPU time per delta during the
// rounds (server, client and pacing).
func BenchmarkPacedLatency(b *testing.B) {
	for _, pace := range []time.Duration{time.Millisecond, 10 * time.Millisecond} {
		for _, streams := range []int{1, 100, 1000} {
			for _, side := range pacedSides {
				b.Run(fmt.Sprintf("pace=%v/streams=%d/%s", pace, streams, side.name), func(b *testing.B) {
					benchPaced(b, side.h(), pace, streams, pacedDeltas(streams, pace))
				})
			}
		}
	}
}

func benchPaced(b *testing.B, h http.Handler, pace time.Duration, streams, deltas int) {
	var cur atomic.Pointer[pacedRound]
	srv := httptest.NewServer(pacedServer(&cur, h))
	defer srv.Close()
	c := newPacedClient(srv.URL, streams, deltas)
	defer c.close()
	base := time.Now()
	round := func(deltas int) (time.Duration, *pacedRound) {
		r := newPacedRound(base, pace, streams, deltas)
		cur.Store(r)
		cpu, err := c.round(r)
		if err != nil {
			b.Fatal(err)
		}
		return cpu, r
	}
	round(2) // opens the connections
	b.ResetTimer()
	b.StopTimer()
	lat := make([]int64, 0, b.N*streams*deltas)
	var cpu time.Duration
	var late int64
	for range b.N {
		runtime.GC() // the last round's garbage is not collected during this one
		b.StartTimer()
		used, r := round(deltas)
		b.StopTimer()
		cpu += used
		late += r.late.Load()
		for s := range streams {
			lat = append(lat, c.lat[s]...)
		}
	}
	if len(lat) != b.N*streams*deltas {
		b.Fatalf("%d latencies, want %d", len(lat), b.N*streams*deltas)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(percentile(lat, 50))/1e3, "p50-µs")
	b.ReportMetric(float64(percentile(lat, 99))/1e3, "p99-µs")
	b.ReportMetric(100*float64(late)/float64(len(lat)), "late-%")
	b.ReportMetric(float64(cpu)/float64(len(lat)), "cpu-ns/delta")
}

// percentile is the nearest-rank p-th percentile of sorted: the smallest
// value that at least p% of the values do not exceed.
func percentile(sorted []int64, p int) int64 {
	k := (len(sorted)*p + 99) / 100 // ceil(n·p/100)
	return sorted[max(k, 1)-1]
}

func TestPercentile(t *testing.T) {
	vs := make([]int64, 100)
	for i := range vs {
		vs[i] = int64(i + 1)
	}
	for _, c := range []struct {
		vs   []int64
		p    int
		want int64
	}{
		{vs, 50, 50}, {vs, 99, 99}, {vs, 100, 100}, {vs[:20], 99, 20}, {vs[:20], 50, 10}, {vs[:1], 99, 1},
	} {
		if got := percentile(c.vs, c.p); got != c.want {
			t.Errorf("p%d of 1..%d: %d, want %d", c.p, len(c.vs), got, c.want)
		}
	}
}

// A paced round of both servers delivers every delta of every stream after
// its emit: the benchmark's checks hold on a small round. (No figure is
// asserted: the machine is shared.)
func TestPacedRoundsReadEveryDelta(t *testing.T) {
	const streams, deltas = 3, 5
	for _, side := range pacedSides {
		t.Run(side.name, func(t *testing.T) {
			var cur atomic.Pointer[pacedRound]
			srv := httptest.NewServer(pacedServer(&cur, side.h()))
			defer srv.Close()
			c := newPacedClient(srv.URL, streams, deltas)
			defer c.close()
			base := time.Now()
			for range 2 { // the second round reuses the connections
				r := newPacedRound(base, time.Millisecond, streams, deltas)
				cur.Store(r)
				if _, err := c.round(r); err != nil {
					t.Fatal(err)
				}
				for s := range streams {
					for i, l := range c.lat[s] {
						if l <= 0 {
							t.Errorf("stream %d delta %d: latency %d ns", s, i, l)
						}
					}
				}
			}
		})
	}
}
