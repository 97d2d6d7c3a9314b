package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// TestVersionsEndToEnd runs our client against our server in both versions:
// a 1.1 client is served 1.1 and keeps encryptedValueType; a client pinned
// to 1.0 declares 1.0, is served a 1.0 stream, and so reads it without a
// single warning.
func TestVersionsEndToEnd(t *testing.T) {
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		ev := agui.NewReasoningEncryptedValue(agui.ReasoningEncryptedValueSubtypeMessage, "m", "opaque")
		ev.EncryptedValueType = new("redacted")
		return server.Success(), rc.Emit(ev)
	})
	srv := httptest.NewServer(server.NewHandler(agent))
	defer srv.Close()
	for _, tt := range []struct {
		pin      string
		declared string
		keeps    bool
	}{{"", "1.1", true}, {"1.0", "1.0", false}} {
		var warns []agui.Warning
		opts := []client.Option{client.WithWarnings(func(w agui.Warning) { warns = append(warns, w) })}
		if tt.pin != "" {
			opts = append(opts, client.WithProtocolVersion(tt.pin))
		}
		c, err := client.New(srv.URL, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var declared string
		var got *agui.ReasoningEncryptedValue
		for d, err := range c.Run(context.Background(), &agui.RunAgentInput{ThreadID: "t", RunID: "r"}) {
			if err != nil {
				t.Fatal(err)
			}
			switch ev := d.Event.(type) { //agui:nonexhaustive the test looks at two types
			case *agui.RunStarted:
				declared = *ev.ProtocolVersion
			case *agui.ReasoningEncryptedValue:
				got = ev
			}
		}
		if declared != tt.declared || got == nil || got.EncryptedValue != "opaque" || (got.EncryptedValueType != nil) != tt.keeps {
			t.Errorf("pin %q: served %q, event %+v", tt.pin, declared, got)
		}
		if len(warns) != 0 {
			var msgs []string
			for _, w := range warns {
				msgs = append(msgs, w.Message)
			}
			t.Errorf("pin %q: warnings %s", tt.pin, strings.Join(msgs, "; "))
		}
	}
	if _, err := client.New(srv.URL, client.WithProtocolVersion("1.2")); err == nil {
		t.Error("a client can be pinned to a version it does not speak")
	}
	if _, err := client.New(srv.URL, client.WithProtocolVersion("0.0.57")); err == nil {
		t.Error("a client can be pinned below 1.0 (that is WithMaxProtocolVersion's business)")
	}
}

// TestVersionsOnReattach reads back, with a client pinned to 1.0, a durable
// run that a 1.1 client started: the reattach declares 1.0 (a GET carries
// it in the query), so the server translates the logged run and the pinned
// client reads it without a warning.
func TestVersionsOnReattach(t *testing.T) {
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		ev := agui.NewReasoningEncryptedValue(agui.ReasoningEncryptedValueSubtypeMessage, "m", "opaque")
		ev.EncryptedValueType = new("redacted")
		return server.Success(), rc.Emit(ev)
	})
	mux := http.NewServeMux()
	server.Mount(mux, "/agent", server.NewHandler(agent,
		server.WithDurableRuns(server.DurableConfig{Log: runlog.NewMemory(runlog.MemoryOptions{}), Authorize: server.AllowAll})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	current, err := client.New(srv.URL + "/agent")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range current.Run(context.Background(), &agui.RunAgentInput{ThreadID: "t", RunID: "r"}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	var warns []string
	pinned, err := client.New(srv.URL+"/agent", client.WithProtocolVersion("1.0"),
		client.WithWarnings(func(w agui.Warning) { warns = append(warns, w.Message) }))
	if err != nil {
		t.Fatal(err)
	}
	var declared string
	var got *agui.ReasoningEncryptedValue
	for d, err := range pinned.Resume(context.Background(), "r", client.Position{}) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev := d.Event.(type) { //agui:nonexhaustive the test looks at two types
		case *agui.RunStarted:
			declared = *ev.ProtocolVersion
		case *agui.ReasoningEncryptedValue:
			got = ev
		}
	}
	if declared != "1.0" || got == nil || got.EncryptedValue != "opaque" || got.EncryptedValueType != nil {
		t.Errorf("served %q, event %+v", declared, got)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %s", strings.Join(warns, "; "))
	}
}
