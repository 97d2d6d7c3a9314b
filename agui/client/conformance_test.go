package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/verify"
	"github.com/agui-go/sdk/internal/conformance"
)

// TestConformance runs every stream of the AG-UI 1.0 conformance corpus
// through a client pinned to 1.0 (WithProtocolVersion), and every stream of
// the 1.1 corpus through a default client, each over loopback HTTP, started
// from the fixture's input with its maxProtocolVersion, and checks every
// expect key.
//
// The 1.0 corpus also runs through a default client: a 1.1 client reads
// 1.0 producers as a 1.0 client does. Its one difference is the version
// its request declares, which "current-peer-declares-protocol-version"
// expects to be the client's own: 1.1 for it.
func TestConformance(t *testing.T) {
	t.Run("1.0-default-client", func(t *testing.T) {
		fixtures, err := conformance.LoadVersion("1.0")
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range fixtures {
			if f.Name == "current-peer-declares-protocol-version" {
				fixtures[i].Expect.Request = json.RawMessage(`{"protocolVersion":"` + agui.ProtocolVersion + `"}`)
			}
		}
		runConformance(t, fixtures, nil)
	})
	for _, version := range []string{"1.0", "1.1"} {
		t.Run(version, func(t *testing.T) {
			fixtures, err := conformance.LoadVersion(version)
			if err != nil {
				t.Fatal(err)
			}
			var pin []client.Option
			if version != agui.ProtocolVersion {
				pin = append(pin, client.WithProtocolVersion(version))
			}
			runConformance(t, fixtures, pin)
		})
	}
}

func runConformance(t *testing.T, fixtures []conformance.Fixture, pin []client.Option) {
	for _, f := range fixtures {
		t.Run(f.Name, func(t *testing.T) {
			srv := conformance.Serve(t, f)
			var o conformance.Observed
			opts := []client.Option{client.WithWarnings(func(w agui.Warning) { o.Warnings = append(o.Warnings, w.Message) })}
			opts = append(opts, pin...)
			if v := f.Client.MaxProtocolVersion; v != "" {
				opts = append(opts, client.WithMaxProtocolVersion(v))
			}
			c, err := client.New(srv.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var agentOpts []client.ThreadOption
			var params client.RunParams
			if f.Input != nil {
				in, ws, err := client.DecodeInput(f.Input)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range ws {
					o.Warnings = append(o.Warnings, w.Message)
				}
				agentOpts = append(agentOpts, client.WithMessages(in.Messages...), client.WithState(in.State))
				params = client.RunParams{Tools: in.Tools, Context: in.Context, ForwardedProps: in.ForwardedProps, Resume: in.Resume}
			}
			a := c.NewThread(agentOpts...)
			a.Subscribe(func(d client.Delivery) {
				ev := d.Event
				b, err := agui.AppendEvent(nil, ev)
				if err != nil {
					t.Errorf("a delivered %s does not encode: %v", ev.Type(), err)
				}
				o.Events = append(o.Events, json.RawMessage(b))
			})
			res, err := a.Run(context.Background(), params)
			o.Err = err
			if res == nil {
				t.Fatalf("no result: %v", err)
			}
			msgs, err := json.Marshal(a.Messages())
			if err != nil {
				t.Fatal(err)
			}
			o.Messages, o.State = msgs, a.State()
			o.Request = srv.Requests()[0]

			e := f.Expect
			if f.Name == "truncated-run-reported-as-completed" {
				// Deliberate difference: the reference reports a stream that
				// stops inside a run as completed (an admitted gap in the
				// corpus); the specification says a truncated run MUST NOT be
				// reported as a success. Ours fails the run with
				// verify.ErrTruncated, and keeps what was delivered (the
				// messages expectations stay).
				e.Outcome = "failed"
				if !errors.Is(o.Err, verify.ErrTruncated) {
					t.Errorf("err = %v, want ErrTruncated", o.Err)
				}
				if res.Outcome.Status != conversation.Running {
					t.Errorf("outcome %v, want running (no terminal event)", res.Outcome.Status)
				}
			}
			conformance.Check(t, f, e, &o, conformance.OurWording)
			if o.Err == nil && len(res.Warnings) != len(o.Warnings)-countInput(f) {
				t.Errorf("the result holds %d warnings, the hook saw %d", len(res.Warnings), len(o.Warnings)-countInput(f))
			}
		})
	}
}

// countInput is how many warnings DecodeInput gave for f's input.
func countInput(f conformance.Fixture) int {
	if f.Input == nil {
		return 0
	}
	_, ws, _ := client.DecodeInput(f.Input)
	return len(ws)
}
