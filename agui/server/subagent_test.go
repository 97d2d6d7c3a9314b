package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

func countEvents(events func(func(agui.Event) bool)) int {
	n := 0
	for range events {
		n++
	}
	return n
}

func wantSubagentEnded(t *testing.T, what string, err error) {
	t.Helper()
	var e *server.Error
	if !errors.Is(err, server.ErrSubagentEnded) || !errors.As(err, &e) || e.Code != agui.CodeProtocol {
		t.Fatalf("%s: %v, want a PROTOCOL *Error reaching ErrSubagentEnded", what, err)
	}
}

// Once a subagent ended (Finish, Suspend or Fail), its handle and every handle
// it created fail with ErrSubagentEnded and emit nothing; the run goes on.
func TestSubagentHandleIsDeadAfterEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(s *server.Subagent) error
	}{
		{"finish", func(s *server.Subagent) error { return s.Finish(map[string]int{"n": 1}) }},
		{"suspend", func(s *server.Subagent) error { return s.Suspend("interrupt-1") }},
		{"fail", func(s *server.Subagent) error { return s.Fail(errors.New("gave up")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, events := server.NewRunContext[server.NoState](context.Background(), input())
			sub, err := rc.StartSubagent("researcher")
			if err != nil {
				t.Fatal(err)
			}
			// Handles the subagent created while it was live.
			msg, err1 := sub.StartTextMessage()
			call, err2 := sub.StartToolCall("search")
			r, err3 := sub.StartReasoning()
			rm, err4 := r.StartMessage()
			step, err5 := sub.StartStep("look")
			act, err6 := sub.StartActivity("progress", map[string]int{"percent": 10})
			nested, err7 := sub.StartSubagent("helper")
			nestedMsg, err8 := nested.StartTextMessage()
			if err := errors.Join(err1, err2, err3, err4, err5, err6, err7, err8); err != nil {
				t.Fatal(err)
			}
			if err := tc.end(sub); err != nil {
				t.Fatal(err)
			}
			before := countEvents(events)
			for what, emit := range map[string]func() error{
				"Say":            func() error { return sub.Say("ghost") },
				"Emit":           func() error { return sub.Emit(agui.NewCustom("note", json.RawMessage(`1`))) },
				"Custom":         func() error { return sub.Custom("note", 1) },
				"EncryptedValue": func() error { return sub.EncryptedValue(agui.ReasoningEncryptedValueSubtypeMessage, msg.ID(), "x") },
				"StartTextMessage": func() error {
					_, err := sub.StartTextMessage()
					return err
				},
				"StartToolCall": func() error {
					_, err := sub.StartToolCall("t")
					return err
				},
				"StartReasoning": func() error {
					_, err := sub.StartReasoning()
					return err
				},
				"StartStep": func() error {
					_, err := sub.StartStep("s2")
					return err
				},
				"StartActivity": func() error {
					_, err := sub.StartActivity("progress", map[string]int{"percent": 1})
					return err
				},
				"StartSubagent": func() error {
					_, err := sub.StartSubagent("late")
					return err
				},
				"TextMessage.Append":         func() error { return msg.Append("ghost") },
				"TextMessage.End":            msg.End,
				"ToolCall.Args":              func() error { return call.Args(`{}`) },
				"ToolCall.ArgsJSON":          func() error { return call.ArgsJSON(map[string]int{}) },
				"ToolCall.EncryptedValue":    func() error { return call.EncryptedValue("x") },
				"ToolCall.Result":            func() error { return call.Result(agui.TextContent("ok")) },
				"Reasoning.Think":            func() error { return r.Think("hmm") },
				"Reasoning.EncryptedValue":   func() error { return r.EncryptedValue("x") },
				"Reasoning.End":              r.End,
				"ReasoningMessage.Append":    func() error { return rm.Append("hmm") },
				"ReasoningMessage.End":       rm.End,
				"ReasoningMessage.Encrypted": func() error { return rm.EncryptedValue("x") },
				"Step.End":                   step.End,
				"Activity.Update":            func() error { return act.Update(map[string]int{"percent": 20}) },
				"Activity.Snapshot":          func() error { return act.Snapshot(map[string]int{"percent": 30}) },
				"nested.Say":                 func() error { return nested.Say("ghost") },
				"nested.TextMessage.Append":  func() error { return nestedMsg.Append("ghost") },
				"nested.Finish":              func() error { return nested.Finish(nil) },
			} {
				wantSubagentEnded(t, what, emit())
			}
			// Ending again is still a no-op.
			if err := errors.Join(sub.Finish(nil), sub.Suspend(), sub.Fail(nil)); err != nil {
				t.Fatal(err)
			}
			if after := countEvents(events); after != before {
				t.Fatalf("%d events emitted through ended handles", after-before)
			}
			// The run itself, and other subagents, go on.
			if err := rc.Say("still here"); err != nil {
				t.Fatal(err)
			}
			other, err := rc.StartSubagent("other")
			if err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(other.Say("live"), other.Finish(nil)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A Finish racing with emits through the same subagent: every emit either
// lands before SUBAGENT_FINISHED or fails with ErrSubagentEnded; none is
// attributed to the subagent after it finished.
func TestSubagentEndRacesEmits(t *testing.T) {
	for range 20 {
		rc, events := server.NewRunContext[server.NoState](context.Background(), input())
		sub, err := rc.StartSubagent("worker")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 4 {
			wg.Go(func() {
				<-start
				for range 20000 {
					err := sub.Custom("tick", 1)
					if err == nil {
						continue
					}
					if !errors.Is(err, server.ErrSubagentEnded) {
						t.Errorf("emit: %v", err)
					}
					return
				}
				t.Error("emits through the subagent never failed")
			})
		}
		wg.Go(func() {
			<-start
			if err := sub.Finish(nil); err != nil {
				t.Errorf("finish: %v", err)
			}
		})
		close(start)
		wg.Wait()
		finished := false
		for ev := range events {
			if _, ok := ev.(*agui.SubagentFinished); ok {
				finished = true
			} else if c, ok := ev.(*agui.Custom); ok && finished && c.SubagentRunID != nil && *c.SubagentRunID == sub.ID() {
				t.Fatal("an event attributed to the subagent after SUBAGENT_FINISHED")
			}
		}
		if !finished {
			t.Fatal("no SUBAGENT_FINISHED")
		}
	}
}
