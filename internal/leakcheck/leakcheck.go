// Package leakcheck ends a test binary as goleak.VerifyTestMain does, with
// the patience a loaded machine needs: goleak waits about half a second for
// stray goroutines, and a busy machine can take that long to run a
// goroutine's last lines.
package leakcheck

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Main runs the tests and, when they pass, fails the binary if a goroutine
// they started is still there after wait; it then exits.
func Main(m *testing.M, wait time.Duration) {
	code := m.Run()
	if code == 0 {
		err := goleak.Find()
		for deadline := time.Now().Add(wait); err != nil && time.Now().Before(deadline); err = goleak.Find() {
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "goleak: Errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
