package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server/demo"
)

// An Agent runs the demo agent and reports what the run left behind.
func ExampleAgent() {
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close()

	c, err := client.New(srv.URL, client.WithHeader("Authorization", "Bearer example"))
	if err != nil {
		log.Fatal(err)
	}
	a := c.NewThread(client.WithMessages(
		&agui.UserMessage{ID: "u1", Content: agui.TextContent("What is the weather in Paris?")},
	))
	res, err := a.Run(context.Background(), client.RunParams{})
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

// Client.Run streams the delivered events of one request.
func ExampleClient_Run() {
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close()

	c, _ := client.New(srv.URL)
	in := &agui.RunAgentInput{ThreadID: "t1", RunID: "r1", Messages: []agui.Message{
		&agui.UserMessage{ID: "u1", Content: agui.TextContent("please fail")},
	}}
	for d, err := range c.Run(context.Background(), in) {
		ev := d.Event
		if err != nil {
			log.Fatal(err) // transport, HTTP status, rejected or truncated stream
		}
		switch e := ev.(type) { //agui:nonexhaustive the example prints two kinds
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
	a := c.NewThread(client.WithMessages(
		&agui.UserMessage{ID: "u1", Content: agui.TextContent("What is the weather in Paris?")},
	))
	res, err := a.Run(context.Background(), client.RunParams{})
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
