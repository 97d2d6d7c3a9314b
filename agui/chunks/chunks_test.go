package chunks_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/chunks"
	"github.com/agui-go/sdk/internal/interop"
)

func text(id, delta, tag string) *agui.TextMessageChunk {
	c := agui.NewTextMessageChunk()
	if id != "" {
		c.MessageID = &id
	}
	if delta != "" {
		c.Delta = &delta
	}
	if tag != "" {
		c.SubagentRunID = &tag
	}
	return c
}

func tool(id, name, delta string) *agui.ToolCallChunk {
	c := agui.NewToolCallChunk()
	if id != "" {
		c.ToolCallID = &id
	}
	if name != "" {
		c.ToolCallName = &name
	}
	if delta != "" {
		c.Delta = &delta
	}
	return c
}

func reasoning(id, delta string) *agui.ReasoningMessageChunk {
	c := agui.NewReasoningMessageChunk()
	if id != "" {
		c.MessageID = &id
	}
	if delta != "" {
		c.Delta = &delta
	}
	return c
}

// show renders events compactly for comparison: the JSON of each, one per
// line.
func show(events []agui.Event) string {
	var b strings.Builder
	for _, ev := range events {
		data, err := ev.AppendJSON(nil)
		if err != nil {
			panic(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

func expandAll(events ...agui.Event) ([]agui.Event, error) {
	var x chunks.Expander
	var out []agui.Event
	for _, ev := range events {
		var err error
		if out, err = x.Expand(out, ev); err != nil {
			return out, err
		}
	}
	return out, nil
}

func TestExpand(t *testing.T) {
	withMeta := text("", "", "")
	withMeta.Metadata = json.RawMessage(`{"usage":5}`)
	opener := text("m1", "Hi ", "")
	opener.Metadata = json.RawMessage(`{"a":1}`)
	opener.RawEvent = json.RawMessage(`{"p":1}`)
	named := text("m2", "", "")
	named.Role = new(agui.TextMessageRoleUser)
	named.Name = new("ann")
	parented := tool("c2", "g", "")
	parented.ParentMessageID = new("m1")

	tests := []struct {
		name string
		in   []agui.Event
		want string
	}{
		{
			name: "text chunks between run events",
			in:   []agui.Event{agui.NewRunStarted("t", "r"), text("m", "Hi ", ""), text("", "there", ""), agui.NewRunFinished("t", "r")},
			want: `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hi "}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"there"}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`,
		},
		{
			name: "metadata on start and content, rawEvent on content only, metadata-only continuation",
			in:   []agui.Event{opener, withMeta},
			want: `{"type":"TEXT_MESSAGE_START","metadata":{"a":1},"messageId":"m1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","rawEvent":{"p":1},"metadata":{"a":1},"messageId":"m1","delta":"Hi "}
{"type":"TEXT_MESSAGE_CONTENT","metadata":{"usage":5},"messageId":"m1","delta":""}
`,
		},
		{
			name: "an opener without delta emits only the start; role and name carried",
			in:   []agui.Event{named, text("", "", "")},
			want: `{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"user","name":"ann"}
`,
		},
		{
			name: "a new id closes the lane's stream first",
			in:   []agui.Event{text("m1", "a", ""), text("m2", "b", "")},
			want: `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}
{"type":"TEXT_MESSAGE_END","messageId":"m1"}
{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"b"}
`,
		},
		{
			name: "tool chunks; a chunk of another kind closes the lane",
			in:   []agui.Event{tool("c1", "f", `{"a"`), tool("", "", `:1}`), parented, reasoning("z", "hm")},
			want: `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"a\""}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":":1}"}
{"type":"TOOL_CALL_END","toolCallId":"c1"}
{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"g","parentMessageId":"m1"}
{"type":"TOOL_CALL_END","toolCallId":"c2"}
{"type":"REASONING_MESSAGE_START","messageId":"z","role":"reasoning"}
{"type":"REASONING_MESSAGE_CONTENT","messageId":"z","delta":"hm"}
`,
		},
		{
			name: "lanes per subagent; untagged id-less chunk continues the parent; END carries the opener's tag",
			in:   []agui.Event{text("p", "1", ""), text("s", "2", "x"), text("", "3", ""), text("", "4", "x"), agui.NewRunError("boom")},
			want: `{"type":"TEXT_MESSAGE_START","messageId":"p","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"1"}
{"type":"TEXT_MESSAGE_START","subagentRunId":"x","messageId":"s","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"x","messageId":"s","delta":"2"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"3"}
{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"x","messageId":"s","delta":"4"}
{"type":"TEXT_MESSAGE_END","messageId":"p"}
{"type":"TEXT_MESSAGE_END","subagentRunId":"x","messageId":"s"}
{"type":"RUN_ERROR","message":"boom"}
`,
		},
		{
			name: "the only open lane takes an untagged id-less chunk; content keeps the opener's tag",
			in:   []agui.Event{text("s", "1", "x"), text("", "2", "")},
			want: `{"type":"TEXT_MESSAGE_START","subagentRunId":"x","messageId":"s","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"x","messageId":"s","delta":"1"}
{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"x","messageId":"s","delta":"2"}
`,
		},
		{
			name: "RAW passes, CUSTOM closes",
			in:   []agui.Event{text("m", "a", ""), agui.NewRaw(json.RawMessage(`1`)), text("", "b", ""), agui.NewCustom("c", json.RawMessage(`1`))},
			want: `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}
{"type":"RAW","event":1}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"b"}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"CUSTOM","name":"c","value":1}
`,
		},
		{
			name: "an explicit event closes only its own lane",
			in:   []agui.Event{text("p", "1", ""), text("s", "2", "x"), agui.NewStepStarted("plan")},
			want: `{"type":"TEXT_MESSAGE_START","messageId":"p","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"1"}
{"type":"TEXT_MESSAGE_START","subagentRunId":"x","messageId":"s","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"x","messageId":"s","delta":"2"}
{"type":"TEXT_MESSAGE_END","messageId":"p"}
{"type":"STEP_STARTED","stepName":"plan"}
`,
		},
		{
			name: "a subagent's end closes its lane",
			in:   []agui.Event{text("s", "1", "x"), agui.NewSubagentFinished("x")},
			want: `{"type":"TEXT_MESSAGE_START","subagentRunId":"x","messageId":"s","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"x","messageId":"s","delta":"1"}
{"type":"TEXT_MESSAGE_END","subagentRunId":"x","messageId":"s"}
{"type":"SUBAGENT_FINISHED","subagentRunId":"x"}
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := expandAll(tc.in...)
			if err != nil {
				t.Fatal(err)
			}
			if got := show(out); got != tc.want {
				t.Errorf("got\n%swant\n%s", got, tc.want)
			}
		})
	}
}

func TestExpandErrors(t *testing.T) {
	restated := text("", "b", "")
	restated.Role = new(agui.TextMessageRoleUser)
	renamed := tool("", "g", "")
	tests := []struct {
		name string
		in   []agui.Event
		want chunks.Error
		msg  string
	}{
		{"first text chunk without id", []agui.Event{text("", "a", "")},
			chunks.Error{Kind: chunks.MissingID, Event: agui.EventTypeTextMessageChunk},
			"chunks: TEXT_MESSAGE_CHUNK cannot open a text message without a messageId, and no text message chunk stream is open for it to continue"},
		{"first tool chunk without name", []agui.Event{tool("c1", "", "{}")},
			chunks.Error{Kind: chunks.MissingName, Event: agui.EventTypeToolCallChunk, ID: "c1"},
			`chunks: TOOL_CALL_CHUNK cannot open tool call "c1" without a toolCallName`},
		{"first reasoning chunk without id", []agui.Event{reasoning("", "a")},
			chunks.Error{Kind: chunks.MissingID, Event: agui.EventTypeReasoningMessageChunk},
			"chunks: REASONING_MESSAGE_CHUNK cannot open a reasoning message without a messageId, and no reasoning message chunk stream is open for it to continue"},
		{"CUSTOM ends the stream an id-less chunk would continue", []agui.Event{text("m", "a", ""), agui.NewCustom("c", json.RawMessage(`1`)), text("", "b", "")},
			chunks.Error{Kind: chunks.MissingID, Event: agui.EventTypeTextMessageChunk}, ""},
		{"restated role", []agui.Event{text("m", "a", ""), restated},
			chunks.Error{Kind: chunks.Conflict, Event: agui.EventTypeTextMessageChunk, ID: "m", Field: "role", Got: "user", Want: "assistant"},
			`chunks: TEXT_MESSAGE_CHUNK restates role "user" for text message "m", whose opener established "assistant"`},
		{"restated tool name", []agui.Event{tool("c", "f", ""), renamed},
			chunks.Error{Kind: chunks.Conflict, Event: agui.EventTypeToolCallChunk, ID: "c", Field: "toolCallName", Got: "g", Want: "f"}, ""},
		{"name where the opener had none", []agui.Event{text("m", "a", ""), func() agui.Event { c := text("m", "", ""); c.Name = new("n"); return c }()},
			chunks.Error{Kind: chunks.Conflict, Event: agui.EventTypeTextMessageChunk, ID: "m", Field: "name", Got: "n", WantAbsent: true},
			`chunks: TEXT_MESSAGE_CHUNK restates name "n" for text message "m", whose opener established none`},
		{"id open in another lane", []agui.Event{text("m", "a", "x"), text("m", "b", "y")},
			chunks.Error{Kind: chunks.OwnerMismatch, Event: agui.EventTypeTextMessageChunk, ID: "m", Owner: "x", Tag: "y"},
			`chunks: TEXT_MESSAGE_CHUNK for text message "m" is attributed to subagent "y", but the text message is open in the lane of subagent "x"`},
		{"ambiguous", []agui.Event{text("a", "1", "x"), text("b", "2", "y"), text("", "3", "")},
			chunks.Error{Kind: chunks.Ambiguous, Event: agui.EventTypeTextMessageChunk, Lanes: 2},
			"chunks: TEXT_MESSAGE_CHUNK names neither a messageId nor a subagentRunId, and 2 subagent lanes have an open text message; attribute the chunk"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := expandAll(tc.in...)
			var ce *chunks.Error
			if !errors.As(err, &ce) || !errors.Is(err, chunks.ErrChunk) {
				t.Fatalf("got %v", err)
			}
			if *ce != tc.want {
				t.Errorf("got  %+v\nwant %+v", *ce, tc.want)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Errorf("message\ngot  %s\nwant %s", err, tc.msg)
			}
		})
	}
}

func TestAll(t *testing.T) {
	in := []agui.Event{agui.NewRunStarted("t", "r"), text("m", "a", ""), text("", "", ""), text("", "b", "")}
	seq := func(yield func(agui.Event, error) bool) {
		for _, ev := range in {
			if !yield(ev, nil) {
				return
			}
		}
		yield(nil, errors.New("connection lost"))
	}
	var types []string
	var last error
	for ev, err := range chunks.All(seq) {
		if err != nil {
			last = err
			continue
		}
		types = append(types, string(ev.Type()))
	}
	want := []string{"RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT"}
	if !slices.Equal(types, want) || last == nil || last.Error() != "connection lost" {
		t.Fatalf("got %v, %v", types, last)
	}
}

func ExampleExpander() {
	var x chunks.Expander
	var out []agui.Event
	for _, ev := range []agui.Event{
		agui.NewRunStarted("thread-1", "run-1"),
		text("msg-1", "Hello", ""),
		text("", ", world", ""),
		agui.NewRunFinished("thread-1", "run-1"),
	} {
		var err error
		if out, err = x.Expand(out[:0], ev); err != nil {
			fmt.Println(err)
			return
		}
		for _, e := range out {
			fmt.Println(e.Type())
		}
	}
	// Output:
	// RUN_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT
	// TEXT_MESSAGE_CONTENT
	// TEXT_MESSAGE_END
	// RUN_FINISHED
}

// FuzzExpander expands random event sequences (interop.Events). It must not
// panic; its output holds no chunk event; an event PassesThrough approves
// comes out alone; every other input event comes out
// unchanged and in order; and every stream it opens is closed once, by a
// synthetic end, unless it is still open when the input stops.
func FuzzExpander(f *testing.F) {
	f.Add([]byte{16, 0, 0, 3, 1, 0, 1, 0, 0, 0, 3, 0, 1, 1, 0, 0, 17, 0, 0})
	f.Add([]byte{3, 1, 1, 0, 5, 0, 0, 3, 0, 1, 0, 5, 0, 0, 7, 1, 0, 1, 0, 0, 0, 0, 0, 25, 1, 2, 0, 0, 0, 15, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var x chunks.Expander
		var passed []agui.Event
		opened, closed := map[string]int{}, map[string]int{}
		for _, ev := range interop.Events(data) {
			passes := x.PassesThrough(ev)
			out, err := x.Expand(nil, ev)
			if passes && (err != nil || len(out) != 1 || out[0] != ev) {
				t.Fatalf("%s passes through, but Expand gave %d events, %v", ev.Type(), len(out), err)
			}
			if err != nil {
				if !errors.Is(err, chunks.ErrChunk) {
					t.Fatalf("error %v is not a chunk error", err)
				}
				return
			}
			isChunk := false
			switch ev.(type) { //agui:nonexhaustive only chunks matter
			case *agui.TextMessageChunk, *agui.ToolCallChunk, *agui.ReasoningMessageChunk:
				isChunk = true
			}
			for _, o := range out {
				switch o := o.(type) { //agui:nonexhaustive only chunks matter
				case *agui.TextMessageChunk, *agui.ToolCallChunk, *agui.ReasoningMessageChunk:
					t.Fatalf("chunk %s in the output", o.Type())
				}
				if o == ev {
					passed = append(passed, o)
					continue
				}
				switch o := o.(type) { //agui:nonexhaustive only synthesized starts and ends matter
				case *agui.TextMessageStart:
					opened["text "+o.MessageID]++
				case *agui.ToolCallStart:
					opened["tool "+o.ToolCallID]++
				case *agui.ReasoningMessageStart:
					opened["reasoning "+o.MessageID]++
				case *agui.TextMessageEnd:
					closed["text "+o.MessageID]++
				case *agui.ToolCallEnd:
					closed["tool "+o.ToolCallID]++
				case *agui.ReasoningMessageEnd:
					closed["reasoning "+o.MessageID]++
				}
			}
			if !isChunk && (len(passed) == 0 || passed[len(passed)-1] != ev || out[len(out)-1] != ev) {
				t.Fatalf("%s did not pass through last", ev.Type())
			}
		}
		for k, n := range closed {
			if n > opened[k] {
				t.Fatalf("%s closed %d times, opened %d", k, n, opened[k])
			}
		}
		if !x.Open() {
			for k, n := range opened {
				if closed[k] != n {
					t.Fatalf("%s opened %d times, closed %d, and no lane is open", k, n, closed[k])
				}
			}
		}
	})
}
