package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// The tests start servers, both SDKs' clients and Node: none of them may
// leave a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
