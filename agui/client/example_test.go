package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// A Thread is a conversation a UI drives turn after turn: add what the
// user says, run, answer the interrupts the run raised, run again, read the
// messages and the state the agent's events built, stop a run midway.
func ExampleThread() {
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close()

	c, err := client.New(srv.URL, client.WithHeader("Authorization", "Bearer example"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	t := c.NewThread()
	t.AddUserMessage("Book a table, but interrupt for approval.")
	res, err := t.Run(ctx, client.RunParams{})
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range t.Interrupts() {
		fmt.Printf("%s: %s\n", res.Outcome.Status, *in.Message)
		if err := t.Resolve(in.ID, nil); err != nil { // an approval; Resolve(id, answer) sends an answer
			log.Fatal(err)
		}
	}
	if res, err = t.Run(ctx, client.RunParams{}); err != nil {
		log.Fatal(err)
	}
	last := res.NewMessages[len(res.NewMessages)-1].(*agui.AssistantMessage)
	fmt.Println(res.Outcome.Status, *last.Content, len(t.Messages()))
	fmt.Println(string(t.State()))

	stop := errors.New("the user pressed stop")
	ctx, cancel := context.WithCancelCause(ctx)
	t.Subscribe(func(d client.Delivery) {
		if _, ok := d.Event.(*agui.TextMessageContent); ok {
			cancel(stop) // the first word is enough
		}
	})
	t.AddUserMessage("Now say something slowly.")
	_, err = t.Run(ctx, client.RunParams{})
	fmt.Println(errors.Is(err, context.Canceled), errors.Is(err, stop))
	// Output:
	// interrupted: Book a table for two at 8pm?
	// succeeded Booked: a table for two at 8pm. 4
	// {"topic":"booking","steps":["asked approval","resumed"],"approved":true}
	// true true
}

// Client.Run streams the delivered events of one request, each with its
// position (d.Pos: the durable sequence number a server with durable runs
// sends, which Client.Resume takes).
func ExampleClient_Run() {
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close()

	c, _ := client.New(srv.URL)
	in := &agui.RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: []agui.Message{
		&agui.UserMessage{ID: "u1", Content: agui.TextContent("please fail")},
	}}
	for d, err := range c.Run(context.Background(), in) {
		if err != nil {
			log.Fatal(err) // transport, HTTP status, rejected or truncated stream
		}
		switch e := d.Event.(type) { //agui:nonexhaustive the example prints two kinds
		case *agui.TextMessageContent:
			fmt.Println("text:", e.Delta)
		case *agui.RunError:
			fmt.Println("run error:", *e.Code)
		}
	}
	// Output:
	// text: Calling the flaky service…
	// run error: AGENT_ERROR
}

// WithProtobuf asks for the protobuf binding; the demo server answers in it,
// and the run reads exactly as it does over SSE.
func ExampleWithProtobuf() {
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close()

	c, _ := client.New(srv.URL, client.WithProtobuf())
	t := c.NewThread()
	t.AddUserMessage("What is the weather in Paris?")
	res, err := t.Run(context.Background(), client.RunParams{})
	if err != nil {
		log.Fatal(err)
	}
	last := res.NewMessages[len(res.NewMessages)-1].(*agui.AssistantMessage)
	fmt.Println(res.Outcome.Status, len(res.Warnings))
	fmt.Println(*last.Content)
	// Output:
	// succeeded 0
	// It will be sunny in Paris, up to 24 °C.
}

// A program that handled events up to some position, then lost its
// process, picks a durable run up there: Resume delivers every later event
// once, at the positions a first reader saw.
func ExampleClient_Resume() {
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", demo.Handler(server.WithDurableRuns(server.DurableConfig{
		Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll,
		Detach: time.Minute, // the run outlives a reader that leaves
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	c, _ := client.New(srv.URL + "/agent")
	in := &agui.RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: []agui.Message{
		&agui.UserMessage{ID: "u1", Content: agui.TextContent("please fail")},
	}}
	var kept client.Position
	for d, err := range c.Run(context.Background(), in) {
		if err != nil {
			log.Fatal(err)
		}
		if d.Event.Type() == agui.EventTypeTextMessageStart {
			kept = d.Pos // the last event handled before the process died
			break
		}
	}
	for d, err := range c.Resume(context.Background(), "r1", kept) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(d.Pos, d.Event.Type())
	}
	// Output:
	// 3 TEXT_MESSAGE_CONTENT
	// 4 TEXT_MESSAGE_END
	// 5 RUN_ERROR
}
