package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
)

// waiting says a word and waits for its run to be cancelled.
func waiting() server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("waiting"); err != nil {
			return server.Outcome{}, err
		}
		<-ctx.Done()
		return server.Outcome{}, ctx.Err()
	})
}

var errUserLeft = errors.New("the user closed the tab")

// A run cancelled with a cause of the caller's (context.WithCancelCause)
// fails with an error that matches both context.Canceled and the cause,
// wherever the cancellation finds it: before the request, mid-stream, in a
// Thread's run, in a Resume, in a Cancel. A plain cancel matches
// context.Canceled alone.
func TestCancelWithCause(t *testing.T) {
	srv := httptest.NewServer(durableMux(waiting(), 0))
	defer srv.Close()
	c, _ := client.New(srv.URL + "/agent")
	in := func() *agui.RunAgentInput { return &agui.RunAgentInput{ThreadID: "t", RunID: agui.NewID()} }

	// drain runs seq, cancelling with cause at the first event when mid is
	// set, and returns its error.
	drain := func(seq func(func(client.Delivery, error) bool), cancel context.CancelCauseFunc, cause error, mid bool) error {
		for d, err := range seq {
			if err != nil {
				return err
			}
			if mid && d.Event.Type() == agui.EventTypeTextMessageContent {
				cancel(cause)
			}
		}
		return nil
	}
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context, cancel context.CancelCauseFunc, cause error) error
	}{
		{"run, before the request", func(ctx context.Context, cancel context.CancelCauseFunc, cause error) error {
			cancel(cause)
			return drain(c.Run(ctx, in()), cancel, cause, false)
		}},
		{"run, mid-stream", func(ctx context.Context, cancel context.CancelCauseFunc, cause error) error {
			return drain(c.Run(ctx, in()), cancel, cause, true)
		}},
		{"thread, mid-stream", func(ctx context.Context, cancel context.CancelCauseFunc, cause error) error {
			th := c.NewThread()
			th.Subscribe(func(d client.Delivery) {
				if d.Event.Type() == agui.EventTypeTextMessageContent {
					cancel(cause)
				}
			})
			_, err := th.Run(ctx, client.RunParams{})
			return err
		}},
		{"resume, mid-stream", func(ctx context.Context, cancel context.CancelCauseFunc, cause error) error {
			runIn := in()
			started := make(chan struct{})
			bg, stop := context.WithCancel(context.Background())
			defer stop()
			go func() {
				for d := range c.Run(bg, runIn) {
					if d.Event != nil && d.Event.Type() == agui.EventTypeTextMessageContent {
						close(started)
					}
				}
			}()
			<-started
			err := drain(c.Resume(ctx, runIn.RunID, client.Position{}), cancel, cause, true)
			c.Cancel(context.Background(), runIn.RunID)
			return err
		}},
		{"cancel route", func(ctx context.Context, cancel context.CancelCauseFunc, cause error) error {
			cancel(cause)
			return c.Cancel(ctx, "r")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			err := tc.run(ctx, cancel, errUserLeft)
			if !errors.Is(err, context.Canceled) || !errors.Is(err, errUserLeft) {
				t.Fatalf("err = %v: matches context.Canceled %v, the cause %v", err, errors.Is(err, context.Canceled), errors.Is(err, errUserLeft))
			}
			ctx, cancel = context.WithCancelCause(context.Background())
			defer cancel(nil)
			err = tc.run(ctx, cancel, nil) // cancel(nil): the cause is context.Canceled
			if !errors.Is(err, context.Canceled) || errors.Is(err, errUserLeft) {
				t.Fatalf("without a cause: err = %v", err)
			}
		})
	}
}
