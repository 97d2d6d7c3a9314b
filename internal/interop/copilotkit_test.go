package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/copilotkit"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/internal/testlog"
)

// copilotDir is the directory of the pinned CopilotKit client, or a skip
// when its packages are not installed (.ci/run installs them).
func copilotDir(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "copilotkit")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@copilotkit", "core", "package.json")); err != nil {
		t.Skip("@copilotkit/core is not installed: run `npm ci` in internal/interop/copilotkit")
	}
	return dir
}

type ckState struct {
	Turns  int  `json:"turns"`
	Booked bool `json:"booked,omitempty"`
}

// ckAgent is the agent behind the CopilotKit client: a tool call with
// state whose first state event is a STATE_DELTA, an interrupt and its
// resume, and a slow story that waits to be stopped.
func ckAgent(stopped chan<- error) server.Agent[ckState] {
	return server.AgentFunc[ckState](func(ctx context.Context, rc *server.RunContext[ckState]) (server.Outcome, error) {
		if r := rc.Resume(); len(r) > 0 {
			var answer struct {
				Approved bool `json:"approved"`
			}
			if err := json.Unmarshal(r[0].Payload, &answer); err != nil || !answer.Approved || r[0].Status != agui.ResumeStatusResolved {
				return server.Outcome{}, errors.New("the resume is not an approval")
			}
			if err := rc.ChangeState(func(s *ckState) { s.Booked = true }); err != nil {
				return server.Outcome{}, err
			}
			return server.Success(), rc.Say("Booked.")
		}
		switch rc.LastUserText() {
		case "weather?":
			rc.UpdateState(func(s *ckState) { s.Turns++ })
			if err := rc.PublishStateDelta(); err != nil {
				return server.Outcome{}, err
			}
			if _, err := rc.EmitToolCall("get_weather", map[string]string{"city": "Paris"}, map[string]int{"temp": 21}); err != nil {
				return server.Outcome{}, err
			}
			return server.Success(), rc.SayStream(slices.Values([]string{"It is ", "21 degrees ", "in Paris."}))
		case "book it":
			return server.Interrupted(server.NewInterrupt("approval", "Book the trip?")), nil
		case "ask me":
			// The frontend tool: called and left pending, then, in the
			// client's follow-up run, its result answered.
			if msgs := rc.Messages(); len(msgs) > 0 {
				if tm, ok := msgs[len(msgs)-1].(*agui.ToolMessage); ok {
					return server.Success(), rc.Say("You said: " + tm.Content.String())
				}
			}
			id, err := rc.EmitToolCall("confirm_city", map[string]string{"city": "Paris"}, nil)
			if err != nil {
				return server.Outcome{}, err
			}
			return server.Success(id), nil
		case "tell me a long story":
			m, err := rc.StartTextMessage()
			if err != nil {
				return server.Outcome{}, err
			}
			if err := m.Append("Once upon a time"); err != nil {
				return server.Outcome{}, err
			}
			<-ctx.Done()
			stopped <- context.Cause(ctx)
			return server.Outcome{}, ctx.Err()
		}
		return server.Outcome{}, errors.New("unexpected message " + rc.LastUserText())
	})
}

// inputRecorder keeps whether each run's input declared a protocol version.
type inputRecorder struct {
	next     http.Handler
	mu       sync.Mutex
	versions []string
}

