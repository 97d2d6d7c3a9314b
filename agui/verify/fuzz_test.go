//go:build !agui_noverify

package verify_test

import (
	"math/rand/v2"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/verify"
	"github.com/agui-go/sdk/internal/interop"
)

// FuzzVerifier builds random event sequences from the fuzz input (see
// interop.Events: small id and subagent alphabets, every event type, chunks
// included). Neither profile may panic, and every stream the server profile
// accepts as one complete run (Observe and Finish all nil) the client
// profile accepts too.
func FuzzVerifier(f *testing.F) {
	for _, seed := range completeRuns(40) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		events := interop.Events(data)
		var s verify.Server
		var c verify.Client
		serverErr := run(&s, events)
		clientErr := run(&c, events)
		if serverErr == nil && clientErr != nil {
			for i, ev := range events {
				b, _ := ev.AppendJSON(nil)
				t.Logf("%2d %s", i, b)
			}
			t.Fatalf("the server profile accepts this run, the client profile rejects it: %v", clientErr)
		}
	})
}

// completeRuns returns encodings (for interop.Events) of n streams the
// server profile accepts as complete runs, grown event by event from seeded
// random bytes, so the fuzzer starts from valid runs and mutates them.
func completeRuns(n int) [][]byte {
	rng := rand.New(rand.NewPCG(7, 7))
	draw := func(first byte) []byte {
		b := make([]byte, 24)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		b[0] = first
		return b
	}
	accepts := func(events []agui.Event, complete bool) bool {
		var s verify.Server
		for _, ev := range events {
			if s.Observe(ev) != nil {
				return false
			}
		}
		return !complete || s.Finish() == nil
	}
	var out [][]byte
	for len(out) < n {
		ev, enc := interop.Next(draw(16)) // RUN_STARTED
		events, data := []agui.Event{ev}, enc
		for range 2 + rng.IntN(14) {
			for range 32 {
				ev, enc := interop.Next(draw(byte(rng.UintN(32))))
				if accepts(append(events, ev), false) {
					events, data = append(events, ev), append(data, enc...)
					break
				}
			}
		}
		for range 32 {
			ev, enc := interop.Next(draw(17)) // RUN_FINISHED
			if accepts(append(events, ev), true) {
				out = append(out, append(data, enc...))
				break
			}
		}
	}
	return out
}

func TestCompleteRunsAreAccepted(t *testing.T) {
	for i, data := range completeRuns(40) {
		var s verify.Server
		if err := run(&s, interop.Events(data)); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
	}
}
