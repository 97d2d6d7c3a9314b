package cli

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/copilotkit"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
)

// The chat page of `agui demo --copilotkit`: CopilotKit's React components
// (@copilotkit/react-core's v2 CopilotKitProvider and CopilotChat), built
// with vite from ckdemo_ui (package.json, the committed package-lock.json,
// src/) into ckdemo_ui/dist, which is committed and embedded so that the
// command needs no Node. TestCopilotKitPageIsCurrent rebuilds it from the
// lock file and fails when the committed build differs.
//
//go:embed ckdemo_ui/dist
var copilotKitUI embed.FS

// The paths `agui demo --copilotkit` serves: the page at the root, the
// CopilotKit runtime (both of its route forms) beside it, and the plain
// AG-UI endpoint as without --copilotkit.
const (
	copilotKitRuntimePath = "/api/copilotkit"
	copilotKitAgentID     = "demo"
)

// copilotKitDetach is how long a run of `agui demo --copilotkit` keeps
// going after its page went away, unless --detach says otherwise: a page
// reloaded mid-run connects to the thread and is shown the rest of it.
const copilotKitDetach = time.Minute

// copilotKitDemo configures the demo agent `agui demo --copilotkit`
// serves. Tests replace it (a slow answer long enough that only a stop
// ends it).
var copilotKitDemo = demo.Config{}

// copilotKitPage serves the embedded page: index.html at the root (with
// any query: the page keeps its thread there) and the hashed assets under
// assets/, which never change and may be cached for good.
func copilotKitPage() http.Handler {
	dist, err := fs.Sub(copilotKitUI, "ckdemo_ui/dist")
	if err != nil {
		panic(err) // the embed pattern names the directory
	}
	files := http.FileServerFS(dist)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method "+r.Method+" is not allowed here; the page is read with GET", http.StatusMethodNotAllowed)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/assets/") {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(w, r)
	})
}

// copilotKitMux is what `agui demo --copilotkit` serves: the page at /, the
// CopilotKit runtime at /api/copilotkit with the demo agent as "demo", and
// the same agent's AG-UI endpoint at /agent. h is the demo agent's handler,
// made with durable runs and threads (connect and stop need them).
func copilotKitMux(h http.Handler) (*http.ServeMux, error) {
	rt, err := copilotkit.New([]copilotkit.Agent{{
		ID:          copilotKitAgentID,
		Description: "The agui-go demo agent: no model, no API key; streams text, a tool call, state and a subagent, and \"slow\" streams slowly enough to stop.",
		Capabilities: &agui.AgentCapabilities{
			Transport: &agui.TransportCapabilities{Streaming: new(true)},
		},
		Handler: h,
	}})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", h)
	copilotkit.Mount(mux, copilotKitRuntimePath, rt)
	mux.Handle("/", copilotKitPage())
	return mux, nil
}

// serveCopilotKit serves copilotKitMux on ln until ctx is done, printing
// where the page is.
func serveCopilotKit(ctx context.Context, ln net.Listener, out io.Writer, opts []server.HandlerOption) error {
	// demo.Handler's options, on an agent configured by copilotKitDemo.
	h := server.NewHandler(demo.NewAgent(copilotKitDemo),
		append([]server.HandlerOption{server.WithCORS("*"), server.WithKeepAlive(15 * time.Second)}, opts...)...)
	mux, err := copilotKitMux(h)
	if err != nil {
		return err
	}
	srv := server.NewHTTPServer("", mux)
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(out, "CopilotKit chat page: %s/\n", base)
	fmt.Fprintf(out, "CopilotKit runtime (agent %q): %s%s\n", copilotKitAgentID, base, copilotKitRuntimePath)
	fmt.Fprintf(out, "AG-UI demo agent: %s/agent\n", base)
	return srv.ServeUntil(ctx, ln, 5*time.Second)
}