func (i *inputRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && !strings.Contains(r.URL.Path, "/runs/") {
		body, _ := io.ReadAll(r.Body)
		var in struct {
			ProtocolVersion *string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(body, &in)
		v := "<none>"
		if in.ProtocolVersion != nil {
			v = *in.ProtocolVersion
		}
		i.mu.Lock()
		i.versions = append(i.versions, v)
		i.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	i.next.ServeHTTP(w, r)
}

// routeRecorder keeps which routes the client asked for: a path, and the
// method of a single-route envelope.
type routeRecorder struct {
	next http.Handler
	mu   sync.Mutex
	seen map[string]bool
}

func (rr *routeRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Method + " " + r.URL.Path
	if r.Method == http.MethodPost && r.URL.Path == "/api/copilotkit" {
		body, _ := io.ReadAll(r.Body)
		var env struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &env)
		key += " {" + env.Method + "}"
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	rr.mu.Lock()
	if rr.seen == nil {
		rr.seen = map[string]bool{}
	}
	rr.seen[key] = true
	rr.mu.Unlock()
	rr.next.ServeHTTP(w, r)
}

type ckMessage struct {
	ID         string `json:"id"`
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"toolCallId"`
	ToolCalls  []struct {
		ID, Name, Arguments string
	} `json:"toolCalls"`
}

type ckView struct {
	Messages []ckMessage    `json:"messages"`
	State    map[string]any `json:"state"`
}

type ckReport struct {
	Warnings []string `json:"warnings"`
	Errors   []string `json:"errors"`
	Steps    struct {
		Info struct {
			Transport string `json:"transport"`
			Version   string `json:"version"`
			Agents    map[string]struct {
				Description  string         `json:"description"`
				Capabilities map[string]any `json:"capabilities"`
			} `json:"agents"`
		} `json:"info"`
		Run       ckView `json:"run"`
		Interrupt struct {
			Outcome struct {
				Type       string           `json:"type"`
				Interrupts []agui.Interrupt `json:"interrupts"`
			} `json:"outcome"`
		} `json:"interrupt"`
		Resume       ckView `json:"resume"`
		FrontendTool ckView `json:"frontendTool"`
		Finished     int    `json:"finished"`
		Stop         struct {
			Live      bool `json:"live"`
			IsRunning bool `json:"isRunning"`
			ckView
		} `json:"stop"`
		Reload struct {
			Before ckView `json:"before"`
			After  ckView `json:"after"`
		} `json:"reload"`
		LiveReload struct {
			Followed       bool   `json:"followed"`
			IsRunning      bool   `json:"isRunning"`
			FirstIsRunning bool   `json:"firstIsRunning"`
			First          ckView `json:"first"`
			Reloaded       ckView `json:"reloaded"`
		} `json:"liveReload"`
		Fresh ckView `json:"fresh"`
	} `json:"steps"`
}

// TestCopilotKitClient is the real CopilotKit browser client
// (@copilotkit/core 1.75.0, with its @ag-ui/client 0.0.59) against the Go
// runtime, in both route forms: "auto" (which settles on the multi-route
// form, the runtime answering GET {base}/info) and "single" (the envelope).
// On one thread it reads the info, runs a tool call with state (the first
// state event a STATE_DELTA), an interrupt and its resume, a frontend tool
// the agent leaves pending and the client answers in a follow-up run, stops a run
// midway, then a new client reconnects to the thread (the reload) and
// holds what the first one held; a page reloaded during a run follows it
// and stops it (its connect stream ending with the stop); a connect to an
// unknown thread is empty.
// The client reports no warning and no error along the way, and its inputs
// declare no protocol version (it is a 1.0 consumer: the streams it gets
// are 1.0).
func TestCopilotKitClient(t *testing.T) {
	dir := copilotDir(t)
	for _, transport := range []string{"auto", "single"} {
		t.Run(transport, func(t *testing.T) {
			stopped := make(chan error, 2)
			chat := server.NewHandler[ckState](ckAgent(stopped),
				server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}),
				server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll}),
				server.WithLogger(testlog.New(t)))
			inputs := &inputRecorder{next: chat}
			rt, err := copilotkit.New([]copilotkit.Agent{{
				ID: "chat", Description: "A Go agent", Handler: inputs,
				Capabilities: &agui.AgentCapabilities{State: &agui.StateCapabilities{Snapshots: new(true), Deltas: new(true)}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			routes := &routeRecorder{next: rt}
			mux := http.NewServeMux()
			copilotkit.Mount(mux, "/api/copilotkit", routes)
			server.Mount(mux, "/agents/chat", chat)
			srv := httptest.NewServer(mux)
			defer srv.Close()

			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", "ck.mjs", srv.URL+"/api/copilotkit", transport, srv.URL+"/agents/chat/threads")
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, runErr := cmd.Output()
			var rep ckReport
			if err := json.Unmarshal(stdout, &rep); err != nil {
				t.Fatalf("node: %v (%v)\nstdout: %s\nstderr: %s", runErr, err, stdout, stderr.String())
			}
			if runErr != nil || len(rep.Warnings) > 0 || len(rep.Errors) > 0 {
				t.Fatalf("node: %v\nwarnings: %q\nerrors: %q\nstderr: %s", runErr, rep.Warnings, rep.Errors, stderr.String())
			}
			s := rep.Steps

			wantTransport := map[string]string{"auto": "rest", "single": "single"}[transport]
			if s.Info.Transport != wantTransport || s.Info.Version != copilotkit.RuntimeVersion {
				t.Errorf("info: transport %q version %q, want %q %q", s.Info.Transport, s.Info.Version, wantTransport, copilotkit.RuntimeVersion)
			}
			if a, ok := s.Info.Agents["chat"]; !ok || a.Description != "A Go agent" || a.Capabilities["state"] == nil {
				t.Errorf("info: agents %+v", s.Info.Agents)
			}

			run := s.Run.Messages
			if len(run) != 4 || run[1].Role != "assistant" || len(run[1].ToolCalls) != 1 || run[1].ToolCalls[0].Name != "get_weather" ||
				run[2].Role != "tool" || run[2].ToolCallID != run[1].ToolCalls[0].ID || run[2].Content != `{"temp":21}` ||
				run[3].Role != "assistant" || run[3].Content != "It is 21 degrees in Paris." {
				t.Errorf("run: messages %+v", run)
			}
			if !reflect.DeepEqual(s.Run.State, map[string]any{"turns": float64(1)}) {
				t.Errorf("run: state %v, want turns 1 (from a STATE_DELTA on {})", s.Run.State)
			}

			if o := s.Interrupt.Outcome; o.Type != "interrupt" || len(o.Interrupts) != 1 || o.Interrupts[0].Reason != "approval" {
				t.Errorf("interrupt: outcome %+v", o)
			}
			if m := s.Resume.Messages; len(m) == 0 || m[len(m)-1].Content != "Booked." || s.Resume.State["booked"] != true {
				t.Errorf("resume: messages %+v state %v", m, s.Resume.State)
			}

			if m := s.FrontendTool.Messages; len(m) < 4 || m[len(m)-3].Role != "assistant" || len(m[len(m)-3].ToolCalls) != 1 ||
				m[len(m)-3].ToolCalls[0].Name != "confirm_city" || m[len(m)-2].Role != "tool" || m[len(m)-2].Content != "yes, Paris" ||
				m[len(m)-1].Content != "You said: yes, Paris" {
				t.Errorf("frontend tool: messages %+v", m)
			}

			if s.Finished != 5 {
				t.Errorf("the client took %d RUN_FINISHED events from the five runs before the stop", s.Finished)
			}

			for i := range 2 {
				select {
				case cause := <-stopped:
					if !errors.Is(cause, server.ErrCancelRequested) {
						t.Errorf("stop %d: the run was cancelled by %v, not by the stop", i+1, cause)
					}
				case <-ctx.Done():
					t.Fatalf("stop %d: the run was never cancelled", i+1)
				}
			}
			if s.Stop.Live || s.Stop.IsRunning {
				t.Errorf("stop: the thread still has a live run (%v) or the client is running (%v)", s.Stop.Live, s.Stop.IsRunning)
			}
			if m := s.Stop.Messages; len(m) == 0 || m[len(m)-1].Content != "Once upon a time" {
				t.Errorf("stop: messages %+v", m)
			}

			if !reflect.DeepEqual(s.Reload.After, s.Reload.Before) {
				t.Errorf("reload: the new client holds\n%+v\nthe first held\n%+v", s.Reload.After, s.Reload.Before)
			}
			lr := s.LiveReload
			if !lr.Followed || lr.IsRunning || lr.FirstIsRunning {
				t.Errorf("live reload: followed the live run %v; still running: reloaded %v, first %v", lr.Followed, lr.IsRunning, lr.FirstIsRunning)
			}
			if !reflect.DeepEqual(lr.Reloaded, lr.First) || len(lr.First.Messages) != len(s.Reload.After.Messages)+2 {
				t.Errorf("live reload: the reloaded page holds\n%+v\nthe first\n%+v", lr.Reloaded, lr.First)
			}
			if len(s.Fresh.Messages) != 0 {
				t.Errorf("fresh thread: messages %+v", s.Fresh.Messages)
			}

			routes.mu.Lock()
			for _, want := range map[string][]string{
				"auto":   {"GET /api/copilotkit/info", "POST /api/copilotkit/agent/chat/run", "POST /api/copilotkit/agent/chat/connect", "POST /api/copilotkit/agent/chat/stop/thread-auto"},
				"single": {"POST /api/copilotkit {info}", "POST /api/copilotkit {agent/run}", "POST /api/copilotkit {agent/connect}", "POST /api/copilotkit {agent/stop}"},
			}[transport] {
				if !routes.seen[want] {
					t.Errorf("the client never asked %s; it asked %v", want, routes.seen)
				}
			}
			routes.mu.Unlock()

			inputs.mu.Lock()
			defer inputs.mu.Unlock()
			if len(inputs.versions) != 7 {
				t.Errorf("the agent got %d runs, want 7", len(inputs.versions))
			}
			for _, v := range inputs.versions {
				if v != "<none>" {
					t.Errorf("an input declared protocolVersion %q; @ag-ui/client 0.0.59 declares none", v)
				}
			}
		})
	}
}
