package verify_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/verify"
)

// TestCheckProtocol checks the member 1.1 added against each version: a 1.1
// check accepts it in both profiles; a 1.0 check (asked for, or declared by
// the stream) rejects it in the server profile and strips it with a
// warning in the client profile.
func TestCheckProtocol(t *testing.T) {
	stream := func(declared string) [][]byte {
		return [][]byte{
			[]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"` + declared + `"}`),
			[]byte(`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"e","encryptedValueType":"redacted"}`),
			[]byte(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`),
		}
	}
	for _, tt := range []struct {
		declared, ask string
		profile       verify.Profile
		protocol      string
		ok            bool
		warnings      int
	}{
		{"1.1", "", verify.ServerProfile, "1.1", true, 0},
		{"1.1", "", verify.ClientProfile, "1.1", true, 0},
		{"1.2", "", verify.ServerProfile, "1.1", true, 0},
		{"1.0", "", verify.ServerProfile, "1.0", false, 0},
		{"1.0", "", verify.ClientProfile, "1.0", true, 1},
		{"1.1", "1.0", verify.ServerProfile, "1.0", false, 0},
		{"1.1", "1.0", verify.ClientProfile, "1.0", true, 1},
		{"1.0", "1.1", verify.ServerProfile, "1.1", true, 0},
	} {
		docs := stream(tt.declared)
		r, err := verify.CheckStreamVersion(tt.profile, tt.ask, func(yield func([]byte, error) bool) {
			for _, d := range docs {
				if !yield(d, nil) {
					return
				}
			}
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		name := tt.profile.String() + "/declared " + tt.declared + "/asked " + tt.ask
		if r.Protocol != tt.protocol || r.OK() != tt.ok || len(r.Warnings) != tt.warnings {
			t.Errorf("%s: protocol %s ok %v warnings %v err %v", name, r.Protocol, r.OK(), r.Warnings, r.Err)
			continue
		}
		var de *agui.DecodeError
		if !tt.ok && (r.Index != 1 || !errors.As(r.Err, &de) || de.Path != "/encryptedValueType") {
			t.Errorf("%s: rejected at %d with %v", name, r.Index, r.Err)
		}
		if tt.warnings > 0 && !strings.Contains(r.Warnings[0].Message, "/encryptedValueType") {
			t.Errorf("%s: warning %q", name, r.Warnings[0].Message)
		}
	}
	if _, err := verify.CheckStreamVersion(verify.ClientProfile, "0.9", func(func([]byte, error) bool) {}, nil); err == nil {
		t.Error("an unknown protocol version was accepted")
	}
}
