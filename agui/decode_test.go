package agui

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

func TestDecodeStrictAndLenient(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		strictErr  string // substring; "" means strict decoding succeeds
		lenientErr string // substring; "" means lenient decoding succeeds
		warnings   []string
		out        string // lenient result re-encoded; checked when set
	}{
		{
			name: "valid event",
			in:   `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`,
			out:  `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`,
		},
		{
			name:      "unknown property is stripped",
			in:        `{"type":"TEXT_MESSAGE_END","messageId":"m1","futureProp":{"a":1}}`,
			strictErr: "at /futureProp (offset 44): unknown property",
			warnings:  []string{"/futureProp"},
			out:       `{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
		},
		{
			name:      "legacy null parentMessageId becomes absent",
			in:        `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":null}`,
			strictErr: "at /parentMessageId",
			warnings:  []string{"/parentMessageId"},
			out:       `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}`,
		},
		{
			name:       "metadata null is never tolerated",
			in:         `{"type":"RAW","event":1,"metadata":null}`,
			strictErr:  "at /metadata",
			lenientErr: "at /metadata",
		},
		{
			name:       "subagentRunId null is never tolerated",
			in:         `{"type":"STEP_STARTED","stepName":"s","subagentRunId":null}`,
			strictErr:  "at /subagentRunId",
			lenientErr: "at /subagentRunId",
		},
		{
			name:      "unknown outcome type is removed",
			in:        `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"paused"}}`,
			strictErr: `at /outcome (offset 60): unknown type "paused"`,
			warnings:  []string{"/outcome"},
			out:       `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		},
		{
			name:       "outcome of the wrong kind is fatal",
			in:         `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":[]}`,
			strictErr:  "expected object, got array",
			lenientErr: "expected object, got array",
		},
		{
			name:      "unknown patch op is dropped, the rest kept",
			in:        `{"type":"STATE_DELTA","delta":[{"op":"increment","path":"/n"},{"op":"replace","path":"/n","value":5}]}`,
			strictErr: `at /delta/0`,
			warnings:  []string{"/delta/0"},
			out:       `{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":5}]}`,
		},
		{
			name:      "unknown source drops the whole part",
			in:        `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"hologram","value":"x"}}]}`,
			strictErr: `at /content/1/source`,
			warnings:  []string{"/content/1/source"},
			out:       `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"text","text":"a"}]}`,
		},
		{
			name:      "unknown role drops the message",
			in:        `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"narrator","content":"x"},{"id":"2","role":"user","content":"hi"}]}`,
			strictErr: `at /messages/0`,
			warnings:  []string{"/messages/0"},
			out:       `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"2","role":"user","content":"hi"}]}`,
		},
		{
			name:      "legacy null metadata on a media part becomes absent",
			in:        `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"image","source":{"type":"url","value":"u"},"metadata":null}]}`,
			strictErr: "at /content/0/metadata",
			warnings:  []string{"/content/0/metadata"},
			out:       `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"image","source":{"type":"url","value":"u"}}]}`,
		},
		{
			name:       "null metadata on a text part is not a legacy shape",
			in:         `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"text","text":"x","metadata":null}]}`,
			strictErr:  "at /content/0/metadata",
			lenientErr: "at /content/0/metadata",
		},
		{
			name:       "unknown value of a closed enum leaf is fatal",
			in:         `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"narrator"}`,
			strictErr:  `unknown value "narrator"; expected one of "developer", "system", "assistant", "user"`,
			lenientErr: `unknown value "narrator"`,
		},
		{
			name:       "wrong type of a known member is fatal",
			in:         `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":42}`,
			strictErr:  "at /delta (offset 55): expected string, got number",
			lenientErr: "at /delta",
		},
		{
			name:       "missing required member",
			in:         `{"type":"TOOL_CALL_ARGS","toolCallId":"c"}`,
			strictErr:  `missing required property "delta"`,
			lenientErr: `missing required property "delta"`,
		},
		{
			name:       "unsafe integer",
			in:         `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":9007199254740992}`,
			strictErr:  "at /timestamp",
			lenientErr: "at /timestamp",
		},
		{
			name:       "float timestamp",
			in:         `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":1.5}`,
			strictErr:  "expected integer, got 1.5",
			lenientErr: "expected integer",
		},
		{
			name:       "bad JSON Pointer",
			in:         `{"type":"STATE_DELTA","delta":[{"op":"remove","path":"a/b"}]}`,
			strictErr:  "at /delta/0/path",
			lenientErr: "at /delta/0/path",
		},
		{
			name:       "interrupt outcome needs an interrupt",
			in:         `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`,
			strictErr:  "at /outcome/interrupts",
			lenientErr: "at /outcome/interrupts",
		},
		{
			name:       "trailing data",
			in:         `{"type":"TEXT_MESSAGE_END","messageId":"m"} {}`,
			strictErr:  "(offset 44): unexpected data after the value",
			lenientErr: "offset 44",
		},
		{
			name: "meaningful nulls inside open JSON are kept",
			in:   `{"type":"CUSTOM","metadata":{"k":null},"name":"n","value":null}`,
			out:  `{"type":"CUSTOM","metadata":{"k":null},"name":"n","value":null}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeEvent([]byte(tt.in))
			checkErr(t, "strict", err, tt.strictErr)
			var strictStream StreamDecoder // the zero value is strict
			_, _, err = strictStream.DecodeEvent([]byte(tt.in))
			checkErr(t, "strict StreamDecoder", err, tt.strictErr)
			lenient := DecodeOptions{Lenient: true}
			lenientStream := StreamDecoder{Options: lenient}
			_, _, err = lenientStream.DecodeEvent([]byte(tt.in))
			checkErr(t, "lenient StreamDecoder", err, tt.lenientErr)
			ev, ws, err := lenient.DecodeEvent([]byte(tt.in))
			checkErr(t, "lenient", err, tt.lenientErr)
			if err != nil {
				return
			}
			if len(ws) != len(tt.warnings) {
				t.Fatalf("warnings %v, want %d mentioning %v", ws, len(tt.warnings), tt.warnings)
			}
			for i, w := range tt.warnings {
				if ws[i].Path != w {
					t.Errorf("warning %d at %q, want %q", i, ws[i].Path, w)
				}
			}
			if tt.out != "" {
				out, err := ev.AppendJSON(nil)
				if err != nil {
					t.Fatal(err)
				}
				if string(out) != tt.out {
					t.Errorf("got  %s\nwant %s", out, tt.out)
				}
			}
		})
	}
}

func checkErr(t *testing.T, mode string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("%s: unexpected error %v", mode, err)
	case want != "" && err == nil:
		t.Fatalf("%s: no error, want one containing %q", mode, want)
	case want != "":
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("%s: %T is not a *DecodeError: %v", mode, err, err)
		}
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: error %q does not contain %q", mode, err, want)
		}
	}
}

func TestUnknownEventType(t *testing.T) {
	for _, lenient := range []bool{false, true} {
		_, _, err := decodeEvent([]byte(`{"type":"FUTURE_EVENT","x":1}`), lenient)
		var u *UnknownEventTypeError
		if !errors.As(err, &u) || u.Type != "FUTURE_EVENT" || !errors.Is(err, ErrUnknownEventType) {
			t.Fatalf("lenient=%v: got %v", lenient, err)
		}
	}
}

func TestDecodeRunAgentInputStateNull(t *testing.T) {
	in, err := DecodeRunAgentInput([]byte(`{"threadId":"t","runId":"r","state":null,"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.State != nil {
		t.Fatalf("state %s, want absent", in.State)
	}
	out, _ := in.AppendJSON(nil)
	if string(out) != `{"threadId":"t","runId":"r","messages":[]}` {
		t.Fatalf("got %s", out)
	}
}

func TestEncodeRejectsWhatTheSchemaRejects(t *testing.T) {
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"invalid raw JSON", &Custom{Name: "n", Value: []byte("{")}, "agui: encode Custom.value"},
		{"metadata not an object", &TextMessageEnd{MessageID: "m", EventBase: EventBase{Metadata: []byte("[1]")}}, "TextMessageEnd.metadata"},
		{"unknown enum value", &TextMessageStart{MessageID: "m", Role: new(TextMessageRole("narrator"))}, `unknown value "narrator"`},
		{"interrupt outcome without interrupts", &RunFinished{ThreadID: "t", RunID: "r", Outcome: &RunFinishedInterruptOutcome{}}, "RunFinishedInterruptOutcome.interrupts: needs at least 1"},
		{"null rawEvent", &Raw{Event: []byte("1"), EventBase: EventBase{RawEvent: []byte("null")}}, "Raw.rawEvent"},
		{"timestamp out of range", &StepStarted{StepName: "s", EventBase: EventBase{Timestamp: new(int64(1 << 60))}}, "outside"},
		{"bad pointer", &StateDelta{Delta: JSONPatch{&RemoveOperation{Path: "x"}}}, "RemoveOperation.path"},
		{"deep failure", &MessagesSnapshot{Messages: []Message{&UserMessage{ID: "1", Content: TextContent("ok")}, &ToolMessage{ID: "2", Content: PartsContent(&ImagePart{})}}}, "ImagePart.source"},
		{"nil list element", &MessagesSnapshot{Messages: []Message{nil}}, "element 0 is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.ev.AppendJSON([]byte("kept|"))
			var ee *EncodeError
			if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an *EncodeError containing %q", err, tt.want)
			}
			if string(out) != "kept|" {
				t.Fatalf("a failed encode left %q in the buffer; want it as it was", out)
			}
		})
	}
}

