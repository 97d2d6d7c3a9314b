package cli

import (
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
	"sort"
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
	rp, _ := newRecordingProxy(in, badServers(t)["unreachable"])
	ps := httptest.NewServer(rp)
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

// BenchmarkInspectProxyFrame measures what the recording proxy adds to a
// frame's trip: the agent writes a frame, flushes, and waits until the
// client has read it before the next, so each iteration is one frame's
// latency end to end, direct and through the proxy. p50 and p99 are
// reported in µs per frame.
func BenchmarkInspectProxyFrame(b *testing.B) {
	for _, via := range []string{"direct", "proxy"} {
		b.Run(via, func(b *testing.B) {
			read := make(chan struct{})
			agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				f := w.(http.Flusher)
				io.WriteString(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n")
				f.Flush()
				for range b.N {
					<-read
					io.WriteString(w, "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"hello \"}\n\n")
					f.Flush()
				}
				<-read
				io.WriteString(w, "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
			}))
			defer agent.Close()
			url := agent.URL
			if via == "proxy" {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				rp, _ := newRecordingProxy(newInspector(ctx, target{}), agent.URL)
				ps := httptest.NewServer(rp)
				defer ps.Close()
				url = ps.URL
			}
			resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			frames := 0
			lat := make([]time.Duration, 0, b.N)
			var sent time.Time
			b.ResetTimer()
			err = sseFrames(resp.Body, func(data []byte, raw, id string) {
				frames++
				if frames > 2 && frames <= b.N+2 {
					lat = append(lat, time.Since(sent))
				}
				if frames >= 2 && frames <= b.N+2 {
					sent = time.Now()
					read <- struct{}{}
				}
			})
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if len(lat) > 0 {
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs/frame")
				b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs/frame")
			}
		})
	}
}
