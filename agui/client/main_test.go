package client_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: a run's request and body are
// closed however its loop ends. With shapeServerEnv set, the binary is
// instead the server of BenchmarkClientReadShapes, in a process of its own.
func TestMain(m *testing.M) {
	if os.Getenv(shapeServerEnv) != "" {
		os.Exit(serveShapes())
	}
	goleak.VerifyTestMain(m)
}
