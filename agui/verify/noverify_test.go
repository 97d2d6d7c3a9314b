//go:build agui_noverify

package verify_test

import (
	"testing"
	"unsafe"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/verify"
)

// TestNoVerify runs with -tags agui_noverify: the server verifier is then a
// zero-size type that accepts anything, even a stream breaking every rule.
func TestNoVerify(t *testing.T) {
	if n := unsafe.Sizeof(verify.Server{}); n != 0 {
		t.Fatalf("verify.Server is %d bytes with agui_noverify, want 0", n)
	}
	var s verify.Server
	s.Seed(nil)
	invalid := []agui.Event{
		agui.NewTextMessageContent("msg-2", "before any run"),
		agui.NewRunStarted("t", "r1"),
		agui.NewRunStarted("t", "r2"),
		agui.NewTextMessageStart("m1"),
		agui.NewTextMessageStart("m1"),
		agui.NewToolCallResult("t1", "unknown", agui.TextContent("x")),
		agui.NewRunFinished("t", "r1"),
		agui.NewStepFinished("never"),
	}
	for i, ev := range invalid {
		if err := s.Observe(ev); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if err := s.Finish(); err != nil {
		t.Fatal(err)
	}
}

// TestNoVerifyKeepsTheLinter: the tag switches verification off in a server,
// not in Check, which agui verify uses to lint captured streams.
func TestNoVerifyKeepsTheLinter(t *testing.T) {
	rep := verify.Check(verify.ServerProfile, [][]byte{[]byte(`{"type":"TEXT_MESSAGE_START","messageId":"m"}`)})
	if rep.OK() {
		t.Fatal("Check accepted an event before RUN_STARTED under agui_noverify")
	}
}
