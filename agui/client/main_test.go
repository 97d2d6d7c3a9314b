package client_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: a run's request and body are
// closed however its loop ends.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
