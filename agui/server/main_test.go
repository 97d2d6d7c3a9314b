package server_test

import (
	"testing"

	"github.com/agui-go/sdk/agui"

	"go.uber.org/goleak"
)

// No goroutine started by a run, a handler or a test may outlive the tests:
// cancelled and panicking runs included.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func input() *agui.RunAgentInput { return &agui.RunAgentInput{ThreadID: "t", RunID: "r"} }
