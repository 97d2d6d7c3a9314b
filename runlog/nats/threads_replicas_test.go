package natslog_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/agui/server/threads"
	"github.com/agui-go/sdk/agui/verify"
	"github.com/agui-go/sdk/internal/testlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// threadReplica serves agent with durable runs on l and threads on s (the
// NATS store, on the same connection as l when nc is that connection).
func threadReplica(t *testing.T, l runlog.Log, nc *nats.Conn, name string, agent server.Agent[server.NoState]) (*httptest.Server, *natslog.Threads) {
	t.Helper()
	s, err := natslog.NewThreads(context.Background(), nc, natslog.ThreadsOptions{Bucket: "THREADS", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	h := server.NewHandler(agent,
		server.WithDurableRuns(server.DurableConfig{Log: l, Authorize: server.AllowAll, Detach: time.Minute, Replica: name}),
		server.WithThreads(server.ThreadConfig{Store: s, Authorize: server.AllowAll}),
		server.WithLogger(testlog.New(t)))
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, s
}

// Two replicas share one embedded nats-server, for their run log and their
// threads. A thread whose run is live on A is connected to on B; A dies
// mid-run (its connection to NATS closes: no appends, no lease renewals,
// no thread updates; its HTTP clients are cut). B's reader still ends with
// exactly one terminal event of the run, RUN_ERROR code RUN_LOST, and the
// thread, read on B afterwards, records the run as lost.
func TestThreadOwnerDiesMidRun(t *testing.T) {
	natsURL := startNATS(t)
	const lease = time.Second
	gate := make(chan struct{})
	agent := gatedAgent(10, 2, gate)
	la, ncA := newLog(t, natsURL, lease)
	closedA := &closeWatch{Log: la, closed: make(chan struct{})}
	defer func() {
		// A's agent returns (its emits fail) and its run lets go of its
		// writer before the test's cleanup closes A's log: a writer closed
		// while its log closes races with it (sync.WaitGroup reuse in
		// natslog's Log.Close), and nothing must outlive the test.
		close(gate)
		select {
		case <-closedA.closed:
		case <-time.After(time.Minute): // a hang guard
			t.Error("A's run did not end")
		}
	}()
	srvA, _ := threadReplica(t, closedA, ncA, "a", agent)
	lb, ncB := newLog(t, natsURL, lease)
	srvB, storeB := threadReplica(t, lb, ncB, "b", agent)
	client := &http.Client{Timeout: time.Minute} // a hang guard

	// The run starts on A: once its client has the first deltas, its
	// thread lists it as live.
	req, _ := http.NewRequest(http.MethodPost, srvA.URL+"/agent", strings.NewReader(
		`{"threadId":"t","runId":"r1","protocolVersion":"`+agui.ProtocolVersion+`","state":{"n":1},`+
			`"messages":[{"id":"u1","role":"user","content":"hello"}]}`))
	req.Header.Set("Content-Type", "application/json")
	respA, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer respA.Body.Close()
	if head := readSSE(t, respA.Body, 3); len(head) != 3 {
		t.Fatalf("A streamed %d events", len(head))
	}

	// Connect on B: the thread so far, then the run followed live.
	req, _ = http.NewRequest(http.MethodGet, srvB.URL+"/agent/threads/t/events", nil)
	respB, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer respB.Body.Close()
	if respB.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(respB.Body)
		t.Fatalf("connect on B: %d %s", respB.StatusCode, data)
	}
	sse := newSSE(respB.Body)
	var frames []frame
	for {
		f, ok := sse.next()
		if !ok {
			t.Fatalf("B's stream ended after %d frames, before the live run", len(frames))
		}
		frames = append(frames, f)
		if strings.HasPrefix(f.id, "r") && strings.Contains(f.data, `"TEXT_MESSAGE_CONTENT"`) {
			break // B follows the run live
		}
	}

	// A dies.
	srvA.CloseClientConnections()
	ncA.Close()

	for f, ok := sse.next(); ok; f, ok = sse.next() {
		frames = append(frames, f)
	}
	var live []string
	for _, f := range frames {
		if strings.HasPrefix(f.id, "r") {
			live = append(live, f.data)
		}
	}
	terminals := 0
	for _, data := range live {
		if strings.Contains(data, `"type":"RUN_FINISHED"`) || strings.Contains(data, `"type":"RUN_ERROR"`) {
			terminals++
		}
	}
	last := frames[len(frames)-1].data
	if terminals != 1 || !strings.Contains(last, `"type":"RUN_ERROR"`) || !strings.Contains(last, `"code":"`+string(agui.CodeRunLost)+`"`) {
		t.Fatalf("B's reader got %d terminal events of the live run; the last frame is %s", terminals, last)
	}
	docs := make([][]byte, len(frames))
	for i, f := range frames {
		docs[i] = []byte(f.data)
	}
	if rep := verify.Check(verify.ClientProfile, docs); !rep.OK() || len(rep.Warnings) > 0 {
		t.Fatalf("the client verifier rejects B's stream at %d (%s): %v %v", rep.Index, rep.Event, rep.Err, rep.Warnings)
	}

	// The stream ended once the thread recorded the run's end: B did,
	// having seen the end A never recorded.
	if rec, err := storeB.Get(context.Background(), "t"); err != nil || rec.LiveRunID != "" {
		t.Fatalf("when B's stream ended, the thread had live run %q (%v)", rec.LiveRunID, err)
	}

	// The thread, on B, records the run and how it ended.
	resp, err := client.Get(srvB.URL + "/agent/threads/t")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		LiveRunID string            `json:"liveRunId"`
		Messages  []json.RawMessage `json:"messages"`
		State     json.RawMessage   `json:"state"`
		Runs      []threads.Run     `json:"runs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the thread on B: %d %v", resp.StatusCode, err)
	}
	if body.LiveRunID != "" || len(body.Runs) != 1 {
		t.Fatalf("the thread has live run %q and %d runs: %+v", body.LiveRunID, len(body.Runs), body.Runs)
	}
	run := body.Runs[0]
	if run.RunID != "r1" || run.Outcome != threads.OutcomeFailed || run.Code != string(agui.CodeRunLost) || run.Ended.IsZero() {
		t.Fatalf("the thread records the run as %+v, want it failed with RUN_LOST", run)
	}
	// What the run said before A died is in the conversation: the user's
	// message and the assistant's first deltas.
	if len(body.Messages) != 2 || !strings.Contains(string(body.Messages[0]), `"hello"`) || !strings.Contains(string(body.Messages[1]), `d0 d1 d2`) {
		t.Fatalf("the thread's messages: %s", body.Messages)
	}
}

// sseFrames reads SSE frames one at a time.
type sseFrames struct{ sc *bufio.Scanner }

func newSSE(r io.Reader) *sseFrames {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return &sseFrames{sc: sc}
}

// next returns the next frame, or false at the end of the stream.
func (s *sseFrames) next() (frame, bool) {
	var cur frame
	for s.sc.Scan() {
		switch line := s.sc.Text(); {
		case line == "":
			if cur.data != "" {
				return cur, true
			}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		}
	}
	return frame{}, false
}

// closeWatch is a log whose one run's writer closes closed when it is
// closed.
type closeWatch struct {
	runlog.Log
	closed chan struct{}
}

func (l *closeWatch) Start(ctx context.Context, info runlog.Info) (runlog.Writer, error) {
	w, err := l.Log.Start(ctx, info)
	if err != nil {
		return nil, err
	}
	return &closeWatchWriter{Writer: w, closed: l.closed}, nil
}

type closeWatchWriter struct {
	runlog.Writer
	closed chan struct{}
}

func (w *closeWatchWriter) Close() error {
	err := w.Writer.Close()
	close(w.closed)
	return err
}

// RemoteReaders forwards to the writer: A still counts B's reader.
func (w *closeWatchWriter) RemoteReaders() int {
	if r, ok := w.Writer.(runlog.RemoteReaders); ok {
		return r.RemoteReaders()
	}
	return 0
}
