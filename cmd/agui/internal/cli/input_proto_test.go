package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
)

func protoStream(t *testing.T, evs ...agui.Event) []byte {
	t.Helper()
	var b []byte
	for _, ev := range evs {
		var err error
		if b, err = protoframe.AppendFrame(b, ev); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// TestVerifyProtobuf runs agui verify on length-prefixed protobuf input:
// detected without a flag, checked by the same rules as SSE, an unknown arm
// dropped by the client profile and rejected by the server profile, and a
// stream that ends inside a frame reported as unreadable.
func TestVerifyProtobuf(t *testing.T) {
	start := &agui.RunStarted{ThreadID: "t", RunID: "r"}
	end := &agui.RunFinished{ThreadID: "t", RunID: "r"}
	valid := protoStream(t, start, agui.NewTextMessageStart("m"), agui.NewTextMessageContent("m", "hi"), agui.NewTextMessageEnd("m"), end)
	notOpen := protoStream(t, start, agui.NewTextMessageContent("m", "hi"), end)
	// Field 40 of the envelope: an event from a later protocol.
	future := append(protoframe.AppendMessage(protoStream(t, start), []byte{0xc2, 0x02, 0x02, 0x08, 0x01}), protoStream(t, end)...)
	tests := []struct {
		name    string
		in      []byte
		args    []string
		exit    int
		out     string
		errText string
	}{
		{name: "valid", in: valid, exit: ExitOK, out: "valid: 5 events (protobuf, client profile, protocol 1.1)"},
		{name: "valid, server profile", in: valid, args: []string{"--profile", "server"}, exit: ExitOK, out: "valid: 5 events (protobuf, server profile, protocol 1.1)"},
		{name: "not open", in: notOpen, exit: ExitRejected, out: "rejected at event 1 of 3 (TEXT_MESSAGE_CONTENT; protobuf"},
		{name: "unknown arm, client", in: future, exit: ExitOK, errText: "protobuf envelope field 40"},
		{name: "unknown arm, server", in: future, args: []string{"--profile", "server"}, exit: ExitRejected, out: "rejected at event 1"},
		{name: "truncated", in: valid[:len(valid)-3], exit: ExitUsage, errText: "ended inside a frame"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := &Env{Stdin: bytes.NewReader(tt.in), Stdout: &stdout, Stderr: &stderr}
			if got := runVerify(env, append(tt.args, "-")); got != tt.exit {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", got, tt.exit, &stdout, &stderr)
			}
			if !strings.Contains(stdout.String(), tt.out) {
				t.Fatalf("stdout %q does not contain %q", &stdout, tt.out)
			}
			if !strings.Contains(stderr.String(), tt.errText) {
				t.Fatalf("stderr %q does not contain %q", &stderr, tt.errText)
			}
		})
	}
}
