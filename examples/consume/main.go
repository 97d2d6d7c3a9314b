// Command consume drives an AG-UI agent as a UI does, on one thread: it
// asks for something that needs approval, approves the interrupt and
// resumes, reads the messages and the state, then stops a run midway. It
// talks to the demo agent (agui demo --addr 127.0.0.1:8000, or
// go run ./cmd/agui demo from a checkout), or to the agent at $AGUI_URL:
//
//	go run ./examples/consume
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/agui-go/sdk/agui/client"
)

func main() {
	c, err := client.New(cmp.Or(os.Getenv("AGUI_URL"), "http://127.0.0.1:8000/agent"))
	if err != nil {
		log.Fatal(err)
	}
	t := c.NewThread()
	t.AddUserMessage("Book a table, but interrupt for approval.")
	res, err := t.Run(context.Background(), client.RunParams{})
	for _, in := range t.Interrupts() { // the run paused on a question
		fmt.Println("approving:", *in.Message)
		err = errors.Join(err, t.Resolve(in.ID, nil))
	}
	if err == nil {
		res, err = t.Run(context.Background(), client.RunParams{}) // sends the answers
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s with %d messages, state %s\n", res.Outcome.Status, len(t.Messages()), t.State())
	ctx, cancel := context.WithCancel(context.Background())
	t.Subscribe(func(client.Delivery) { cancel() }) // stop the next run once it is under way
	t.AddUserMessage("Now tell me something, slowly.")
	_, err = t.Run(ctx, client.RunParams{})
	fmt.Println("stopped:", errors.Is(err, context.Canceled))
}
