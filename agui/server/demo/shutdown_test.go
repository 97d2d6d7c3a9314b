package demo_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/demo"
)

// Shutting the demo server down ends a run in flight with RUN_ERROR CANCELLED
// saying the server is shutting down, not that the client disconnected.
func TestServeListenerShutdownEndsRunsInFlight(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, shutdown := context.WithCancel(context.Background())
	defer shutdown()
	served := make(chan error, 1)
	go func() { served <- demo.ServeListener(ctx, ln, io.Discard) }()

	body := `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"slow"}]}`
	resp, err := http.Post("http://"+ln.Addr().String()+"/agent", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var last string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if strings.Contains(line, "TEXT_MESSAGE_CONTENT") {
			shutdown() // SIGINT, as far as ServeListener can tell
		}
		last = line
	}
	if err := <-served; err != nil {
		t.Fatalf("ServeListener: %v", err)
	}
	ev, err := agui.DecodeEvent([]byte(last))
	if err != nil {
		t.Fatalf("last frame %q: %v", last, err)
	}
	re, ok := ev.(*agui.RunError)
	if !ok || re.Code == nil || *re.Code != string(agui.CodeCancelled) || re.Message != "run cancelled: the server is shutting down" {
		t.Fatalf("terminal %s, want RUN_ERROR CANCELLED saying the server is shutting down", last)
	}
}
