package server_test

import (
	"log/slog"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/leakcheck"
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
	leakcheck.Main(m, giveUp)
}

func input() *agui.RunAgentInput { return &agui.RunAgentInput{ThreadID: "t", RunID: "r"} }
