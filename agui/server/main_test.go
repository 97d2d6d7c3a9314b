package server_test

import (
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"

	"go.uber.org/goleak"
)

// No goroutine started by a run, a handler or a test may outlive the tests:
// cancelled and panicking runs included. goleak.VerifyTestMain would give
// them about half a second to end, which a loaded machine can take to run a
// goroutine's last lines: they get giveUp.
//
// Runs log through slog.Default unless a test gives them a logger; the
// failures the tests cause on purpose are not worth a line of a -v run.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	code := m.Run()
	if code == 0 {
		err := goleak.Find()
		for deadline := time.Now().Add(giveUp); err != nil && time.Now().Before(deadline); err = goleak.Find() {
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "goleak: Errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func input() *agui.RunAgentInput { return &agui.RunAgentInput{ThreadID: "t", RunID: "r"} }
