package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
)

// wireTap records the bytes a handler writes, per request, in order.
type wireTap struct {
	next   http.Handler
	mu     sync.Mutex
	bodies [][]byte
}

type tapWriter struct {
	http.ResponseWriter
	buf *bytes.Buffer
}

func (w tapWriter) Write(b []byte) (int, error) { w.buf.Write(b); return w.ResponseWriter.Write(b) }
func (w tapWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
func (w tapWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (t *wireTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	t.next.ServeHTTP(tapWriter{w, &buf}, r)
	t.mu.Lock()
	t.bodies = append(t.bodies, buf.Bytes())
	t.mu.Unlock()
}

func (t *wireTap) last() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.bodies) == 0 {
		return nil
	}
	return t.bodies[len(t.bodies)-1]
}

// proxied serves the demo behind a tap, and the inspector and its proxy
// in front of it.
func proxied(t *testing.T) (api, proxy string, tap *wireTap) {
	t.Helper()
	tap = &wireTap{next: server.NewHandler(demo.NewAgent(demo.Config{}))}
	agent := httptest.NewServer(tap)
	t.Cleanup(agent.Close)
	ctx, cancel := context.WithCancel(context.Background())
	in := newInspector(ctx, target{URL: agent.URL + "/agent"})
	rp, err := newRecordingProxy(in, agent.URL+"/agent")
	if err != nil {
		t.Fatal(err)
	}
	ps := httptest.NewServer(rp)
	is := httptest.NewServer(in.handler())
	in.proxy = ps.URL + "/"
	t.Cleanup(func() { cancel(); is.Close(); ps.Close() })
	return is.URL, ps.URL + "/", tap
}

// lastSession waits for the inspector's newest session to end.
func lastSession(t *testing.T, api string) framesPage {
	t.Helper()
	var list []sessionInfo
	getJSON(t, api+"/api/sessions", &list)
	if len(list) == 0 {
		t.Fatal("the proxy recorded no session")
	}
	return finished(t, api, list[len(list)-1].ID)
}

func TestInspectProxyBytesUnchanged(t *testing.T) {
	noLeaks(t)
	api, proxy, tap := proxied(t)
	for _, accept := range []string{"text/event-stream", "application/vnd.ag-ui.event+proto"} {
		body := `{"threadId":"t","runId":"r","protocolVersion":"1.1","state":{},"tools":[],"context":[],"forwardedProps":{},"messages":[{"id":"u","role":"user","content":"weather?"}]}`
		req, _ := http.NewRequest(http.MethodPost, proxy, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := tap.last(); !bytes.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: the front end got %d bytes, the agent wrote %d; equal: %v", accept, len(got), len(want), bytes.Equal(got, want))
		}
		p := lastSession(t, api)
		if p.Kind != kindProxy || !p.Verdicts["client"].OK || !p.Verdicts["server"].OK || p.Total < 20 {
			t.Errorf("%s: the recorded session: %+v", accept, p)
		}
	}
	// An agent that is not there: the front end gets a 502 with the JSON
	// error body, and the page a session that says why.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := newInspector(ctx, target{})
	// The proxy's port is taken before the unreachable one is freed: the
	// proxy must not be given it, or it would forward to itself.
	ps := httptest.NewUnstartedServer(nil)
	rp, _ := newRecordingProxy(in, badServers(t)["unreachable"])
	ps.Config.Handler = rp
	ps.Start()
	defer ps.Close()
	resp, err := http.Post(ps.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !bytes.Contains(b, []byte("cannot reach")) {
		t.Errorf("unreachable agent: %d %s", resp.StatusCode, b)
	}
	if len(in.sessions) != 1 || !strings.Contains(in.sessions[0].problem, "cannot reach") {
		t.Errorf("unreachable agent: sessions %+v", in.sessions)
	}
}

// nodeHttpAgent finds Node and the interop test's @ag-ui/client install;
// locally their absence skips, under CI it fails.
func nodeHttpAgent(t *testing.T) (node, dir string) {
	t.Helper()
	_, file, _, _ := goruntime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "internal", "interop", "node")
	missing := func(msg string) {
		msg += " (the proxy test runs the TypeScript HttpAgent of internal/interop/node: Node 20+ and npm ci there)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", "client", "package.json")); err != nil {
		missing("@ag-ui/client is not installed in " + dir)
	}
	return node, dir
}

// httpAgentRun is a run of the reference HttpAgent against url: the
// types of the events it saw, in order, its state and whether it failed.
const httpAgentRun = `
import { HttpAgent } from "@ag-ui/client";
const agent = new HttpAgent({ url: process.env.AGENT_URL, threadId: "t-proxy" });
agent.messages = [{ id: "u1", role: "user", content: "weather in Paris?" }];
const types = [];
let rejection = null;
try {
  await agent.runAgent({ runId: "r-proxy" }, { onEvent({ event }) { types.push(event.type); } });
} catch (e) { rejection = String(e); }
console.log(JSON.stringify({ types, rejection, state: agent.state }));
`

