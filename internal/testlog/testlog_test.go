package testlog_test

import (
	"testing"

	"github.com/agui-go/sdk/internal/testlog"
)

// A record goes to the test's output; one logged after the test ended is
// dropped, not a panic of the test binary.
func TestNewDropsRecordsAfterTheTest(t *testing.T) {
	var late func()
	t.Run("inner", func(t *testing.T) {
		l := testlog.New(t)
		l.Info("during the test")
		late = func() { l.Info("after the test") }
	})
	late() // would panic if it reached the ended subtest's output
}
