package conversation

import (
	"encoding/json"
	"strconv"

	"github.com/agui-go/sdk/agui"
)

// Status is where the last run stands.
type Status uint8

const (
	// NotStarted: no run was seen yet.
	NotStarted Status = iota
	// Running: RUN_STARTED was seen and no terminal event since. A stream
	// that ends here was truncated: not a success.
	Running
	// Succeeded: RUN_FINISHED with a success outcome, or none.
	Succeeded
	// Interrupted: RUN_FINISHED with an interrupt outcome; the next run
	// must resume every interrupt.
	Interrupted
	// Cancelled: RUN_FINISHED with a cancelled outcome: stopped on purpose.
	Cancelled
	// Failed: RUN_ERROR.
	Failed
)

var statusNames = [...]string{NotStarted: "not-started", Running: "running", Succeeded: "succeeded", Interrupted: "interrupted", Cancelled: "cancelled", Failed: "failed"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// Outcome is how the last run ended, as its terminal event said.
type Outcome struct {
	Status   Status
	ThreadID string // from RUN_STARTED or RUN_FINISHED
	RunID    string
	// Result is RUN_FINISHED.result, for a success only.
	Result json.RawMessage
	// PendingToolCallIDs, for a success: the frontend tool calls the client
	// is expected to run. The outcome's own list when it names one, else
	// every tool call started in the run that got no TOOL_CALL_RESULT.
	PendingToolCallIDs []string
	// Interrupts, for an interrupted run.
	Interrupts []agui.Interrupt
	// Error is the RUN_ERROR, for a failed run.
	Error *agui.RunError
	// Usage is the terminal event's token usage (absent: not reported).
	Usage []agui.TokenUsage
}

// Outcome returns how the last run ended (or that it has not). Its slices
// and pointers are shared with the conversation until the next terminal
// event replaces them; treat them as read-only.
func (c *Conversation) Outcome() Outcome { return c.outcome }
