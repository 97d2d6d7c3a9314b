package main

import (
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/agui-go/sdk/agui/server/demo"
	"go.uber.org/goleak"
)

// TestMain runs the example itself when the test asks for it: the test
// runs this binary as the program, as a user runs it.
func TestMain(m *testing.M) {
	if os.Getenv("AGUI_CONSUME_RUN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The example does its whole task against the demo agent's real handler.
func TestConsume(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv := httptest.NewServer(demo.Handler())
	defer srv.Close() // before goleak looks: the server's goroutines end with it
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AGUI_CONSUME_RUN=1", "AGUI_URL="+srv.URL)
	out, err := cmd.Output()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		t.Fatalf("the example failed: %v\n%s%s", err, out, ee.Stderr)
	} else if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + string(out))
	want := `approving: Book a table for two at 8pm?
succeeded with 4 messages, state {"topic":"booking","steps":["asked approval","resumed"],"approved":true}
stopped: true
`
	if string(out) != want {
		t.Fatalf("the example printed\n%s\nwant\n%s", out, want)
	}
}
