//go:build !agui_noverify

package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/verify"
)

// randomAgent behaves as a seeded script: it opens and closes entities
// through the helpers (sometimes leaving them open), emits raw events that
// may break the rules, fans out to goroutines, ignores or honours errors,
// cancels its own run, and ends with an outcome, an error or a panic.
type randomAgent struct {
	seed   uint64
	runner *server.Runner[struct{}]
}

func (a *randomAgent) Run(ctx context.Context, rc *server.RunContext[struct{}]) (server.Outcome, error) {
	rng := rand.New(rand.NewPCG(a.seed, 7))
	careless := rng.IntN(3) == 0 // ignores emit errors
	var firstErr error
	check := func(err error) bool {
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return err == nil || careless
	}
	steps := rng.IntN(25)
	for i := 0; i < steps; i++ {
		var ok bool
		switch rng.IntN(12) {
		case 0:
			ok = check(rc.Say(fmt.Sprint("line ", i)))
		case 1:
			m, err := rc.StartTextMessage()
			ok = check(err)
			if m != nil {
				for range rng.IntN(4) {
					ok = ok && check(m.Append("x"))
				}
				if rng.IntN(4) > 0 {
					ok = ok && check(m.End())
				}
			}
		case 2:
			c, err := rc.StartToolCall("tool")
			ok = check(err)
			if c != nil {
				ok = ok && check(c.Args(`{}`))
				if rng.IntN(4) > 0 {
					ok = ok && check(c.ResultJSON(i))
				}
			}
		case 3:
			s, err := rc.StartStep(fmt.Sprint("step", rng.IntN(3)))
			ok = check(err)
			if s != nil && rng.IntN(4) > 0 {
				ok = ok && check(s.End())
			}
		case 4:
			r, err := rc.StartReasoning()
			ok = check(err)
			if r != nil {
				ok = ok && check(r.Think("hmm")) && check(r.End())
			}
		case 5:
			sub, err := rc.StartSubagent("sub")
			ok = check(err)
			if sub != nil {
				ok = ok && check(sub.Say("from the subagent"))
				if rng.IntN(4) > 0 {
					ok = ok && check(sub.Finish(nil))
				}
			}
		case 6: // raw events that may break a rule
			evs := []agui.Event{
				agui.NewTextMessageContent("ghost", "boo"),
				agui.NewToolCallEnd("ghost"),
				agui.NewStepFinished("never-started"),
				agui.NewCustom("ok", []byte(`true`)),
				agui.NewToolCallResult("m", "unknown-call", agui.TextContent("?")),
			}
			ok = check(rc.Emit(evs[rng.IntN(len(evs))]))
		case 7: // fan out
			var wg sync.WaitGroup
			var mu sync.Mutex
			for range 1 + rng.IntN(4) {
				wg.Go(func() {
					err := rc.Say("parallel")
					mu.Lock()
					check(err)
					mu.Unlock()
				})
			}
			wg.Wait()
			ok = firstErr == nil || careless
		case 8:
			a.runner.Cancel(server.ErrClientDisconnected)
			ok = true
		case 9:
			ok = check(rc.PublishStateSnapshot())
		case 10:
			if rng.IntN(10) == 0 {
				panic("random panic")
			}
			ok = true
		case 11:
			ok = check(ctx.Err()) // the seed's check_cancelled
		}
		if !ok {
			return server.Outcome{}, firstErr
		}
	}
	switch rng.IntN(6) {
	case 0:
		return server.Outcome{}, errors.New("random failure")
	case 1:
		return server.Interrupted(), nil // PROTOCOL
	case 2:
		return server.Interrupted(server.NewInterrupt("approval", "")), nil
	case 3:
		return server.Cancelled(), nil
	}
	return server.Success(), nil
}

func TestPropertyEveryStreamEndsOnce(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	n := 400
	if testing.Short() {
		n = 50
	}
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 99))
		stopAfter := -1
		if rng.IntN(4) == 0 {
			stopAfter = rng.IntN(10)
		}
		a := &randomAgent{seed: seed}
		a.runner = server.NewRunner[struct{}](context.Background(), a, input(), server.WithLogger(quiet))
		var evs []agui.Event
		stopped := false
		for ev, err := range a.runner.Events() {
			if err != nil {
				t.Fatalf("seed %d: error item %v", seed, err)
			}
			evs = append(evs, ev)
			if len(evs) == stopAfter {
				stopped = true
				break
			}
		}
		if stopped {
			continue // consumer stopped early: nothing to check but no leak (goleak)
		}
		var v verify.Server
		terminals := 0
		for i, ev := range evs {
			if err := v.Observe(ev); err != nil {
				t.Fatalf("seed %d: the server profile rejects event %d: %v\n%v", seed, i, err, types(evs))
			}
			if ev.Type() == agui.EventTypeRunFinished || ev.Type() == agui.EventTypeRunError {
				terminals++
			}
		}
		if err := v.Finish(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		last := evs[len(evs)-1].Type()
		if terminals != 1 || (last != agui.EventTypeRunFinished && last != agui.EventTypeRunError) {
			t.Fatalf("seed %d: %d terminal events, last %s", seed, terminals, last)
		}
	}
}
