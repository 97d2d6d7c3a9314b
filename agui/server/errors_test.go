package server_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

type quotaError struct{ left int }

func (e *quotaError) Error() string { return fmt.Sprintf("quota exhausted (%d left)", e.left) }

// An agent error, whatever its cause was made from (an error, a text, a
// format), reads "agent error: <cause>", carries code AGENT_ERROR, and lets
// errors.Is and errors.As reach the cause.
func TestAgentError(t *testing.T) {
	quota := &quotaError{left: 0}
	msg := "50% of the shards are down: %v" // a variable text with verbs: taken literally
	for _, tc := range []struct {
		name    string
		err     *server.Error
		message string
		is      error // reachable with errors.Is; nil for none
		as      bool  // a *quotaError is reachable with errors.As
	}{
		{"error", server.AgentError(fs.ErrNotExist), "agent error: file does not exist", fs.ErrNotExist, false},
		{"typed error", server.AgentError(quota), "agent error: quota exhausted (0 left)", quota, true},
		{"wrapped error", server.AgentError(fmt.Errorf("loading: %w", fs.ErrPermission)), "agent error: loading: permission denied", fs.ErrPermission, false},
		{"nil error", server.AgentError(nil), "agent error", nil, false},
		{"text", server.AgentError(errors.New("the weather service is down")), "agent error: the weather service is down", nil, false},
		{"text with percent", server.AgentError(errors.New(msg)), "agent error: 50% of the shards are down: %v", nil, false},
		{"format", server.AgentError(fmt.Errorf("the %s service is down", "weather")), "agent error: the weather service is down", nil, false},
		{"format wrapping", server.AgentError(fmt.Errorf("asking the model: %w", quota)), "agent error: asking the model: quota exhausted (0 left)", quota, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err.Code != agui.CodeAgentError || tc.err.Message != tc.message || tc.err.Error() != tc.message {
				t.Fatalf("got %s %q, want AGENT_ERROR %q", tc.err.Code, tc.err.Message, tc.message)
			}
			var e *server.Error
			if !errors.As(error(tc.err), &e) || e != tc.err {
				t.Fatal("errors.As does not find the *Error itself")
			}
			if tc.is != nil && !errors.Is(tc.err, tc.is) {
				t.Fatalf("errors.Is does not reach %v", tc.is)
			}
			var q *quotaError
			if got := errors.As(tc.err, &q); got != tc.as || (got && q != quota) {
				t.Fatalf("errors.As(*quotaError) = %v, want %v", got, tc.as)
			}
			if tc.message != "agent error" && tc.err.Unwrap() == nil {
				t.Fatal("no cause to unwrap")
			}
			if tc.message == "agent error" && tc.err.Unwrap() != nil {
				t.Fatalf("cause %v for an empty one", tc.err.Unwrap())
			}
		})
	}
	// The text of a text's cause is the text, exactly.
	if c := server.AgentError(errors.New(msg)).Unwrap(); c == nil || c.Error() != msg {
		t.Fatalf("cause %v", c)
	}
}
