package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
)

// reducerCase is one input of node/reduce.mjs: a starting history and
// state, and the events applied to them.
type reducerCase struct {
	Messages []json.RawMessage `json:"messages"`
	State    json.RawMessage   `json:"state"`
	Events   []json.RawMessage `json:"events"`

	history []agui.Message
	events  []agui.Event
}

type reducerResult struct {
	Messages          []any           `json:"messages"`
	State             json.RawMessage `json:"state"`
	Warnings          []string        `json:"warnings"`
	PendingInterrupts []any           `json:"pendingInterrupts"`
	Finished          *struct {
		Outcome            string          `json:"outcome"`
		PendingToolCallIDs []string        `json:"pendingToolCallIds"`
		Result             json.RawMessage `json:"result"`
	} `json:"finished"`
	Error string `json:"error"`
}

// reducerGen draws reducer inputs from small pools of ids, so that events
// hit existing messages, each other's ids and every tolerated oddity (a
// missing message, an activity id reused for text, a tool call under a user
// message, a patch that does not apply).
type reducerGen struct{ rng *rand.Rand }

func (g reducerGen) pick(options ...string) string { return options[g.rng.IntN(len(options))] }
func (g reducerGen) maybe(v string) *string {
	if g.rng.IntN(3) == 0 {
		return nil
	}
	return &v
}
func (g reducerGen) tag() *string {
	if g.rng.IntN(4) == 0 {
		return new(g.pick("s1", "s2"))
	}
	return nil
}
func (g reducerGen) metadata() agui.EventBase {
	if g.rng.IntN(3) != 0 {
		return agui.EventBase{}
	}
	md := g.pick(`{"k":1}`, `{"k":[2,3],"x":null}`, `{"z":{"deep":true}}`, `{"k":"last"}`)
	return agui.EventBase{Metadata: json.RawMessage(md)}
}

