package copilotkit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/copilotkit"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// A Go agent served to CopilotKit's client: the React page points
// <CopilotKit runtimeUrl="/api/copilotkit"> here and useAgent({agentId:
// "assistant"}) finds it.
func Example() {
	agent := server.AgentFunc[server.NoState](func(ctx context.Context, rc *server.RunContext[server.NoState]) (server.Outcome, error) {
		return server.Success(), rc.Say("Hello from Go")
	})
	assistant := server.NewHandler[server.NoState](agent,
		// Connect (the reloaded page) and stop need the thread layer.
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll, Detach: time.Minute}),
		server.WithThreads(server.ThreadConfig{Authorize: server.AllowAll}))
	rt, err := copilotkit.New([]copilotkit.Agent{{
		ID: "assistant", Description: "Answers in Go", Handler: assistant,
		Capabilities: &agui.AgentCapabilities{Transport: &agui.TransportCapabilities{Streaming: new(true)}},
	}}, copilotkit.WithCORS("http://localhost:5173"))
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	copilotkit.Mount(mux, "/api/copilotkit", rt)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// What the client asks first (the single-route form; GET /info is the same).
	resp, err := http.Post(srv.URL+"/api/copilotkit", "application/json", strings.NewReader(`{"method":"info"}`))
	if err != nil {
		panic(err)
	}
	var info struct {
		Agents map[string]struct{ Description string } `json:"agents"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	fmt.Println("agent:", info.Agents["assistant"].Description)

	// A run, in the multi-route form.
	resp, err = http.Post(srv.URL+"/api/copilotkit/agent/assistant/run", "application/json",
		strings.NewReader(`{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"hi"}],"state":{},"tools":[],"context":[]}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev struct{ Type string }
			_ = json.Unmarshal([]byte(data), &ev)
			fmt.Println(ev.Type)
		}
	}
	// Output:
	// agent: Answers in Go
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT
	// TEXT_MESSAGE_END
	// RUN_FINISHED
}
