package server_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agui-go/sdk/agui/server"
)

// An agent mounted at an HTTP endpoint: each POST of a RunAgentInput runs it
// once and streams the run as server-sent events. This agent keeps no state,
// so it is a server.Func and names no state type; WithCORS lets a browser
// front end on another origin call it.
func ExampleNewHandler() {
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		msg, err := rc.StartTextMessage(server.WithID("msg-1"))
		if err != nil {
			return server.Outcome{}, err // cancelled or disconnected: unwind
		}
		defer msg.End() // idempotent; keeps an early return from leaving it open
		for _, word := range []string{"Hello ", "from ", "Go."} {
			if err := msg.Append(word); err != nil {
				return server.Outcome{}, err
			}
		}
		if err := msg.End(); err != nil {
			return server.Outcome{}, err
		}
		return server.Success(), nil
	})

	mux := http.NewServeMux()
	mux.Handle("/agent", server.NewHandler(agent, server.WithCORS("https://app.example.com")))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := srv.Client().Post(srv.URL+"/agent", "application/json",
		strings.NewReader(`{"threadId":"thread-1","runId":"run-1","messages":[{"id":"u1","role":"user","content":"hi"}]}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); line != "" { // an empty line ends each event
			fmt.Println(line)
		}
	}
	// Output:
	// 200 OK text/event-stream
	// data: {"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1","protocolVersion":"1.0"}
	// data: {"type":"TEXT_MESSAGE_START","messageId":"msg-1"}
	// data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello "}
	// data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"from "}
	// data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Go."}
	// data: {"type":"TEXT_MESSAGE_END","messageId":"msg-1"}
	// data: {"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1","outcome":{"type":"success"}}
}
