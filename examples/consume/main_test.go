package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"testing"

	"github.com/agui-go/sdk/agui/server/demo"
	"go.uber.org/goleak"
)

// The example does its whole task against the demo agent's real handler.
func TestConsume(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close() // before goleak looks: the server's goroutines end with it
	var out bytes.Buffer
	if err := consume(context.Background(), srv.URL, &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	want := `approving: Book a table for two at 8pm?
succeeded with 4 messages, state {"topic":"booking","steps":["asked approval","resumed"],"approved":true}
stopped: true true
`
	if out.String() != want {
		t.Fatalf("the example printed\n%s\nwant\n%s", out.String(), want)
	}
}
