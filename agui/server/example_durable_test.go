package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// A run that outlives its connection: with durable runs every frame carries
// its sequence as id, and a client that lost its connection reattaches with
// the last id it saw and gets the rest, exactly once. DurableConfig.Detach keeps the
// run going meanwhile; serve it through server.NewHTTPServer, whose
// Shutdown also ends runs nobody is reading.
func ExampleWithDurableRuns() {
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		msg, err := rc.StartTextMessage(server.WithID("msg-1"))
		if err != nil {
			return server.Outcome{}, err
		}
		for _, word := range []string{"Hello ", "from ", "Go."} {
			if err := msg.Append(word); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), msg.End()
	})
	log := runlog.NewMemory(runlog.MemoryOptions{})
	h := server.NewHandler(agent, server.WithDurableRuns(server.DurableConfig{Log: log, Authorize: server.AllowAll, Detach: time.Minute}))
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", h) // and GET …/runs/{runId}/events, POST …/runs/{runId}/cancel
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// frames prints up to max frames of an SSE body as "id type" and
	// returns the last id.
	frames := func(sc *bufio.Scanner, max int) (last string) {
		for n := 0; n < max && sc.Scan(); {
			line := sc.Text()
			if id, ok := strings.CutPrefix(line, "id: "); ok {
				last = id
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var ev struct{ Type string }
				_ = json.Unmarshal([]byte(data), &ev)
				fmt.Println(last, ev.Type)
				n++
			}
		}
		return last
	}

	// The client reads three events, then its connection drops.
	resp, err := http.Post(srv.URL+"/agent", "application/json",
		strings.NewReader(`{"threadId":"t1","runId":"run-1","messages":[]}`))
	if err != nil {
		panic(err)
	}
	last := frames(bufio.NewScanner(resp.Body), 3)
	resp.Body.Close()

	// It reattaches after the last event it saw.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/agent/runs/run-1/events", nil)
	req.Header.Set("Last-Event-ID", last)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println("reattached after", last)
	frames(bufio.NewScanner(resp.Body), 100)
	// Output:
	// 1 RUN_STARTED
	// 2 TEXT_MESSAGE_START
	// 3 TEXT_MESSAGE_CONTENT
	// reattached after 3
	// 4 TEXT_MESSAGE_CONTENT
	// 5 TEXT_MESSAGE_CONTENT
	// 6 TEXT_MESSAGE_END
	// 7 RUN_FINISHED
}
