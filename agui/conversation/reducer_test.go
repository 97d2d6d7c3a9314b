package conversation_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
)

// events decodes one event per line, strictly.
func events(t *testing.T, lines string) []agui.Event {
	t.Helper()
	var out []agui.Event
	for line := range strings.SplitSeq(strings.TrimSpace(lines), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		ev, err := agui.DecodeEvent([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out = append(out, ev)
	}
	return out
}

func messages(t *testing.T, text string) []agui.Message {
	t.Helper()
	if text == "" {
		return nil
	}
	in, err := agui.DecodeRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":` + text + `}`))
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return in.Messages
}

func apply(t *testing.T, c *conversation.Conversation, evs []agui.Event) []agui.Warning {
	t.Helper()
	var ws []agui.Warning
	for _, ev := range evs {
		ws = append(ws, c.Apply(ev)...)
	}
	return ws
}

func sameJSON(t *testing.T, got any, want string) bool {
	t.Helper()
	return mustJSON(t, got) == mustJSON(t, decodeAny(t, []byte(want)))
}

type reducerCase struct {
	name     string
	history  string // messages JSON
	state    string
	events   string // one event per line
	want     string // the final messages, exactly (member order aside)
	wantSt   string // the final state, when checked
	warnings []agui.WarningKind
	warnText string // a substring of the first warning
}

var reducerCases = []reducerCase{
	// Text messages.
	{
		name: "text triad",
		events: `{"type":"TEXT_MESSAGE_START","messageId":"m1"}
			{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hel"}
			{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"lo"}
			{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
		want: `[{"id":"m1","role":"assistant","content":"Hello"}]`,
	},
	{
		name: "text start with role, name and owner",
		events: `{"type":"TEXT_MESSAGE_START","messageId":"u","role":"user","name":"ann","subagentRunId":"s1"}
			{"type":"TEXT_MESSAGE_CONTENT","messageId":"u","delta":"hi"}
			{"type":"TEXT_MESSAGE_START","messageId":"d","role":"developer"}
			{"type":"TEXT_MESSAGE_START","messageId":"s","role":"system"}`,
		want: `[{"id":"u","role":"user","content":"hi","name":"ann","subagentRunId":"s1"},{"id":"d","role":"developer","content":""},{"id":"s","role":"system","content":""}]`,
	},
	{
		name:    "reopened message keeps its role and appends",
		history: `[{"id":"m1","role":"user","content":"a"}]`,
		events: `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
			{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`,
		want: `[{"id":"m1","role":"user","content":"ab"}]`,
	},
	{
		name:    "text into part content replaces it, as the reference does",
		history: `[{"id":"m1","role":"user","content":[{"type":"text","text":"x"}]}]`,
		events:  `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"y"}`,
		want:    `[{"id":"m1","role":"user","content":"y"}]`,
	},
	{
		name: "metadata merges per key, last write wins, no recursion",
		events: `{"type":"TEXT_MESSAGE_START","messageId":"m1","metadata":{"a":["one","two"],"b":1}}
			{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","metadata":{"a":["three"]}}
			{"type":"TEXT_MESSAGE_END","messageId":"m1","metadata":{"c":null}}`,
		want: `[{"id":"m1","role":"assistant","content":"x","metadata":{"a":["three"],"b":1,"c":null}}]`,
	},
	{
		name:     "content for a missing message",
		events:   `{"type":"TEXT_MESSAGE_CONTENT","messageId":"nope","delta":"x"}`,
		want:     `[]`,
		warnings: []agui.WarningKind{conversation.MissingMessage},
		warnText: "TEXT_MESSAGE_CONTENT: No message found with ID 'nope'",
	},
	{
		name:     "text end for a missing message",
		events:   `{"type":"TEXT_MESSAGE_END","messageId":"nope"}`,
		want:     `[]`,
		warnings: []agui.WarningKind{conversation.MissingMessage},
	},
	{
		name:    "text events on an activity message",
		history: `[{"id":"a","role":"activity","activityType":"x","content":{}}]`,
		events: `{"type":"TEXT_MESSAGE_START","messageId":"a"}
			{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x"}
			{"type":"REASONING_MESSAGE_START","messageId":"a","role":"reasoning"}`,
		want:     `[{"id":"a","role":"activity","activityType":"x","content":{}}]`,
		warnings: []agui.WarningKind{conversation.ActivityConflict, conversation.ActivityConflict, conversation.ActivityConflict},
		warnText: "message ids must be unique across activity and text messages",
	},

	// Reasoning.
	{
		name: "reasoning message",
		events: `{"type":"REASONING_START","messageId":"r"}
			{"type":"REASONING_MESSAGE_START","messageId":"rm","role":"reasoning","subagentRunId":"s1","metadata":{"k":1}}
			{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"think"}
			{"type":"REASONING_MESSAGE_END","messageId":"rm","metadata":{"k":2}}
			{"type":"REASONING_END","messageId":"r"}`,
		want: `[{"id":"rm","role":"reasoning","content":"think","subagentRunId":"s1","metadata":{"k":2}}]`,
	},
	{
		name:     "reasoning content for a missing message",
		events:   `{"type":"REASONING_MESSAGE_CONTENT","messageId":"x","delta":"d"}`,
		want:     `[]`,
		warnings: []agui.WarningKind{conversation.MissingMessage},
		warnText: "REASONING_MESSAGE_CONTENT: No message found with ID 'x'",
	},

	// Tool calls.
	{
		name:    "tool call on an existing assistant message",
		history: `[{"id":"a1","role":"assistant","content":"let me look"}]`,
		events: `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"a1","metadata":{"p":1}}
			{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":"}
			{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"1}","metadata":{"n":2}}
			{"type":"TOOL_CALL_END","toolCallId":"c1","metadata":{"p":3}}`,
		want: `[{"id":"a1","role":"assistant","content":"let me look","toolCalls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{\"q\":1}"},"metadata":{"p":3,"n":2}}]}]`,
	},
	{
		name:   "tool call creates its named parent, owned by the event's subagent",
		events: `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"a1","subagentRunId":"s1"}`,
		want:   `[{"id":"a1","role":"assistant","subagentRunId":"s1","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""}}]}]`,
	},
	{
		name:   "tool call without a parent gets one named after it",
		events: `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}`,
		want:   `[{"id":"c1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""}}]}]`,
	},
	{
		name:     "tool call whose parent is not an assistant message",
		history:  `[{"id":"u1","role":"user","content":"q"}]`,
		events:   `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"u1"}`,
		want:     `[{"id":"u1","role":"user","content":"q"},{"id":"c1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""}}]}]`,
		warnings: []agui.WarningKind{conversation.ParentNotAssistant},
		warnText: "parentMessageId 'u1' matches a 'user' message, not assistant",
	},
	{
		name: "tool call restarted under another name",
		events: `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"a1"}
			{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}
			{"type":"TOOL_CALL_END","toolCallId":"c1"}
			{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"g","parentMessageId":"a1"}`,
		want:     `[{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"g","arguments":"{}"}}]}]`,
		warnings: []agui.WarningKind{conversation.ToolCallRenamed},
		warnText: "tool call 'c1' already exists with name 'f' — updating it to 'g'",
	},
	{
		name: "arguments and end for an unknown call",
		events: `{"type":"TOOL_CALL_ARGS","toolCallId":"x","delta":"{}"}
			{"type":"TOOL_CALL_END","toolCallId":"x"}`,
		want:     `[]`,
		warnings: []agui.WarningKind{conversation.MissingToolCall, conversation.MissingToolCall},
		warnText: "TOOL_CALL_ARGS: No message found containing tool call with ID 'x'",
	},
	{
		name:    "tool result goes after its owner, before later messages",
		history: `[{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},{"id":"a2","role":"assistant","content":"later"}]`,
		events: `{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"c1","content":"one","metadata":{"m":1}}
			{"type":"TOOL_CALL_RESULT","messageId":"t2","toolCallId":"c2","content":[{"type":"text","text":"two"}],"subagentRunId":"s1"}`,
		want: `[{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},
			{"id":"t1","role":"tool","toolCallId":"c1","content":"one","metadata":{"m":1}},
			{"id":"t2","role":"tool","toolCallId":"c2","content":[{"type":"text","text":"two"}],"subagentRunId":"s1"},
			{"id":"a2","role":"assistant","content":"later"}]`,
	},
	{
		name:    "tool result for an unknown call goes last",
		history: `[{"id":"u","role":"user","content":"q"}]`,
		events:  `{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"zz","content":"r"}`,
		want:    `[{"id":"u","role":"user","content":"q"},{"id":"t1","role":"tool","toolCallId":"zz","content":"r"}]`,
	},

	// State.
	{
		name:   "state snapshot replaces, null included",
		state:  `{"a":1}`,
		events: `{"type":"STATE_SNAPSHOT","snapshot":null}`,
		want:   `[]`, wantSt: `null`,
	},
	{
		name:  "state delta",
		state: `{"count":1,"items":[]}`,
		events: `{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/count","value":2},{"op":"add","path":"/items/-","value":"x"}]}
			{"type":"STATE_DELTA","delta":[{"op":"test","path":"/count","value":2}]}`,
		want: `[]`, wantSt: `{"count":2,"items":["x"]}`,
	},
	{
		name:     "an unappliable delta warns and keeps the state",
		state:    `{"count":1}`,
		events:   `{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/count","value":9},{"op":"remove","path":"/missing"}]}`,
		want:     `[]`,
		wantSt:   `{"count":1}`,
		warnings: []agui.WarningKind{conversation.StatePatchFailed},
		warnText: "Failed to apply state patch:\nCurrent state: {\n  \"count\": 1\n}\nPatch operations: [",
	},

	// Messages snapshot.
	{
		name:    "snapshot reconciles by id",
		history: `[{"id":"a","role":"assistant","content":"draft"},{"id":"b","role":"user","content":"gone"},{"id":"r","role":"reasoning","content":"kept"},{"id":"act","role":"activity","activityType":"x","content":{}}]`,
		events:  `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"n","role":"user","content":"new"},{"id":"a","role":"assistant","content":"final"}]}`,
		want:    `[{"id":"a","role":"assistant","content":"final"},{"id":"r","role":"reasoning","content":"kept"},{"id":"act","role":"activity","activityType":"x","content":{}},{"id":"n","role":"user","content":"new"}]`,
	},
	{
		name:    "a snapshot carrying activity and reasoning owns them",
		history: `[{"id":"r","role":"reasoning","content":"old"},{"id":"act","role":"activity","activityType":"x","content":{}}]`,
		events:  `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"r2","role":"reasoning","content":"r2"},{"id":"act2","role":"activity","activityType":"y","content":{}}]}`,
		want:    `[{"id":"r2","role":"reasoning","content":"r2"},{"id":"act2","role":"activity","activityType":"y","content":{}}]`,
	},
	{
		name:    "authoritativeActivityTypes names the types the snapshot owns",
		history: `[{"id":"x1","role":"activity","activityType":"x","content":{}},{"id":"y1","role":"activity","activityType":"y","content":{}}]`,
		events:  `{"type":"MESSAGES_SNAPSHOT","messages":[],"metadata":{"@ag-ui/client":{"authoritativeActivityTypes":["x"]}}}`,
		want:    `[{"id":"y1","role":"activity","activityType":"y","content":{}}]`,
	},
	{
		name:    "authoritativeActivityTypes null owns every type",
		history: `[{"id":"x1","role":"activity","activityType":"x","content":{}}]`,
		events:  `{"type":"MESSAGES_SNAPSHOT","messages":[],"metadata":{"@ag-ui/client":{"authoritativeActivityTypes":null}}}`,
		want:    `[]`,
	},
	{
		name: "a snapshot over a streaming message and its call",
		events: `{"type":"TEXT_MESSAGE_START","messageId":"m"}
			{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"partial"}
			{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"a"}
			{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"x\""}
			{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"assistant","content":"whole"},{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}
			{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"!"}
			{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":" "}`,
		want: `[{"id":"m","role":"assistant","content":"whole!"},{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{} "}}]}]`,
	},

	// Activities.
	{
		name: "activity snapshot, replace, delta",
		events: `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"search","content":{"q":"x"},"metadata":{"m":1}}
			{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"search2","content":{"q":"y","n":0},"subagentRunId":"s1"}
			{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"search3","patch":[{"op":"replace","path":"/n","value":1}],"metadata":{"m":2}}`,
		want: `[{"id":"a","role":"activity","activityType":"search3","content":{"q":"y","n":1},"subagentRunId":"s1","metadata":{"m":2}}]`,
	},
	{
		name: "activity snapshot with replace false keeps content and type",
		events: `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t1","content":{"v":1}}
			{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t2","content":{"v":2},"replace":false,"metadata":{"seen":true}}`,
		want: `[{"id":"a","role":"activity","activityType":"t1","content":{"v":1},"metadata":{"seen":true}}]`,
	},
	{
		name:    "activity snapshot replaces a message of another kind",
		history: `[{"id":"a","role":"assistant","content":"x"}]`,
		events:  `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{}}`,
		want:    `[{"id":"a","role":"activity","activityType":"t","content":{}}]`,
	},
	{
		name:    "activity snapshot with replace false leaves a message of another kind",
		history: `[{"id":"a","role":"assistant","content":"x"}]`,
		events:  `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{},"replace":false}`,
		want:    `[{"id":"a","role":"assistant","content":"x"}]`,
	},
	{
		name:   "activity delta to a missing message is skipped silently",
		events: `{"type":"ACTIVITY_DELTA","messageId":"zz","activityType":"t","patch":[]}`,
		want:   `[]`,
	},
	{
		name:     "activity delta to another kind of message",
		history:  `[{"id":"a","role":"assistant","content":"x"}]`,
		events:   `{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"t","patch":[]}`,
		want:     `[{"id":"a","role":"assistant","content":"x"}]`,
		warnings: []agui.WarningKind{conversation.NotActivity},
		warnText: "ACTIVITY_DELTA: Message 'a' is not an activity message",
	},
	{
		name: "an unappliable activity delta keeps the content, merges the metadata",
		events: `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"v":1}}
			{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"t2","patch":[{"op":"remove","path":"/zz"}],"metadata":{"m":1}}`,
		want:     `[{"id":"a","role":"activity","activityType":"t","content":{"v":1},"metadata":{"m":1}}]`,
		warnings: []agui.WarningKind{conversation.ActivityPatchFailed},
		warnText: "Failed to apply activity patch for 'a': ",
	},

	// Encrypted values.
	{
		name:    "encrypted values on a call and a message; unknown entities ignored",
		history: `[{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""}}]},{"id":"r","role":"reasoning","content":""},{"id":"act","role":"activity","activityType":"x","content":{}}]`,
		events: `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c1","encryptedValue":"E1"}
			{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"r","encryptedValue":"E2"}
			{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"act","encryptedValue":"E3"}
			{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"nobody","encryptedValue":"E4"}`,
		want: `[{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""},"encryptedValue":"E1"}]},{"id":"r","role":"reasoning","content":"","encryptedValue":"E2"},{"id":"act","role":"activity","activityType":"x","content":{}}]`,
	},

	// Runs.
	{
		name:    "RUN_STARTED adds the input's messages not held",
		history: `[{"id":"u1","role":"user","content":"held"}]`,
		events:  `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":"other"},{"id":"u2","role":"user","content":"new"}]}}`,
		want:    `[{"id":"u1","role":"user","content":"held"},{"id":"u2","role":"user","content":"new"}]`,
	},
	{
		name:     "a chunk is not applied",
		events:   `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x"}`,
		want:     `[]`,
		warnings: []agui.WarningKind{conversation.UnexpandedChunk},
		warnText: "TEXT_MESSAGE_CHUNK must be transformed before being applied",
	},
	{
		name: "events that change nothing",
		events: `{"type":"RAW","event":{"x":1}}
			{"type":"CUSTOM","name":"n","value":1}
			{"type":"STEP_STARTED","stepName":"s"}
			{"type":"STEP_FINISHED","stepName":"s"}
			{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"helper"}
			{"type":"SUBAGENT_FINISHED","subagentRunId":"s1"}
			{"type":"SUBAGENT_ERROR","subagentRunId":"s2","message":"x"}`,
		want: `[]`, wantSt: `{}`,
	},
}

func TestApply(t *testing.T) {
	for _, tc := range reducerCases {
		t.Run(tc.name, func(t *testing.T) {
			var st json.RawMessage
			if tc.state != "" {
				st = json.RawMessage(tc.state)
			}
			c := conversation.New(messages(t, tc.history), st)
			ws := apply(t, c, events(t, tc.events))
			var kinds []agui.WarningKind
			for _, w := range ws {
				kinds = append(kinds, w.Kind)
			}
			if !slices.Equal(kinds, tc.warnings) {
				t.Errorf("warnings %v, want %v", ws, tc.warnings)
			}
			if tc.warnText != "" && (len(ws) == 0 || !strings.Contains(ws[0].Message, tc.warnText)) {
				t.Errorf("warning %q does not contain %q", ws, tc.warnText)
			}
			if got := messagesJSON(t, c.Messages()); !sameJSON(t, got, tc.want) {
				t.Errorf("messages\n got  %s\n want %s", mustJSON(t, got), mustJSON(t, decodeAny(t, []byte(tc.want))))
			}
			if got := c.Len(); got != len(c.Messages()) {
				t.Errorf("Len %d", got)
			}
			if tc.wantSt != "" && !sameJSON(t, decodeAny(t, c.State()), tc.wantSt) {
				t.Errorf("state %s, want %s", c.State(), tc.wantSt)
			}
		})
	}
}
