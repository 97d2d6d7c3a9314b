package protover

import (
	"errors"
	"testing"

	"github.com/agui-go/sdk/agui"
)

func TestServe(t *testing.T) {
	for _, tt := range []struct {
		declared  *string
		version   string
		downgrade bool
		warns     bool
		refused   bool
	}{
		{nil, "1.0", true, false, false},
		{new("1.0"), "1.0", true, false, false},
		{new("1.0.3"), "1.0", true, false, false},
		{new("0.0.57"), "1.0", true, false, false},
		{new("1.1"), "1.1", false, false, false},
		{new("1.2"), "1.1", false, true, false},
		{new("draft"), "1.1", false, true, false},
		{new("2.0"), "", false, false, true},
	} {
		s, err := Serve(tt.declared)
		name := "nothing"
		if tt.declared != nil {
			name = *tt.declared
		}
		var newer *ErrNewerMajor
		if tt.refused != errors.As(err, &newer) {
			t.Errorf("%s: err %v", name, err)
			continue
		}
		if tt.refused {
			continue
		}
		if s.Version.String() != tt.version || s.Downgrade != tt.downgrade || (s.Warning != "") != tt.warns {
			t.Errorf("%s: %+v", name, s)
		}
	}
}

func TestParse(t *testing.T) {
	for s, ok := range map[string]bool{"1.0": true, "1.1.0": true, "0.0.39": true, "1": false, "1.x": false, "1.-1": false, "1.0.0.0": false, "": false} {
		if _, err := Parse(s); (err == nil) != ok {
			t.Errorf("%q: %v", s, err)
		}
	}
	if MustParse("1.0").Cmp(MustParse("1.0.0")) != 0 || V1_0.Cmp(V1_1) >= 0 || Current.String() != agui.ProtocolVersion {
		t.Error("order")
	}
}

// TestStripEventCopies checks that stripping leaves the caller's event and
// messages as they were and returns what lost nothing as it is.
func TestStripEventCopies(t *testing.T) {
	call := agui.ToolCall{ID: "c", EncryptedValueType: new("t")}
	msg := &agui.AssistantMessage{ID: "a", EncryptedValueType: new("m"), ToolCalls: []agui.ToolCall{call}}
	plain := &agui.UserMessage{ID: "u"}
	snap := &agui.MessagesSnapshot{Messages: []agui.Message{plain, msg}}
	out, lost := StripEvent(snap)
	if len(lost) != 2 || lost[0] != "/messages/1/encryptedValueType" || lost[1] != "/messages/1/toolCalls/0/encryptedValueType" {
		t.Fatalf("lost %v", lost)
	}
	got := out.(*agui.MessagesSnapshot)
	if got == snap || got.Messages[0] != plain || got.Messages[1] == msg {
		t.Error("not copied as deep as the loss, or copied deeper")
	}
	if a := got.Messages[1].(*agui.AssistantMessage); a.EncryptedValueType != nil || a.ToolCalls[0].EncryptedValueType != nil {
		t.Error("not stripped")
	}
	if msg.EncryptedValueType == nil || msg.ToolCalls[0].EncryptedValueType == nil || snap.Messages[1] != msg {
		t.Error("the caller's event was modified")
	}
	same := agui.NewTextMessageContent("m", "x")
	if out, lost := StripEvent(same); out != agui.Event(same) || lost != nil {
		t.Error("an event without 1.1 members was not returned as it is")
	}
}
