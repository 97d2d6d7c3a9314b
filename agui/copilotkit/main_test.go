package copilotkit_test

import (
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// giveUp is how long a test waits for something that happens on another
// goroutine (a run to end, a goroutine to go) before it fails: far longer
// than a busy machine takes.
const giveUp = 20 * time.Second

// No goroutine a run, a handler or a test started may outlive the tests.
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
