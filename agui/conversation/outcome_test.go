package conversation_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
)

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		name    string
		events  string
		status  conversation.Status
		pending []string
		result  string
		check   func(t *testing.T, o conversation.Outcome, c *conversation.Conversation)
	}{
		{name: "nothing yet", status: conversation.NotStarted},
		{name: "running", events: `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, status: conversation.Running},
		{
			name: "success derives the pending tool calls",
			events: `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
				{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}
				{"type":"TOOL_CALL_END","toolCallId":"c1"}
				{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"f"}
				{"type":"TOOL_CALL_END","toolCallId":"c2"}
				{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"c1","content":"done"}
				{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":{"ok":true},"usage":[{"inputTokens":3}]}`,
			status: conversation.Succeeded, pending: []string{"c2"}, result: `{"ok":true}`,
			check: func(t *testing.T, o conversation.Outcome, _ *conversation.Conversation) {
				if len(o.Usage) != 1 || *o.Usage[0].InputTokens != 3 || o.RunID != "r" || o.ThreadID != "t" {
					t.Errorf("usage or ids: %+v", o)
				}
			},
		},
		{
			name: "a named pending list wins",
			events: `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
				{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}
				{"type":"TOOL_CALL_END","toolCallId":"c1"}
				{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":["x"]}}`,
			status: conversation.Succeeded, pending: []string{"x"},
		},
		{
			name: "a new run resets the tally",
			events: `{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
				{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}
				{"type":"TOOL_CALL_END","toolCallId":"c1"}
				{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}
				{"type":"RUN_STARTED","threadId":"t","runId":"r2"}
				{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}`,
			status: conversation.Succeeded,
		},
		{
			name: "interrupt",
			events: `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
				{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":{"x":1},"outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"approval"}]}}`,
			status: conversation.Interrupted,
			check: func(t *testing.T, o conversation.Outcome, c *conversation.Conversation) {
				if len(o.Interrupts) != 1 || o.Interrupts[0].ID != "i1" || len(c.Interrupts()) != 1 {
					t.Errorf("interrupts %+v / %+v", o.Interrupts, c.Interrupts())
				}
			},
		},
		{
			name: "any other RUN_FINISHED clears the interrupts",
			events: `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
				{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"approval"}]}}
				{"type":"RUN_STARTED","threadId":"t","runId":"r2"}
				{"type":"RUN_FINISHED","threadId":"t","runId":"r2","outcome":{"type":"cancelled"}}`,
			status: conversation.Cancelled,
			check: func(t *testing.T, _ conversation.Outcome, c *conversation.Conversation) {
				if len(c.Interrupts()) != 0 {
					t.Errorf("interrupts %+v", c.Interrupts())
				}
			},
		},
		{
			name: "a late RUN_ERROR fails the run",
			events: `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
				{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
				{"type":"RUN_ERROR","message":"late","code":"X","usage":[{"outputTokens":1}]}`,
			status: conversation.Failed,
			check: func(t *testing.T, o conversation.Outcome, _ *conversation.Conversation) {
				if o.Error == nil || o.Error.Message != "late" || len(o.Usage) != 1 || o.RunID != "r" {
					t.Errorf("outcome %+v", o)
				}
			},
		},
		{name: "RUN_ERROR first", events: `{"type":"RUN_ERROR","message":"unavailable","code":"UNAVAILABLE"}`, status: conversation.Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := conversation.New(nil, nil)
			apply(t, c, events(t, tc.events))
			o := c.Outcome()
			if o.Status != tc.status || !slices.Equal(o.PendingToolCallIDs, tc.pending) || string(o.Result) != tc.result {
				t.Fatalf("got %v pending %v result %s; want %v %v %s", o.Status, o.PendingToolCallIDs, o.Result, tc.status, tc.pending, tc.result)
			}
			if tc.check != nil {
				tc.check(t, o, c)
			}
		})
	}
}

func interrupted(t *testing.T, thread string, interrupts string) *conversation.Conversation {
	t.Helper()
	c := conversation.New(messages(t, `[{"id":"u","role":"user","content":"go"}]`), nil)
	apply(t, c, events(t, `{"type":"RUN_STARTED","threadId":"`+thread+`","runId":"r1"}
		{"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"x","content":{}}
		{"type":"RUN_FINISHED","threadId":"`+thread+`","runId":"r1","outcome":{"type":"interrupt","interrupts":`+interrupts+`}}`))
	return c
}