// TestDecodeEventAllocs pins what decoding an event allocates: the event
// and its strings, nothing for the "type" member (matched against the
// known names as bytes) nor for the pooled decoder. Strings of one byte
// and empty ones cost nothing in Go, so every string here is longer.
func TestDecodeEventAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{`{"type":"TEXT_MESSAGE_END","messageId":"msg-1"}`, 2},
		{`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello"}`, 3},
		{`{"type":"RUN_FINISHED","threadId":"thread","runId":"run-1"}`, 3},
		{`{"threadId":"thread","runId":"run-1","type":"RUN_STARTED"}`, 3}, // the type member last
		{`{"type": "STEP_STARTED", "stepName": "plan"}`, 2},
	} {
		in := []byte(tc.in)
		lenient := DecodeOptions{Lenient: true}
		n := testing.AllocsPerRun(200, func() {
			if _, _, err := lenient.DecodeEvent(in); err != nil {
				t.Fatal(err)
			}
		})
		if n != tc.want {
			t.Errorf("%s: %v allocations, want %v", tc.in, n, tc.want)
		}
	}
}

// TestStreamDecoderReusesIDs: over a stream of tool-call argument deltas a
// StreamDecoder allocates the event and its delta, not the repeated
// toolCallId, and returns the same id string each time. (The delta is
// longer than any string the cache keeps, as most deltas that repeat
// nothing are in effect.)
func TestStreamDecoderReusesIDs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	in := []byte(`{"type":"TOOL_CALL_ARGS","toolCallId":"call-7f3a","delta":"{\"city\": \"Paris\", \"units\": \"metric\", \"days\": 3, \"hourly\": false, \"lang\": \"fr\"}"}`)
	s := StreamDecoder{Options: DecodeOptions{Lenient: true}}
	first, _, err := s.DecodeEvent(in)
	if err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(200, func() {
		ev, _, err := s.DecodeEvent(in)
		if err != nil {
			t.Fatal(err)
		}
		if id := ev.(*ToolCallArgs).ToolCallID; unsafe.StringData(id) != unsafe.StringData(first.(*ToolCallArgs).ToolCallID) {
			t.Fatal("the id was allocated again")
		}
	})
	if n != 2 {
		t.Errorf("%v allocations per event, want 2 (the event and its delta)", n)
	}
	if n := testing.AllocsPerRun(200, func() { DecodeOptions{Lenient: true}.DecodeEvent(in) }); n != 3 {
		t.Errorf("DecodeOptions.DecodeEvent: %v allocations, want 3", n)
	}
}

// TestDecoderResetsEverything: a decoder reset after a document (pooled, or
// a StreamDecoder's) keeps nothing of it but its scratch buffer (emptied)
// and the integers of its inline offset stack, so every field added to
// decoder must be reset by reset or listed here.
func TestDecoderResetsEverything(t *testing.T) {
	d := getDecoder([]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":[{"type":"text","text":"\u00e9"}]}],"mood":1}}`), true)
	var strs stringCache
	d.strs = &strs
	if _, err := decodeEventUnion(d); err != nil {
		t.Fatal(err)
	}
	d.warn("a warning to drop")
	d.objects = map[int][]memberSpan{0: nil}
	d.reset()
	v := reflect.ValueOf(d).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		switch name {
		case "scratch":
			if len(d.scratch) != 0 {
				t.Errorf("scratch holds %q", d.scratch)
			}
		case "startsBuf": // integers, overwritten before use
		default:
			if !v.Field(i).IsZero() {
				t.Errorf("field %s is not reset: %v", name, v.Field(i))
			}
		}
	}
}
