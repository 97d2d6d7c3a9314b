package client_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/internal/conformance"
)

func TestConformanceLowLevel(t *testing.T) {
	fixtures, err := conformance.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		t.Run(f.Name, func(t *testing.T) {
			srv := conformance.Serve(t, f)
			var o conformance.Observed
			opts := []client.Option{client.WithWarnings(func(w client.Warning) { o.Warnings = append(o.Warnings, w.String()) })}
			if v := f.Client.MaxProtocolVersion; v != "" {
				opts = append(opts, client.WithMaxProtocolVersion(v))
			}
			c, err := client.New(srv.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
			if f.Input != nil {
				var ws []client.Warning
				in, ws, err = client.DecodeInput(f.Input)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range ws {
					o.Warnings = append(o.Warnings, w.String())
				}
			}
			for ev, err := range c.Run(context.Background(), in) {
				if err != nil {
					o.Err = err
					break
				}
				b, err := agui.AppendEvent(nil, ev)
				if err != nil {
					t.Fatal(err)
				}
				o.Events = append(o.Events, json.RawMessage(b))
			}
			o.Request = srv.Requests()[0]
			e := f.Expect
			e.Messages, e.MessageCount, e.State = nil, nil, nil
			t.Logf("err: %v", o.Err)
			conformance.Check(t, f, e, &o, func(string, string, *conformance.Observed) error { return nil })
		})
	}
}