type httpAgentReport struct {
	Types     []string        `json:"types"`
	Rejection *string         `json:"rejection"`
	State     json.RawMessage `json:"state"`
}

func runHttpAgent(t *testing.T, url string) httpAgentReport {
	t.Helper()
	node, dir := nodeHttpAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "-e", httpAgentRun)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENT_URL="+url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, &stderr)
	}
	var r httpAgentReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("node printed %q: %v", out, err)
	}
	return r
}

func TestInspectProxyHttpAgent(t *testing.T) {
	noLeaks(t)
	api, proxy, tap := proxied(t)
	r := runHttpAgent(t, proxy)
	if r.Rejection != nil || len(r.Types) < 20 {
		t.Fatalf("the HttpAgent through the proxy: %+v", r)
	}
	p := lastSession(t, api)
	var recorded []string
	for _, f := range p.Frames {
		recorded = append(recorded, f.Type)
	}
	if !slices.Equal(recorded, r.Types) {
		t.Errorf("the inspector recorded\n%v\nthe HttpAgent saw\n%v", recorded, r.Types)
	}
	if !p.Verdicts["client"].OK || !p.Verdicts["server"].OK {
		t.Errorf("verdicts %+v", p.Verdicts)
	}
	// The agent's bytes, recorded as the inspector read them, are the wire.
	var wire bytes.Buffer
	for i := range p.Total {
		var d frameDetail
		getJSON(t, fmt.Sprintf("%s/api/sessions/%s/frames/%d", api, p.ID, i), &d)
		wire.WriteString(d.Wire)
	}
	if !bytes.Equal(wire.Bytes(), tap.last()) {
		t.Errorf("the frames' wire text (%d bytes) is not what the agent wrote (%d bytes)", wire.Len(), len(tap.last()))
	}
}

// benchStream is one SSE answer of benchAgent read frame by frame: next
// has the agent write one frame and returns how long it took to reach the
// reader.
type benchStream struct {
	name  string
	resp  *http.Response
	br    *bufio.Reader
	read  chan struct{} // the agent writes a frame on each receive; closed: the end
	ended bool
}

const (
	benchHead  = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n"
	benchFrame = "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"hello \"}\n\n"
	benchTail  = "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
)

// benchAgent answers a run of one text message: its first two frames at
// once, then a content frame each time read is received (and flushed), and
// the end when read is closed.
func benchAgent(read chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		io.WriteString(w, benchHead)
		f.Flush()
		for range read {
			io.WriteString(w, benchFrame)
			f.Flush()
		}
		io.WriteString(w, benchTail)
	})
}

func openBenchStream(b *testing.B, c *http.Client, name, url string, read chan struct{}) *benchStream {
	resp, err := c.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		b.Fatal(name, err)
	}
	s := &benchStream{name: name, resp: resp, br: bufio.NewReader(resp.Body), read: read}
	for range 2 {
		s.frame(b)
	}
	return s
}

// frame reads one frame: lines up to a blank one.
func (s *benchStream) frame(b *testing.B) {
	for {
		line, err := s.br.ReadSlice('\n')
		if err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		if len(line) == 1 {
			return
		}
	}
}

func (s *benchStream) next(b *testing.B) time.Duration {
	sent := time.Now()
	s.read <- struct{}{}
	s.frame(b)
	return time.Since(sent)
}

func (s *benchStream) end() {
	if s.ended {
		return
	}
	s.ended = true
	close(s.read)
	io.Copy(io.Discard, s.resp.Body)
	s.resp.Body.Close()
}

func quantile(d []time.Duration, q float64) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*q))]
}

// caughtUp waits until the recorder has n frames of s.
func caughtUp(b *testing.B, ctx context.Context, s *session, n int) {
	for {
		s.wait(ctx, n-1)
		s.mu.Lock()
		got, done := len(s.frames), s.done
		s.mu.Unlock()
		if got >= n {
			return
		}
		if done || ctx.Err() != nil {
			b.Fatalf("the recorder ended with %d frames of %d: %s", got, n, s.problem)
		}
	}
}

