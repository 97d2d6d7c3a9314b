// Command consume drives an AG-UI agent as a UI does, on one thread: it
// asks for something that needs approval, approves the interrupt and
// resumes, reads the messages and the state, then stops a run midway. It
// talks to the demo agent (agui demo --addr 127.0.0.1:8000, or
// go run ./cmd/agui demo from a checkout):
//
//	go run ./examples/consume --url http://127.0.0.1:8000/agent
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/agui-go/sdk/agui/client"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8000/agent", "the agent's `URL`")
	flag.Parse()
	if err := consume(context.Background(), *url, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

var errStop = errors.New("the user pressed stop")

// consume is the whole task; main only gives it a URL.
func consume(ctx context.Context, url string, out io.Writer) error {
	c, err := client.New(url)
	if err != nil {
		return err
	}
	t := c.NewThread()
	t.AddUserMessage("Book a table, but interrupt for approval.")
	res, err := t.Run(ctx, client.RunParams{})
	for _, in := range t.Interrupts() { // the run paused on a question
		fmt.Fprintln(out, "approving:", *in.Message)
		err = errors.Join(err, t.Resolve(in.ID, nil))
	}
	if err == nil {
		res, err = t.Run(ctx, client.RunParams{}) // sends the answers
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s with %d messages, state %s\n", res.Outcome.Status, len(t.Messages()), t.State())
	ctx, cancel := context.WithCancelCause(ctx)
	t.Subscribe(func(client.Delivery) { cancel(errStop) }) // stop the next run once it is under way
	t.AddUserMessage("Now tell me something, slowly.")
	_, err = t.Run(ctx, client.RunParams{})
	fmt.Fprintln(out, "stopped:", errors.Is(err, context.Canceled), errors.Is(err, errStop))
	return nil
}