func TestNextInput(t *testing.T) {
	c := conversation.New(messages(t, `[{"id":"u","role":"user","content":"hi"},{"id":"act","role":"activity","activityType":"x","content":{}}]`), nil)
	in, err := c.NextInput(conversation.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body, err := in.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"threadId":"` + in.ThreadID + `","runId":"` + in.RunID + `","protocolVersion":"` + agui.ProtocolVersion + `","state":{},"messages":[{"id":"u","role":"user","content":"hi"}],"tools":[],"context":[],"forwardedProps":{}}`
	if string(body) != want {
		t.Fatalf("got  %s\nwant %s", body, want)
	}
	if len(in.ThreadID) != 36 || in.ThreadID == in.RunID || c.ThreadID() != in.ThreadID {
		t.Fatalf("ids %q %q", in.ThreadID, in.RunID)
	}
	// The thread is kept; the next run gets a new run id.
	in2, err := c.NextInput(conversation.InputOptions{})
	if err != nil || in2.ThreadID != in.ThreadID || in2.RunID == in.RunID {
		t.Fatalf("second input %+v, %v", in2, err)
	}
	// New messages are those not present at the last NextInput.
	apply(t, c, events(t, `{"type":"TEXT_MESSAGE_START","messageId":"a"}
		{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"yes"}`))
	if nm := c.NewMessages(); len(nm) != 1 || text(nm[0]) != "yes" {
		t.Fatalf("new messages %v", nm)
	}
}

func text(m agui.Message) string {
	if am, ok := m.(*agui.AssistantMessage); ok && am.Content != nil {
		return *am.Content
	}
	return ""
}

func TestResume(t *testing.T) {
	const two = `[{"id":"i1","reason":"approval"},{"id":"i2","reason":"input","expiresAt":"2026-01-01T00:00:00Z"}]`
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	resolved := func(id string) agui.ResumeEntry {
		return agui.ResumeEntry{InterruptID: id, Status: agui.ResumeStatusResolved}
	}
	cancelled := func(id string) agui.ResumeEntry {
		return agui.ResumeEntry{InterruptID: id, Status: agui.ResumeStatusCancelled}
	}
	for _, tc := range []struct {
		name   string
		thread string
		resume []agui.ResumeEntry
		kind   conversation.ResumeErrorKind
		text   string
	}{
		{name: "every interrupt answered", resume: []agui.ResumeEntry{resolved("i1"), cancelled("i2")}},
		{name: "no resume", kind: conversation.Unanswered, text: "Thread has 2 pending interrupt(s) not addressed by resume: i1, i2"},
		{name: "one missing", resume: []agui.ResumeEntry{resolved("i1")}, kind: conversation.Unanswered},
		{name: "unknown id", resume: []agui.ResumeEntry{resolved("i1"), cancelled("i2"), resolved("i9")}, kind: conversation.Stale},
		{name: "answered twice", resume: []agui.ResumeEntry{resolved("i1"), resolved("i1"), cancelled("i2")}, kind: conversation.Duplicate},
		{name: "expired and resolved", resume: []agui.ResumeEntry{resolved("i1"), resolved("i2")}, kind: conversation.Expired, text: "Interrupt i2 expired at 2026-01-01T00:00:00Z and can no longer be answered. Cancel it to continue the thread."},
		{name: "another thread", thread: "other", resume: []agui.ResumeEntry{resolved("i1"), cancelled("i2")}, kind: conversation.CrossThread},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := interrupted(t, "t1", two)
			in, err := c.NextInput(conversation.InputOptions{ThreadID: tc.thread, Resume: tc.resume, Now: now})
			if tc.kind == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if in.ThreadID != "t1" || len(in.Resume) != 2 || len(in.Messages) != 1 {
					t.Fatalf("input %+v", in)
				}
				return
			}
			var re *conversation.ResumeError
			if !errors.As(err, &re) || re.Kind != tc.kind || !errors.Is(err, conversation.ErrResume) || in != nil {
				t.Fatalf("got %v, %v; want kind %v", in, err, tc.kind)
			}
			if tc.text != "" && err.Error() != tc.text {
				t.Fatalf("text %q, want %q", err, tc.text)
			}
		})
	}
	t.Run("stale after the interrupts were resolved", func(t *testing.T) {
		c := interrupted(t, "t1", `[{"id":"i1","reason":"approval"}]`)
		if _, err := c.NextInput(conversation.InputOptions{Resume: []agui.ResumeEntry{resolved("i1")}}); err != nil {
			t.Fatal(err)
		}
		apply(t, c, events(t, `{"type":"RUN_STARTED","threadId":"t1","runId":"r2"}
			{"type":"RUN_FINISHED","threadId":"t1","runId":"r2"}`))
		_, err := c.NextInput(conversation.InputOptions{Resume: []agui.ResumeEntry{resolved("i1")}})
		var re *conversation.ResumeError
		if !errors.As(err, &re) || re.Kind != conversation.Stale {
			t.Fatalf("got %v", err)
		}
	})
}

// Messages hands out copies: changing them, or applying more events, does
// not reach the other side.
func TestMessagesAreCopies(t *testing.T) {
	c := conversation.New(nil, nil)
	apply(t, c, events(t, `{"type":"TEXT_MESSAGE_START","messageId":"m"}
		{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}
		{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m"}`))
	first := c.Messages()
	apply(t, c, events(t, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"b"}
		{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{}"}`))
	am := first[0].(*agui.AssistantMessage)
	if *am.Content != "a" || am.ToolCalls[0].Function.Arguments != "" {
		t.Fatalf("an earlier copy changed: %q %q", *am.Content, am.ToolCalls[0].Function.Arguments)
	}
	am.ToolCalls[0].Function.Name = "changed"
	*am.Content = "changed"
	now := c.Messages()[0].(*agui.AssistantMessage)
	if *now.Content != "ab" || now.ToolCalls[0].Function.Name != "f" || now.ToolCalls[0].Function.Arguments != "{}" {
		t.Fatalf("got %q %+v", *now.Content, now.ToolCalls[0])
	}
	st := c.State()
	st[0] = 'x'
	if string(c.State()) != "{}" {
		t.Fatal("State shares its buffer")
	}
}

// The zero Conversation is an empty one.
func TestZeroConversation(t *testing.T) {
	var c conversation.Conversation
	if string(c.State()) != "{}" || len(c.Messages()) != 0 || len(c.NewMessages()) != 0 {
		t.Fatalf("zero value: %s %v", c.State(), c.Messages())
	}
	apply(t, &c, events(t, `{"type":"TEXT_MESSAGE_START","messageId":"m"}
		{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1}]}`))
	if len(c.Messages()) != 1 || string(c.State()) != `{"a":1}` || len(c.NewMessages()) != 1 {
		t.Fatalf("after events: %s %v", c.State(), c.Messages())
	}
	in, err := (&conversation.Conversation{}).NextInput(conversation.InputOptions{ThreadID: "t"})
	if err != nil || in.ThreadID != "t" || string(in.State) != "{}" {
		t.Fatalf("%+v %v", in, err)
	}
}
