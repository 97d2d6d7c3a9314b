package copilotkit_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/agui-go/sdk/internal/leakcheck"
)

// giveUp is how long a test waits for something that happens on another
// goroutine (a run to end, a goroutine to go) before it fails: far longer
// than a busy machine takes.
const giveUp = 20 * time.Second

// No goroutine a run, a handler or a test started may outlive the tests.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	leakcheck.Main(m, giveUp)
}
