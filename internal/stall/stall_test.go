package stall_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/agui-go/sdk/internal/stall"
)

// A goroutine that holds the only processor stalls the probe. (That an idle
// wait does not is left unchecked: on a loaded machine it may, and the
// probe is right to say so.)
func TestProbe(t *testing.T) {
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	stop := stall.Probe()
	time.Sleep(5 * time.Millisecond) // the probe is running
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
		// busy without yielding the only processor, until preempted
	}
	if s := stop(); s == 0 {
		t.Error("100ms holding the only processor counted as no stall")
	}
}
