//go:build !agui_noverify

package server_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/verify"
)

// A failed run is still a run: whatever the agent returns, the stream ends
// with RUN_ERROR saying what went wrong.
func Example_flakyAgent() {
	flaky := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("Looking that up."); err != nil {
			return server.Outcome{}, err
		}
		return server.Outcome{}, server.AgentError(errors.New("the weather service is down"))
	})

	var last agui.Event
	for ev, err := range server.Run(context.Background(), flaky, input()) {
		if err != nil {
			panic(err) // never: a failed run is not a broken stream
		}
		last = ev
	}
	runErr := last.(*agui.RunError)
	fmt.Println(runErr.Type())
	fmt.Println(runErr.Message)
	fmt.Println(*runErr.Code)
	// Output:
	// RUN_ERROR
	// agent error: the weather service is down
	// AGENT_ERROR
}

// Verification runs in the server, where the bug is made: raw content for a
// message that was never started is rejected before it leaves.
func Example_verification() {
	rc, _ := server.NewRunContext[server.NoState](context.Background(), input())

	err := rc.Emit(agui.NewTextMessageContent("msg-1", "hello"))

	var failure *verify.Error
	fmt.Println(errors.As(err, &failure))
	fmt.Println(failure.Rule == verify.NotOpen)
	var e *server.Error
	errors.As(err, &e)
	fmt.Println(e.Code)
	// Output:
	// true
	// true
	// PROTOCOL_VIOLATION
}

// Cancellation needs no cooperation from the agent: after the token fires,
// every emit fails, and the stream still ends with RUN_ERROR CANCELLED.
func Example_chattyAgentCancelled() {
	var runner *server.Runner[struct{}]
	chatty := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("one"); err != nil {
			return server.Outcome{}, err
		}
		runner.Cancel(server.ErrClientDisconnected) // a transport noticing the client leave
		if err := rc.Say("two"); err != nil {
			return server.Outcome{}, err // returns here
		}
		return server.Outcome{}, rc.Say("three")
	})
	runner = server.NewRunner(context.Background(), chatty, input())

	var said []string
	var last agui.Event
	for ev := range runner.Events() {
		if c, ok := ev.(*agui.TextMessageContent); ok {
			said = append(said, c.Delta)
		}
		last = ev
	}
	fmt.Println(said)
	fmt.Println(last.Type(), *last.(*agui.RunError).Code)
	// Output:
	// [one]
	// RUN_ERROR CANCELLED
}

// UntilCancelled races a long call against cancellation: the call's answer
// while the run is live, the CANCELLED error once it is not. The model call
// that never answers honours ctx, so it stops too, and nothing of it is left
// once UntilCancelled returned.
func Example_slowAgentUntilCancelled() {
	ctx, cancel := context.WithCancelCause(context.Background())
	callTheModel := func(ctx context.Context) (string, error) {
		return "the model's reply", nil
	}
	thinking := make(chan struct{})
	neverAnswers := func(ctx context.Context) (string, error) {
		close(thinking)
		<-ctx.Done() // a model call that never answers, but honours ctx
		return "", ctx.Err()
	}

	reply, err := server.UntilCancelled(ctx, callTheModel)
	fmt.Println(reply, err)

	go func() {
		<-thinking
		cancel(server.ErrClientDisconnected) // the client leaves while the model thinks
	}()
	reply, err = server.UntilCancelled(ctx, neverAnswers)
	fmt.Printf("%q %v\n", reply, server.IsCancelled(err))
	fmt.Println(err)
	fmt.Println(errors.Is(err, server.ErrClientDisconnected))
	// Output:
	// the model's reply <nil>
	// "" true
	// run cancelled: client disconnected
	// true
}

// A slow agent inside a run: its UntilCancelled returns the answer while the
// run is live and reports the cancellation after.
func ExampleUntilCancelled() {
	var runner *server.Runner[struct{}]
	slow := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		answer, err := server.UntilCancelled(ctx, func(ctx context.Context) (string, error) {
			return "sunny", nil
		})
		fmt.Println("live:", answer, err)
		runner.Cancel(server.ErrDeadline)
		_, err = server.UntilCancelled(ctx, func(ctx context.Context) (string, error) {
			select {
			case <-ctx.Done(): // honours ctx, so it stops too
				return "", ctx.Err()
			case <-time.After(time.Hour):
				return "rain", nil
			}
		})
		fmt.Println("after cancel:", err)
		return server.Outcome{}, err
	})
	runner = server.NewRunner(context.Background(), slow, input())
	for ev := range runner.Events() {
		if e, ok := ev.(*agui.RunError); ok {
			fmt.Println(e.Type(), *e.Code)
		}
	}
	// Output:
	// live: sunny <nil>
	// after cancel: run cancelled: run deadline exceeded
	// RUN_ERROR CANCELLED
}