// BenchmarkInspectProxyFrame measures what the recording proxy adds to a
// frame's trip, against a direct connection and a reverse proxy that does
// not record, all in the same run: the agent writes a frame and flushes
// when the reader asks, and the reader times each frame from its asking
// to its having read the frame. b.N frames go each way, in rounds of
// benchRound frames per way in turn, so that the three share the
// machine's load; after a round through the recording proxy the recorder
// is let catch up, so that its work weighs on its own round only. The
// metrics are in µs per frame, and the recording proxy's p50 and p99 as a
// ratio to the direct connection's.
func BenchmarkInspectProxyFrame(b *testing.B) {
	const benchRound = 500
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := newInspector(ctx, target{})
	// Connections of the benchmark's own, not the default transport's.
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	type way struct {
		name string
		read chan struct{}
		url  string
		s    *benchStream
		lat  []time.Duration
	}
	var ways []*way
	for _, name := range []string{"direct", "bare", "proxy"} {
		w := &way{name: name, read: make(chan struct{})}
		agent := httptest.NewServer(benchAgent(w.read))
		defer agent.Close()
		w.url = agent.URL
		if name != "direct" {
			rp, err := newRecordingProxy(in, agent.URL)
			if err != nil {
				b.Fatal(err)
			}
			rp.rp.Transport = tr
			var h http.Handler = rp
			if name == "bare" { // the same forwarding, recording nothing
				bare := *rp.rp
				bare.ModifyResponse = nil
				h = &bare
			}
			ps := httptest.NewServer(h)
			defer ps.Close()
			w.url = ps.URL
		}
		ways = append(ways, w)
	}
	for _, w := range ways {
		w.s = openBenchStream(b, client, w.name, w.url, w.read)
		defer w.s.end()
		w.lat = make([]time.Duration, 0, b.N)
	}
	if len(in.sessions) != 1 {
		b.Fatalf("the recording proxy recorded %d sessions", len(in.sessions))
	}
	rec := in.sessions[0]
	b.ResetTimer()
	for done := 0; done < b.N; done += benchRound {
		for _, w := range ways {
			for range min(benchRound, b.N-done) {
				w.lat = append(w.lat, w.s.next(b))
			}
			if w.name == "proxy" {
				caughtUp(b, ctx, rec, 2+len(w.lat))
			}
		}
	}
	b.StopTimer()
	for _, w := range ways {
		w.s.end()
	}
	if err := rec.waitDone(ctx); err != nil {
		b.Fatal(err)
	}
	rec.mu.Lock()
	got := len(rec.frames)
	rec.mu.Unlock()
	if want := b.N + 4; got != want {
		b.Fatalf("the recording proxy recorded %d frames, want %d", got, want)
	}
	q := map[string][2]time.Duration{}
	for _, w := range ways {
		p50, p99 := quantile(w.lat, 0.50), quantile(w.lat, 0.99)
		q[w.name] = [2]time.Duration{p50, p99}
		b.ReportMetric(float64(p50.Nanoseconds())/1e3, w.name+"-p50-µs")
		b.ReportMetric(float64(p99.Nanoseconds())/1e3, w.name+"-p99-µs")
	}
	d, p := q["direct"], q["proxy"]
	b.ReportMetric(float64(p[0]-d[0])/1e3, "added-p50-µs")
	b.ReportMetric(float64(p[1]-d[1])/1e3, "added-p99-µs")
	b.ReportMetric(float64(p[0])/float64(d[0]), "p50-x-direct")
	b.ReportMetric(float64(p[1])/float64(d[1]), "p99-x-direct")
}

// chunkReader hands out its chunks one Read at a time, the last one with
// io.EOF.
type chunkReader struct{ chunks []string }

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks = c.chunks[1:]
	if len(c.chunks) == 0 {
		return n, io.EOF
	}
	return n, nil
}

func (c *chunkReader) Close() error { return nil }

// TestTeeBodyQueuesAfterForwarding: a chunk the proxy read reaches the
// recorder only when the proxy reads again (it has forwarded the chunk by
// then) or closes the body, and every byte reaches it, in order, whatever
// becomes of the buffer the proxy reads into.
func TestTeeBodyQueuesAfterForwarding(t *testing.T) {
	q := newByteQueue()
	tee := &teeBody{rc: &chunkReader{chunks: []string{"data: 1\n\n", "data: 2\n\n", "data: 3\n\n"}}, q: q}
	queued := func() string {
		q.mu.Lock()
		defer q.mu.Unlock()
		return string(q.buf)
	}
	buf := make([]byte, 64)
	var forwarded []string
	for i := 0; ; i++ {
		n, err := tee.Read(buf)
		forwarded = append(forwarded, string(buf[:n]))
		if got, want := queued(), strings.Join(forwarded[:i], ""); got != want {
			t.Fatalf("after read %d, queued %q; want the chunks forwarded before it, %q", i, got, want)
		}
		clear(buf) // the proxy's buffer is its own again
		if err != nil {
			break
		}
	}
	tee.Close()
	got, err := io.ReadAll(q)
	if err != nil || string(got) != "data: 1\n\ndata: 2\n\ndata: 3\n\n" {
		t.Errorf("the recorder read %q, %v", got, err)
	}
}
