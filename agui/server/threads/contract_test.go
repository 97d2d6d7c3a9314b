package threads_test

import (
	"testing"

	"github.com/agui-go/sdk/agui/server/threads"
	"github.com/agui-go/sdk/agui/server/threads/threadstest"
)

// The memory store keeps the contract of every store.
func TestMemoryContract(t *testing.T) {
	threadstest.Run(t, func(t *testing.T, c threadstest.Config) threadstest.Backend {
		s := threads.NewMemory(threads.MemoryOptions{
			MaxMessages: c.Bounds.MaxMessages, MaxBytes: c.Bounds.MaxBytes, MaxRuns: c.Bounds.MaxRuns,
			TTL: c.TTL, Now: c.Now,
		})
		return threadstest.Backend{Open: func() threads.Store { return s }}
	})
}