func (g reducerGen) value(depth int) string {
	switch k := g.rng.IntN(6); {
	case depth == 0 || k == 0:
		return strconv.Itoa(g.rng.IntN(3))
	case k == 1:
		return g.pick(`"s"`, `"é<"`, `null`, `true`)
	case k == 2:
		parts := make([]string, g.rng.IntN(3))
		for i := range parts {
			parts[i] = g.value(depth - 1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		var parts []string
		seen := map[string]bool{}
		for range g.rng.IntN(3) {
			k := g.pick("a", "l", "n", "")
			if !seen[k] {
				seen[k] = true
				parts = append(parts, strconv.Quote(k)+":"+g.value(depth-1))
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}

func (g reducerGen) patch() agui.JSONPatch {
	// The pools leave out two documented departures of the reference from
	// RFC 6902, which jsonpatch does not follow: an empty array index ("/"
	// on an array reads as 0 there) and a move or copy to the root from a
	// location that does not exist (the reference's state becomes
	// undefined).
	paths := []string{"/a", "/l", "/l/0", "/l/1", "/l/-", "/l/5", "/a/a", "/n", "/a/n", "/a/l/0", ""}
	var p agui.JSONPatch
	for range 1 + g.rng.IntN(3) {
		path := g.pick(paths...)
		v := json.RawMessage(g.value(2))
		if path == "" {
			// The root stays an object or an array: patching inside a
			// string, number or boolean fails here but is silently
			// ignored by the reference (an assignment to a primitive in
			// sloppy-mode JavaScript).
			v = json.RawMessage(`{"a":` + g.value(1) + `}`)
		}
		switch g.rng.IntN(6) {
		case 0:
			p = append(p, &agui.AddOperation{Path: path, Value: v})
		case 1:
			p = append(p, &agui.RemoveOperation{Path: path})
		case 2:
			p = append(p, &agui.ReplaceOperation{Path: path, Value: v})
		case 3:
			// Not from the root: the reference then leaves a document that
			// contains itself (it removes the root, which changes nothing,
			// and adds it below), where Apply refuses a move into its own
			// child; that difference is pinned in jsonpatch's own tests.
			p = append(p, &agui.MoveOperation{From: g.pick(paths[:len(paths)-1]...), Path: g.pick(paths[:len(paths)-1]...)})
		case 4:
			p = append(p, &agui.CopyOperation{From: g.pick(paths...), Path: g.pick(paths[:len(paths)-1]...)})
		default:
			p = append(p, &agui.TestOperation{Path: path, Value: v})
		}
	}
	return p
}

func (g reducerGen) message() agui.Message {
	id := g.pick("m1", "m2", "u1", "a1", "r1", "t1")
	switch g.rng.IntN(6) {
	case 0:
		return &agui.UserMessage{ID: id, Content: agui.TextContent("hi")}
	case 1:
		return &agui.AssistantMessage{ID: id, Content: g.maybe("said"), ToolCalls: g.toolCalls()}
	case 2:
		return &agui.ActivityMessage{ID: id, ActivityType: g.pick("t1", "t2"), Content: json.RawMessage(`{"v":1}`)}
	case 3:
		return &agui.ReasoningMessage{ID: id, Content: "thought"}
	case 4:
		return &agui.ToolMessage{ID: id, ToolCallID: g.pick("c1", "c2"), Content: agui.PartsContent(&agui.TextPart{Text: "r"})}
	default:
		return &agui.SystemMessage{ID: id, Content: "sys"}
	}
}

func (g reducerGen) toolCalls() []agui.ToolCall {
	if g.rng.IntN(2) == 0 {
		return nil
	}
	return []agui.ToolCall{{ID: g.pick("c1", "c2", "c3"), Function: agui.FunctionCall{Name: "f", Arguments: "{}"}}}
}

func (g reducerGen) messages(n int) []agui.Message {
	out := make([]agui.Message, g.rng.IntN(n+1))
	for i := range out {
		out[i] = g.message()
	}
	return out
}

func (g reducerGen) event() agui.Event {
	msg := func() string { return g.pick("m1", "m2", "u1", "a1", "r1") }
	call := func() string { return g.pick("c1", "c2", "c3") }
	switch g.rng.IntN(21) {
	case 0, 1:
		var role *agui.TextMessageRole
		if g.rng.IntN(3) == 0 {
			role = new(agui.TextMessageRole(g.pick("user", "assistant", "system", "developer")))
		}
		return &agui.TextMessageStart{EventBase: g.metadata(), MessageID: msg(), Role: role, Name: g.maybe("bot"), Attribution: agui.Attribution{SubagentRunID: g.tag()}}
	case 2, 3:
		return &agui.TextMessageContent{EventBase: g.metadata(), MessageID: msg(), Delta: g.pick("x", "é", "<b>")}
	case 4:
		return &agui.TextMessageEnd{EventBase: g.metadata(), MessageID: msg()}
	case 5:
		return &agui.ReasoningMessageStart{EventBase: g.metadata(), MessageID: g.pick("r1", "r2", "m1", "a1"), Attribution: agui.Attribution{SubagentRunID: g.tag()}}
	case 6:
		return &agui.ReasoningMessageContent{EventBase: g.metadata(), MessageID: g.pick("r1", "r2", "m1"), Delta: "think"}
	case 7:
		return &agui.ReasoningMessageEnd{EventBase: g.metadata(), MessageID: g.pick("r1", "r2")}
	case 8, 9:
		var parent *string
		if g.rng.IntN(3) > 0 {
			parent = new(g.pick("m1", "m2", "u1", "a1", "r1", "p9"))
		}
		return &agui.ToolCallStart{EventBase: g.metadata(), ToolCallID: call(), ToolCallName: g.pick("f", "g"), ParentMessageID: parent, Attribution: agui.Attribution{SubagentRunID: g.tag()}}
	case 10:
		return &agui.ToolCallArgs{EventBase: g.metadata(), ToolCallID: call(), Delta: g.pick(`{"q":`, `1}`)}
	case 11:
		return &agui.ToolCallEnd{EventBase: g.metadata(), ToolCallID: call()}
	case 12:
		content := agui.TextContent("result")
		if g.rng.IntN(2) == 0 {
			content = agui.PartsContent(&agui.TextPart{Text: "part"})
		}
		return &agui.ToolCallResult{EventBase: g.metadata(), MessageID: g.pick("t1", "t2"), ToolCallID: call(), Content: content, Attribution: agui.Attribution{SubagentRunID: g.tag()}}
	case 13:
		// Objects and arrays only: against a falsy document (0, false, "",
		// null) the reference skips its validation and then mostly does
		// nothing, an accident of JavaScript that Apply does not copy.
		return agui.NewStateSnapshot(json.RawMessage(g.pick(`{"a":`+g.value(2)+`}`, `[`+g.value(2)+`]`, `{"l":[0,1]}`)))
	case 14, 15:
		return agui.NewStateDelta(g.patch())
	case 16:
		ev := &agui.MessagesSnapshot{Messages: g.messages(3)}
		switch g.rng.IntN(4) {
		case 0:
			ev.Metadata = json.RawMessage(`{"@ag-ui/client":{"authoritativeActivityTypes":` + g.pick(`null`, `["t1"]`, `[]`, `"bad"`) + `}}`)
		case 1:
			ev.Metadata = json.RawMessage(`{"@ag-ui/client":` + g.pick(`5`, `{}`) + `}`)
		}
		return ev
	case 17:
		var replace *bool
		if g.rng.IntN(2) == 0 {
			replace = new(g.rng.IntN(2) == 0)
		}
		return &agui.ActivitySnapshot{EventBase: g.metadata(), MessageID: g.pick("a1", "a2", "m1"), ActivityType: g.pick("t1", "t2"), Content: json.RawMessage(`{"v":` + g.value(1) + `}`), Replace: replace, Attribution: agui.Attribution{SubagentRunID: g.tag()}}
	case 18:
		ops := agui.JSONPatch{&agui.ReplaceOperation{Path: g.pick("/v", "/w"), Value: json.RawMessage(g.value(1))}}
		return &agui.ActivityDelta{EventBase: g.metadata(), MessageID: g.pick("a1", "a2", "m1"), ActivityType: g.pick("t1", "t3"), Patch: ops}
	case 19:
		sub := agui.ReasoningEncryptedValueSubtype(g.pick("tool-call", "message"))
		return &agui.ReasoningEncryptedValue{Subtype: sub, EntityID: g.pick("c1", "c2", "m1", "a1", "r1", "zz"), EncryptedValue: "enc"}
	default:
		switch g.rng.IntN(4) {
		case 0:
			ev := &agui.RunStarted{ThreadID: "t", RunID: "r"}
			if g.rng.IntN(2) == 0 {
				ev.Input = &agui.RunAgentInput{ThreadID: "t", RunID: "r", Messages: g.messages(2)}
			}
			return ev
		case 1:
			return &agui.RunError{Message: "boom"}
		}
		ev := &agui.RunFinished{ThreadID: "t", RunID: "r"}
		switch g.rng.IntN(3) {
		case 0:
			ev.Outcome = &agui.RunFinishedInterruptOutcome{Interrupts: []agui.Interrupt{{ID: "i1", Reason: "approval", Attribution: agui.Attribution{SubagentRunID: g.tag()}}}}
		case 1:
			ev.Outcome = &agui.RunFinishedCancelledOutcome{}
		}
		return ev
	}
}

func encodeAll[T interface{ AppendJSON([]byte) ([]byte, error) }](t *testing.T, vs []T) []json.RawMessage {
	out := make([]json.RawMessage, len(vs))
	for i, v := range vs {
		b, err := v.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// referenceReduce runs node/reduce.mjs over the cases.
func referenceReduce(t *testing.T, cases []reducerCase) []reducerResult {
	t.Helper()
	dir, err := NodeDir()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	var in bytes.Buffer
	for _, c := range cases {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", "reduce.mjs")
	cmd.Dir = dir
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node reduce.mjs: %v\n%s", err, stderr.Bytes())
	}
	var results []reducerResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r reducerResult
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if err := d.Decode(&r); err != nil {
			t.Fatalf("node output %q: %v", sc.Bytes(), err)
		}
		results = append(results, r)
	}
	if len(results) != len(cases) {
		t.Fatalf("node answered %d cases of %d\n%s", len(results), len(cases), stderr.Bytes())
	}
	return results
}

// normalWarning keeps what both reducers say the same way: the patch
// failures' error texts are each applier's own, and the reference prints the
// operations after applying them, so a value an earlier operation put in the
// document and a later one changed shows changed (it is shared).
func normalWarning(w string) string {
	if i := strings.Index(w, "\nPatch operations: "); i >= 0 {
		return w[:i]
	}
	if strings.HasPrefix(w, "Failed to apply activity patch for '") {
		if i := strings.Index(w, "': "); i >= 0 {
			return w[:i+2]
		}
	}
	return w
}

// TestReducerParity applies random event sequences with the reference
// client's reducer (defaultApplyEvents of @ag-ui/client 1.0.0, in Node) and
// with conversation.Conversation, and requires the same messages, the same
// state (byte for byte: member order included), the same pending interrupts
// and the same warnings.
func TestReducerParity(t *testing.T) {
	t.Parallel()
	n := 1500
	if testing.Short() {
		n = 200
	}
	g := reducerGen{rand.New(rand.NewPCG(9, 9))}
	cases := make([]reducerCase, n)
	for i := range cases {
		c := &cases[i]
		c.history = g.messages(4)
		c.State = json.RawMessage(`{"a":` + g.value(2) + `,"l":[1,{"a":2}],"n":null}`)
		c.events = make([]agui.Event, 1+g.rng.IntN(25))
		for j := range c.events {
			c.events[j] = g.event()
		}
		c.Messages = encodeAll(t, c.history)
		c.Events = encodeAll(t, c.events)
	}
	results := referenceReduce(t, cases)
	failures, skipped, outcomes := 0, 0, 0
	for i, c := range cases {
		ref := results[i]
		if ref.Error != "" {
			t.Fatalf("case %d: the reference threw %s", i, ref.Error)
		}
		conv := conversation.New(c.history, c.State)
		var warnings []string
		aliased := false
		for _, ev := range c.events {
			if snap, ok := ev.(*agui.MessagesSnapshot); ok && sharesDuplicate(conv.Messages(), snap.Messages) {
				aliased = true
			}
			for _, w := range conv.Apply(ev) {
				warnings = append(warnings, normalWarning(w.Message))
			}
		}
		for j := range ref.Warnings {
			ref.Warnings[j] = normalWarning(ref.Warnings[j])
		}
		got := decodeNumbers(t, mustMarshal(t, encodeAll(t, conv.Messages())))
		want := decodeNumbers(t, mustMarshal(t, ref.Messages))
		var interrupts []any
		for _, in := range conv.Interrupts() {
			b, _ := json.Marshal(map[string]any{"id": in.ID, "reason": in.Reason, "subagentRunId": in.SubagentRunID})
			interrupts = append(interrupts, decodeNumbers(t, b))
		}
		refInterrupts := decodeNumbers(t, mustMarshal(t, ref.PendingInterrupts))
		var diffs []string
		if aliased {
			skipped++
		} else if !reflect.DeepEqual(got, want) {
			diffs = append(diffs, "messages\n  go  "+string(mustMarshal(t, got))+"\n  ref "+string(mustMarshal(t, want)))
		}
		if !bytes.Equal(conv.State(), ref.State) {
			diffs = append(diffs, "state\n  go  "+string(conv.State())+"\n  ref "+string(ref.State))
		}
		if !slices.Equal(warnings, ref.Warnings) {
			for j := range max(len(warnings), len(ref.Warnings)) {
				var a, b string
				if j < len(warnings) {
					a = warnings[j]
				}
				if j < len(ref.Warnings) {
					b = ref.Warnings[j]
				}
				if a != b {
					diffs = append(diffs, "warning "+strconv.Itoa(j)+"\n  go  "+a+"\n  ref "+b)
					break
				}
			}
		}
		if !reflect.DeepEqual(normInterrupts(interrupts), refInterrupts) {
			diffs = append(diffs, "interrupts\n  go  "+string(mustMarshal(t, interrupts))+"\n  ref "+string(mustMarshal(t, ref.PendingInterrupts)))
		}
		// What the last RUN_FINISHED reported, when it is the last run event
		// (after a later RUN_STARTED or RUN_ERROR the Go outcome is that
		// run's).
		o := conv.Outcome()
		if f := ref.Finished; f != nil && (o.Status == conversation.Succeeded || o.Status == conversation.Interrupted || o.Status == conversation.Cancelled) {
			outcomes++
			want := map[string]conversation.Status{"success": conversation.Succeeded, "interrupt": conversation.Interrupted, "cancelled": conversation.Cancelled}[f.Outcome]
			if o.Status != want || !slices.Equal(o.PendingToolCallIDs, f.PendingToolCallIDs) {
				diffs = append(diffs, fmt.Sprintf("outcome\n  go  %v %q\n  ref %s %q", o.Status, o.PendingToolCallIDs, f.Outcome, f.PendingToolCallIDs))
			}
		}
		if len(diffs) > 0 {
			failures++
			t.Errorf("case %d differs:\nhistory %s\nstate   %s\nevents\n  %s\n%s", i, mustMarshal(t, c.Messages), c.State, joinRaw(c.Events), strings.Join(diffs, "\n"))
			if failures >= 3 {
				t.FailNow()
			}
		}
	}
	t.Logf("%d cases, %d with a RUN_FINISHED outcome compared; messages not compared in %d (a snapshot over duplicate ids)", len(cases), outcomes, skipped)
	if skipped > len(cases)/20 {
		t.Errorf("too many cases skipped: %d", skipped)
	}
}

// sharesDuplicate reports whether the snapshot names an id that several
// local messages hold. The reference then replaces all of them with one and
// the same object, so a later change to one shows in every copy; the Go
// reducer gives each its own copy, and that aliasing is not worth
// reproducing.
func sharesDuplicate(local, snap []agui.Message) bool {
	count := map[string]int{}
	for _, m := range local {
		b, _ := m.AppendJSON(nil)
		var id struct{ ID string }
		_ = json.Unmarshal(b, &id)
		count[id.ID]++
	}
	for _, m := range snap {
		b, _ := m.AppendJSON(nil)
		var id struct{ ID string }
		_ = json.Unmarshal(b, &id)
		if count[id.ID] > 1 {
			return true
		}
	}
	return false
}

func normInterrupts(v []any) any {
	if v == nil {
		v = []any{}
	}
	for _, in := range v {
		if m, ok := in.(map[string]any); ok && m["subagentRunId"] == nil {
			delete(m, "subagentRunId")
		}
	}
	return v
}

func joinRaw(rs []json.RawMessage) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = string(r)
	}
	return strings.Join(parts, "\n  ")
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeNumbers(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}
