package interop

import (
	"log/slog"
	"os"
	"testing"
)

// Handlers log through slog.Default unless a test gives them a logger; the
// failures and downgrades the interop tests cause on purpose are not worth a
// line of the suite's output.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}
