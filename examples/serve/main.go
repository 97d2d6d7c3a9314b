// Command serve is the whole serving task in one file: a stateful agent
// that changes its state, calls a tool, streams text and stops on an
// interrupt for the user's approval, served with CORS for a browser front
// end and drained on SIGTERM. The emits go unchecked on purpose: the first
// one that fails is the run's failure, reported by the driver.
//
//	go run ./examples/serve
//	agui run http://127.0.0.1:8000/agent --message Paris
package main

import (
	"context"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// Trip is the state the agent and the front end share.
type Trip struct {
	City   string `json:"city"`
	Booked bool   `json:"booked"`
}

// book looks up the weather in the city the user named, says what it found
// and asks for approval; the run that carries the answer books the trip.
func book(ctx context.Context, rc *server.RunContext[Trip]) (server.Outcome, error) {
	if resume := rc.Resume(); len(resume) > 0 {
		ok := resume[0].Status == agui.ResumeStatusResolved
		rc.ChangeState(func(t *Trip) { t.Booked = ok })
		rc.Say(map[bool]string{true: "Booked.", false: "Not booked."}[ok])
		return server.Success(), nil
	}
	city := rc.LastUserText()
	rc.ChangeState(func(t *Trip) { t.City = city })
	rc.EmitToolCall("weather", map[string]string{"city": city}, map[string]any{"sky": "sunny", "highC": 24})
	rc.SayStream(strings.SplitAfterSeq("It is sunny in "+city+". Shall I book it?", " "))
	return server.Interrupted(server.NewInterrupt("approval", "Book a trip to "+city+"?")), nil
}

func handler() http.Handler {
	return server.NewHandler(server.AgentFunc[Trip](book), server.WithCORS("http://localhost:5173"))
}

// serve serves on ln until ctx is done, then gives live runs 10 seconds to
// end (each ends with RUN_ERROR CANCELLED "run cancelled: the server is
// shutting down").
func serve(ctx context.Context, ln net.Listener) error {
	return server.NewHTTPServer("", handler()).ServeUntil(ctx, ln, 10*time.Second)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:8000")
	if err != nil {
		log.Fatal(err)
	}
	if err := serve(ctx, ln); err != nil {
		log.Fatal(err)
	}
}
