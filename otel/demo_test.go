package aguiotel_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/server/runlog"
	aguiotel "github.com/agui-go/sdk/otel"
	"github.com/agui-go/sdk/otel/oteltest"
)

// The demo agent's tour (a step, reasoning, streamed text, a tool call, state,
// an activity and a subagent), served by demo.Handler: its run span and its
// tool call's span, and the run's metrics, compared with a golden file
// (the agent named demo, as `agui demo --otel` names it).
// The tool call's id is random, and masked.
func TestDemoTourGolden(t *testing.T) {
	tel := newTelemetry(t)
	obs, err := aguiotel.Server(append(tel.opts(), aguiotel.WithAgentName("demo"))...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", demo.Handler(server.WithObserver(obs)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/agent",
		strings.NewReader(`{"threadId":"t-tour","runId":"r-tour","messages":[{"id":"u1","role":"user","content":"Show me everything"}]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	got := oteltest.Spans(tel.ended(t, "invoke_agent demo")) + "\n" + oteltest.Metrics(tel.metrics(t), "")
	got = regexp.MustCompile(`gen_ai\.tool\.call\.id=\S+`).ReplaceAllString(got, "gen_ai.tool.call.id=<id>")
	golden(t, "demo_tour", got)
}

// cutBody is the body of a stream that drops, as a broken connection
// would, right after the frame that holds mark: it closes the real body
// and then fails every read.
type cutBody struct {
	io.ReadCloser
	mark string
	seen strings.Builder
	cut  bool
	once func()
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.cut {
		return 0, io.ErrUnexpectedEOF
	}
	if s := b.seen.String(); strings.Contains(s, b.mark) && strings.HasSuffix(s, "\n\n") {
		b.cut = true
		b.ReadCloser.Close()
		b.once()
		return 0, io.ErrUnexpectedEOF
	}
	n, err := b.ReadCloser.Read(p)
	b.seen.Write(p[:n])
	return n, err
}

// cutTransport drops the stream of the first POST after its first
// TEXT_MESSAGE_END frame and calls dropped.
type cutTransport struct {
	mu      sync.Mutex
	done    bool
	dropped func()
}

func (tr *cutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return resp, err
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if !tr.done {
		tr.done = true
		resp.Body = &cutBody{ReadCloser: resp.Body, mark: `"TEXT_MESSAGE_END"`, once: tr.dropped}
	}
	return resp, nil
}

// A durable run whose connection drops mid-stream: the client reattaches
// (GET …/runs/{runId}/events with Last-Event-ID) and reads the run to its
// end. The client's span records the reattach as an event and the run as
// a success; the server's reader of the run is an agui.replay span, a
// child of the client's (the GET carries the trace context too); the
// metrics count one reattach and one replay that reached the end.
func TestClientReattach(t *testing.T) {
	tel := newTelemetry(t)
	proceed := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("first"); err != nil {
			return server.Outcome{}, err
		}
		select {
		case <-proceed: // the client is reading again
		case <-ctx.Done():
			return server.Outcome{}, ctx.Err()
		}
		return server.Success(), rc.Say("second")
	})
	var replays sync.Once
	h := tel.handler(t, agent, nil, server.WithDurableRuns(server.DurableConfig{
		Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute,
	}))
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/events") {
			replays.Do(func() { close(proceed) })
		}
		h.ServeHTTP(w, r)
	}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cobs, err := aguiotel.Client(tel.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	dropped := make(chan struct{})
	c, err := client.New(srv.URL+"/agent", client.WithObserver(cobs),
		client.WithHTTPClient(&http.Client{Transport: &cutTransport{dropped: func() { close(dropped) }}}))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for d, err := range c.Run(t.Context(), &agui.RunAgentInput{ThreadID: "thread-1", RunID: "run-1"}) {
		if err != nil {
			t.Fatal(err)
		}
		if tc, ok := d.Event.(*agui.TextMessageContent); ok {
			texts = append(texts, tc.Delta)
		}
	}
	select {
	case <-dropped:
	default:
		t.Fatal("the stream was never cut")
	}
	if strings.Join(texts, "|") != "first|second" {
		t.Fatalf("the client read %q", texts)
	}
	var cl, run, replay sdktrace.ReadOnlySpan
	spans := tel.endedAll(t, func(spans []sdktrace.ReadOnlySpan) bool {
		cl, run, replay = nil, nil, nil
		for _, s := range spans {
			switch {
			case s.Name() == "agui.replay":
				replay = s
			case s.SpanKind() == trace.SpanKindClient:
				cl = s
			case s.SpanKind() == trace.SpanKindServer:
				run = s
			default:
			}
		}
		return cl != nil && run != nil && replay != nil
	})
	if replay.Parent().SpanID() != cl.SpanContext().SpanID() || replay.SpanContext().TraceID() != cl.SpanContext().TraceID() {
		t.Errorf("the replay is not the client's child:\n%s", oteltest.Spans(spans))
	}
	// The server's run goes on, detached, to its end; whether it saw its
	// first consumer leave before that is a race, so only its outcome is
	// checked.
	if o := attrMap(run.Attributes())["agui.run.outcome"]; o != "success" {
		t.Errorf("the server's run: outcome %q", o)
	}
	golden(t, "client_reattach", oteltest.Spans([]sdktrace.ReadOnlySpan{cl, replay})+"\n"+
		oteltest.Metrics(tel.metrics(t), "agui.client.")+oteltest.Metrics(tel.metrics(t), "agui.server.replays"))
}

// endedAll waits until the ended spans satisfy done, and returns them.
func (tel *telemetry) endedAll(t *testing.T, done func([]sdktrace.ReadOnlySpan) bool) []sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		spans := tel.spans.Ended()
		if done(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spans expected did not end; ended:\n%s", oteltest.Spans(spans))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
