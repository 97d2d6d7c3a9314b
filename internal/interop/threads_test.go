package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

type reloadState struct {
	Turns int `json:"turns"`
}

// reloadThread serves the reload scenario's agent and plays it up to the
// drop: three turns (a greeting, a tool call, an interrupt, each changing
// state) on thread "th", the interrupt resolved, then a fourth run that the
// client leaves once the agent is mid-message. The agent waits there until
// gate is closed. It returns the server and what the dropped client had
// when it left.
func reloadThread(t *testing.T, gate chan struct{}) (*httptest.Server, *client.Result) {
	t.Helper()
	reached := make(chan struct{})
	agent := server.AgentFunc[reloadState](func(ctx context.Context, rc *server.RunContext[reloadState]) (server.Outcome, error) {
		turn := rc.State().Turns + 1
		if err := rc.ChangeState(func(s *reloadState) { s.Turns = turn }); err != nil {
			return server.Outcome{}, err
		}
		switch turn {
		case 1:
			return server.Success(), rc.Say("Hello!")
		case 2:
			if _, err := rc.EmitToolCall("lookup", map[string]string{"q": "answer"}, map[string]int{"answer": 42}); err != nil {
				return server.Outcome{}, err
			}
			return server.Success(), rc.Say("It is 42.")
		case 3:
			return server.Interrupted(server.NewInterrupt("approval", "Go on?")), nil
		}
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for i := range 10 {
			if err := m.Append("word "); err != nil {
				return server.Outcome{}, err
			}
			if i == 3 {
				close(reached)
				select {
				case <-gate:
				case <-ctx.Done():
					return server.Outcome{}, ctx.Err()
				}
			}
		}
		return server.Success(), m.End()
	})
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", server.NewHandler[reloadState](agent,
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	c, err := client.New(srv.URL + "/agent")
	if err != nil {
		t.Fatal(err)
	}
	ct := c.NewThread(client.WithThreadID("th"))
	ctx := context.Background()
	for i, text := range []string{"hi", "the answer?", "go on"} {
		ct.AddUserMessage(text)
		if _, err := ct.Run(ctx, client.RunParams{RunID: "run-" + string(rune('1'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ct.Resolve(ct.Interrupts()[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	ctx4, drop := context.WithCancel(ctx)
	ran := make(chan *client.Result, 1)
	go func() {
		r, _ := ct.Run(ctx4, client.RunParams{RunID: "run-4"})
		ran <- r
	}()
	<-reached
	drop()
	res4 := <-ran
	return srv, res4
}

// TestThreadReloadReference is the page reload through the TypeScript
// reducer (defaultApplyEvents of @ag-ui/client, in Node): three turns with a
// tool call, an interrupt and a state change; the client drops out of the
// fourth run; the thread's connect stream, reduced by the reference from
// nothing, ends with the messages and state the reference reaches from the
// dropped client's input and the whole fourth run: what a client that never
// dropped holds.
func TestThreadReloadReference(t *testing.T) {
	gate := make(chan struct{})
	srv, res4 := reloadThread(t, gate)

	resp, err := http.Get(srv.URL + "/agent/threads/th/events")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	var connect []json.RawMessage
	released := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "id: r") && !released {
			close(gate) // the reader follows the live run: let it go on
			released = true
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			connect = append(connect, json.RawMessage(data))
		}
	}
	resp.Body.Close()
	if !released {
		t.Fatal("the connect stream never reached the live run")
	}

	run4 := runEvents(t, srv.URL, "run-4")

	cases := []reducerCase{
		{Messages: []json.RawMessage{}, State: json.RawMessage(`{}`), Events: connect},
		{Messages: encodeAll[agui.Message](t, res4.Input.Messages), State: res4.Input.State, Events: run4},
	}
	refs := referenceReduce(t, cases)
	for i, r := range refs {
		if r.Error != "" {
			t.Fatalf("case %d: the reference threw %s", i, r.Error)
		}
		if len(r.Warnings) > 0 {
			t.Errorf("case %d: the reference warned %q", i, r.Warnings)
		}
	}
	got, want := decodeNumbers(t, mustMarshal(t, refs[0].Messages)), decodeNumbers(t, mustMarshal(t, refs[1].Messages))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages\n  connect      %s\n  uninterrupted %s", mustMarshal(t, got), mustMarshal(t, want))
	}
	if string(refs[0].State) != string(refs[1].State) || string(refs[0].State) != `{"turns":4}` {
		t.Errorf("state: connect %s, uninterrupted %s", refs[0].State, refs[1].State)
	}
	if n := len(refs[0].PendingInterrupts); n != 0 {
		t.Errorf("%d interrupts still pending after the run that resumed them", n)
	}
}

// TestThreadConnectHTTPAgent is the reload through the reference client
// itself: a new @ag-ui/client HttpAgent, whose connect() GETs the thread's
// events (connect.mjs: the few lines a TypeScript app adds), picks the
// thread up with connectAgent while its fourth run is live. The whole
// client pipeline sees the stream, its verifier included: no warning, no
// rejection, and the agent ends with what an uninterrupted client holds.
func TestThreadConnectHTTPAgent(t *testing.T) {
	dir, err := NodeDir()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	gate := make(chan struct{})
	srv, res4 := reloadThread(t, gate)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "connect.mjs", srv.URL+"/agent", "th")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	released := false
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if sc.Text() == "live" && !released {
			close(gate) // the client follows the live run: let it go on
			released = true
			continue
		}
		lines = append(lines, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node connect.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, strings.Join(lines, "\n"), stderr.String())
	}
	if !released {
		close(gate)
		t.Fatalf("the client never reached the live run:\n%s", strings.Join(lines, "\n"))
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		t.Errorf("node wrote to stderr:\n%s", s)
	}
	var rep struct {
		Types             []string          `json:"types"`
		RunIDs            []string          `json:"runIds"`
		Rejection         *string           `json:"rejection"`
		Finished          []json.RawMessage `json:"finished"`
		Messages          []any             `json:"messages"`
		State             json.RawMessage   `json:"state"`
		PendingInterrupts []any             `json:"pendingInterrupts"`
		Warnings          []string          `json:"warnings"`
	}
	if len(lines) == 0 {
		t.Fatal("no report")
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, lines[len(lines)-1])
	}
	if rep.Rejection != nil {
		t.Fatalf("connectAgent rejected: %s", *rep.Rejection)
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("the client warned:\n%s", strings.Join(rep.Warnings, "\n"))
	}
	if len(rep.RunIDs) != 2 || rep.RunIDs[1] != "run-4" {
		t.Errorf("runs %q, want the replayed history then run-4", rep.RunIDs)
	}
	if n := len(rep.Types); n == 0 || rep.Types[n-1] != "RUN_FINISHED" || len(rep.Finished) != 2 {
		t.Errorf("events %v, %d RUN_FINISHED", rep.Types, len(rep.Finished))
	}

	// What a client that never dropped holds: the reference reducer over the
	// dropped client's input and the whole fourth run.
	run4 := runEvents(t, srv.URL, "run-4")
	ref := referenceReduce(t, []reducerCase{{Messages: encodeAll[agui.Message](t, res4.Input.Messages), State: res4.Input.State, Events: run4}})[0]
	got, want := decodeNumbers(t, mustMarshal(t, rep.Messages)), decodeNumbers(t, mustMarshal(t, ref.Messages))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages\n  connected     %s\n  uninterrupted %s", mustMarshal(t, got), mustMarshal(t, want))
	}
	if string(rep.State) != `{"turns":4}` {
		t.Errorf("state %s, want {\"turns\":4}", rep.State)
	}
	if len(rep.PendingInterrupts) != 0 {
		t.Errorf("pending interrupts %v after the run that resumed them", rep.PendingInterrupts)
	}
}

// runEvents is the whole of durable run run's events, as its log holds them.
func runEvents(t *testing.T, base, run string) []json.RawMessage {
	t.Helper()
	resp, err := http.Get(base + "/agent/runs/" + run + "/events")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var out []json.RawMessage
	for line := range strings.SplitSeq(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, json.RawMessage(data))
		}
	}
	return out
}
