//go:build !agui_noverify

package verify_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/chunks"
	"github.com/agui-go/sdk/agui/verify"
)

// Event builders for the tables. A trailing tag argument attributes the
// event to that subagent.

func tagOf(tag []string) *string {
	if len(tag) == 0 {
		return nil
	}
	return &tag[0]
}

func rs(id string) agui.Event { return agui.NewRunStarted("t", id) }
func rf(id string) agui.Event { return agui.NewRunFinished("t", id) }
func re() agui.Event          { return agui.NewRunError("boom") }

func tms(id string, tag ...string) agui.Event {
	e := agui.NewTextMessageStart(id)
	e.SubagentRunID = tagOf(tag)
	return e
}
func tmc(id string, tag ...string) agui.Event {
	e := agui.NewTextMessageContent(id, "x")
	e.SubagentRunID = tagOf(tag)
	return e
}
func tme(id string, tag ...string) agui.Event {
	e := agui.NewTextMessageEnd(id)
	e.SubagentRunID = tagOf(tag)
	return e
}
func tcs(id, parent string, tag ...string) agui.Event {
	e := agui.NewToolCallStart(id, "search")
	if parent != "" {
		e.ParentMessageID = &parent
	}
	e.SubagentRunID = tagOf(tag)
	return e
}
func tca(id string, tag ...string) agui.Event {
	e := agui.NewToolCallArgs(id, "{}")
	e.SubagentRunID = tagOf(tag)
	return e
}
func tce(id string, tag ...string) agui.Event {
	e := agui.NewToolCallEnd(id)
	e.SubagentRunID = tagOf(tag)
	return e
}
func tcr(msg, call string, tag ...string) agui.Event {
	e := agui.NewToolCallResult(msg, call, agui.TextContent("ok"))
	e.SubagentRunID = tagOf(tag)
	return e
}
func ss(name string, tag ...string) agui.Event {
	e := agui.NewStepStarted(name)
	e.SubagentRunID = tagOf(tag)
	return e
}
func sf(name string, tag ...string) agui.Event {
	e := agui.NewStepFinished(name)
	e.SubagentRunID = tagOf(tag)
	return e
}
func rstart(id string) agui.Event  { return agui.NewReasoningStart(id) }
func rend(id string) agui.Event    { return agui.NewReasoningEnd(id) }
func rmstart(id string) agui.Event { return agui.NewReasoningMessageStart(id) }
func rmend(id string) agui.Event   { return agui.NewReasoningMessageEnd(id) }
func subStart(id, parent string) agui.Event {
	e := agui.NewSubagentStarted(id, "helper")
	if parent != "" {
		e.ParentSubagentRunID = &parent
	}
	return e
}
func subFinish(id string) agui.Event { return agui.NewSubagentFinished(id) }
func textChunk(id, delta string, tag ...string) agui.Event {
	e := agui.NewTextMessageChunk()
	if id != "" {
		e.MessageID = &id
	}
	e.Delta = &delta
	e.SubagentRunID = tagOf(tag)
	return e
}
func snapshot(msgs ...agui.Message) agui.Event { return agui.NewMessagesSnapshot(msgs) }
func assistant(id string, tag ...string) agui.Message {
	return &agui.AssistantMessage{ID: id, Attribution: agui.Attribution{SubagentRunID: tagOf(tag)}}
}

// want is the expected verdict of one profile: accepted (the zero value),
// rejected at an event, or truncated at Finish.
type want struct {
	rule      verify.Rule
	index     int
	id        string
	truncated bool
}

var ok = want{}

func rejects(rule verify.Rule, index int, id string) want {
	return want{rule: rule, index: index, id: id}
}

type observer interface {
	Observe(agui.Event) error
	Finish() error
}

// run feeds events to v and returns the first failure, or Finish's.
func run(v observer, events []agui.Event) error {
	for _, ev := range events {
		if err := v.Observe(ev); err != nil {
			return err
		}
	}
	return v.Finish()
}

func check(t *testing.T, profile string, err error, w want) {
	t.Helper()
	if w == ok {
		if err != nil {
			t.Errorf("%s: rejected: %v", profile, err)
		}
		return
	}
	var ve *verify.Error
	if !errors.As(err, &ve) {
		t.Fatalf("%s: got %v, want a *verify.Error", profile, err)
	}
	if w.truncated {
		if !errors.Is(err, verify.ErrTruncated) || ve.Rule != 0 || ve.Index != w.index {
			t.Errorf("%s: got %v (index %d), want truncation at %d", profile, err, ve.Index, w.index)
		}
		return
	}
	if ve.Rule != w.rule || ve.Index != w.index || ve.ID != w.id {
		t.Errorf("%s: got rule %s at %d id %q: %v\nwant rule %s at %d id %q", profile, ve.Rule, ve.Index, ve.ID, err, w.rule, w.index, w.id)
	}
}

// ruleCases holds, for every rule, a minimal stream each profile rejects
// and one it accepts, plus the cases where the profiles part ways.
var ruleCases = []struct {
	name           string
	events         []agui.Event
	server, client want
}{
	// run-ended
	{"event after RUN_FINISHED", []agui.Event{rs("r1"), rf("r1"), tms("m1")}, rejects(verify.RunEnded, 2, "r1"), rejects(verify.RunEnded, 2, "r1")},
	{"event after RUN_ERROR", []agui.Event{rs("r1"), re(), tms("m1")}, rejects(verify.RunEnded, 2, "r1"), rejects(verify.RunEnded, 2, "r1")},
	{"second RUN_ERROR", []agui.Event{rs("r1"), rf("r1"), re(), re()}, rejects(verify.RunEnded, 2, "r1"), rejects(verify.RunEnded, 3, "r1")},
	{"late RUN_ERROR after RUN_FINISHED", []agui.Event{rs("r1"), rf("r1"), re()}, rejects(verify.RunEnded, 2, "r1"), ok},
	{"second run after RUN_FINISHED", []agui.Event{rs("r1"), rf("r1"), rs("r2"), rf("r2")}, rejects(verify.RunEnded, 2, "r1"), ok},
	{"second run after RUN_ERROR", []agui.Event{rs("r1"), re(), rs("r2"), rf("r2")}, rejects(verify.RunEnded, 2, "r1"), ok},
	{"stream opening with RUN_ERROR", []agui.Event{re(), rs("r1"), rf("r1")}, rejects(verify.RunEnded, 1, ""), ok},
	{"RUN_ERROR alone", []agui.Event{re()}, ok, ok},
	{"a complete run", []agui.Event{rs("r1"), tms("m1"), tmc("m1"), tme("m1"), rf("r1")}, ok, ok},

	// duplicate-run-started
	{"nested RUN_STARTED", []agui.Event{rs("r1"), rs("r2")}, rejects(verify.DuplicateRunStarted, 1, "r2"), rejects(verify.DuplicateRunStarted, 1, "r2")},
	{"RUN_STARTED repeated", []agui.Event{rs("r1"), tms("m1"), rs("r1")}, rejects(verify.DuplicateRunStarted, 2, "r1"), rejects(verify.DuplicateRunStarted, 2, "r1")},

	// duplicate-start
	{"message opened twice", []agui.Event{rs("r1"), tms("m1"), tms("m1")}, rejects(verify.DuplicateStart, 2, "m1"), rejects(verify.DuplicateStart, 2, "m1")},
	{"tool call opened twice", []agui.Event{rs("r1"), tcs("c1", ""), tcs("c1", "")}, rejects(verify.DuplicateStart, 2, "c1"), rejects(verify.DuplicateStart, 2, "c1")},
	{"step opened twice", []agui.Event{rs("r1"), ss("plan"), ss("plan")}, rejects(verify.DuplicateStart, 2, "plan"), rejects(verify.DuplicateStart, 2, "plan")},
	{"reasoning span opened twice", []agui.Event{rs("r1"), rstart("z"), rstart("z")}, rejects(verify.DuplicateStart, 2, "z"), rejects(verify.DuplicateStart, 2, "z")},
	{"subagent started twice", []agui.Event{rs("r1"), subStart("s1", ""), subStart("s1", "")}, rejects(verify.DuplicateStart, 2, "s1"), rejects(verify.DuplicateStart, 2, "s1")},
	{"subagent id reused", []agui.Event{rs("r1"), subStart("s1", ""), subFinish("s1"), subStart("s1", "")}, rejects(verify.DuplicateStart, 3, "s1"), rejects(verify.DuplicateStart, 3, "s1")},
	{"chunk restating another role", []agui.Event{rs("r1"), textChunk("m1", "a"), func() agui.Event {
		e := textChunk("m1", "b").(*agui.TextMessageChunk)
		e.Role = new(agui.TextMessageRoleUser)
		return e
	}()}, rejects(verify.DuplicateStart, 2, "m1"), rejects(verify.DuplicateStart, 2, "m1")},
	{"reopening a closed message", []agui.Event{rs("r1"), tms("m1"), tme("m1"), tms("m1"), tmc("m1"), tme("m1"), rf("r1")}, ok, ok},
	{"span and message sharing an id", []agui.Event{rs("r1"), rstart("z"), rmstart("z"), rmend("z"), rend("z"), rf("r1")}, ok, ok},
	{"same step in parent and subagent", []agui.Event{rs("r1"), ss("plan"), ss("plan", "s1"), sf("plan", "s1"), sf("plan"), rf("r1")}, ok, ok},

	// not-open
	{"content for another message", []agui.Event{rs("r1"), tms("msg-1"), tmc("msg-2")}, rejects(verify.NotOpen, 2, "msg-2"), rejects(verify.NotOpen, 2, "msg-2")},
	{"content after end", []agui.Event{rs("r1"), tms("m1"), tme("m1"), tmc("m1")}, rejects(verify.NotOpen, 3, "m1"), rejects(verify.NotOpen, 3, "m1")},
	{"args without start", []agui.Event{rs("r1"), tca("c1")}, rejects(verify.NotOpen, 1, "c1"), rejects(verify.NotOpen, 1, "c1")},
	{"step finished, never started", []agui.Event{rs("r1"), sf("plan")}, rejects(verify.NotOpen, 1, "plan"), rejects(verify.NotOpen, 1, "plan")},
	{"subagent finished, never started", []agui.Event{rs("r1"), subFinish("s1")}, rejects(verify.NotOpen, 1, "s1"), rejects(verify.NotOpen, 1, "s1")},
	{"reasoning content without start", []agui.Event{rs("r1"), agui.NewReasoningMessageContent("z", "t")}, rejects(verify.NotOpen, 1, "z"), rejects(verify.NotOpen, 1, "z")},
	{"reasoning span closed, never opened", []agui.Event{rs("r1"), rmstart("z"), rend("z")}, rejects(verify.NotOpen, 2, "z"), rejects(verify.NotOpen, 2, "z")},

	{"first chunk without id", []agui.Event{rs("r1"), textChunk("", "x")}, rejects(verify.NotOpen, 1, ""), rejects(verify.NotOpen, 1, "")},
	{"explicit end of a chunk-opened message", []agui.Event{rs("r1"), textChunk("m1", "x"), tme("m1")}, rejects(verify.NotOpen, 2, "m1"), rejects(verify.NotOpen, 2, "m1")},
	{"parent subagent never started", []agui.Event{rs("r1"), subStart("s2", "s1")}, rejects(verify.NotOpen, 1, "s1"), rejects(verify.NotOpen, 1, "s1")},
	{"parent subagent already finished", []agui.Event{rs("r1"), subStart("s1", ""), subFinish("s1"), subStart("s2", "s1"), subFinish("s2"), rf("r1")}, rejects(verify.NotOpen, 3, "s1"), ok},
	{"RUN_FINISHED naming another run", []agui.Event{rs("r1"), rf("r2")}, rejects(verify.NotOpen, 1, "r2"), ok},
	{"chunk-opened message closed by the next chunk stream", []agui.Event{rs("r1"), textChunk("m1", "a"), textChunk("", "b"), textChunk("m2", "c"), rf("r1")}, ok, ok},

	// unknown-id (server only)
	{"result for an unknown call", []agui.Event{rs("r1"), tcr("t1", "c9"), rf("r1")}, rejects(verify.UnknownID, 1, "c9"), ok},
	{"result for a call of a snapshot", []agui.Event{rs("r1"), snapshot(&agui.AssistantMessage{ID: "a1", ToolCalls: []agui.ToolCall{{ID: "c1"}}}), tcr("t1", "c1"), rf("r1")}, ok, ok},
	{"result after the call ended", []agui.Event{rs("r1"), tcs("c1", ""), tca("c1"), tce("c1"), tcr("t1", "c1"), rf("r1")}, ok, ok},

	// out-of-order (server only)
	{"result before the call's end", []agui.Event{rs("r1"), tcs("c1", ""), tcr("t1", "c1"), tce("c1"), rf("r1")}, rejects(verify.OutOfOrder, 2, "c1"), ok},

	// open-at-finish
	{"message open at finish", []agui.Event{rs("r1"), tms("m1"), rf("r1")}, rejects(verify.OpenAtFinish, 2, "m1"), rejects(verify.OpenAtFinish, 2, "m1")},
	{"tool call open at finish", []agui.Event{rs("r1"), tcs("c1", ""), rf("r1")}, rejects(verify.OpenAtFinish, 2, "c1"), rejects(verify.OpenAtFinish, 2, "c1")},
	{"step open at finish", []agui.Event{rs("r1"), ss("plan", "s1"), rf("r1")}, rejects(verify.OpenAtFinish, 2, "plan"), rejects(verify.OpenAtFinish, 2, "plan")},
	{"subagent open at finish", []agui.Event{rs("r1"), subStart("s1", ""), rf("r1")}, rejects(verify.OpenAtFinish, 2, "s1"), rejects(verify.OpenAtFinish, 2, "s1")},
	{"reasoning span open at finish", []agui.Event{rs("r1"), rstart("z"), rf("r1")}, rejects(verify.OpenAtFinish, 2, "z"), rejects(verify.OpenAtFinish, 2, "z")},
	{"steps reported before messages", []agui.Event{rs("r1"), tms("m1"), ss("plan"), rf("r1")}, rejects(verify.OpenAtFinish, 3, "plan"), rejects(verify.OpenAtFinish, 3, "plan")},
	{"RUN_ERROR with everything open", []agui.Event{rs("r1"), tms("m1"), tcs("c1", ""), ss("plan"), subStart("s1", ""), re()}, ok, ok},
	{"chunk stream closed by RUN_FINISHED", []agui.Event{rs("r1"), textChunk("m1", "hi"), rf("r1")}, ok, ok},

	// owner-mismatch
	{"continuation by another subagent", []agui.Event{rs("r1"), tms("m1", "s1"), tmc("m1", "s2")}, rejects(verify.OwnerMismatch, 2, "m1"), rejects(verify.OwnerMismatch, 2, "m1")},
	{"parent's message continued by a subagent", []agui.Event{rs("r1"), tms("m1"), tmc("m1", "s1")}, rejects(verify.OwnerMismatch, 2, "m1"), rejects(verify.OwnerMismatch, 2, "m1")},
	{"untagged continuation of a subagent's message", []agui.Event{rs("r1"), tms("m1", "s1"), tmc("m1"), tme("m1", "s1"), rf("r1")}, rejects(verify.OwnerMismatch, 2, "m1"), ok},
	{"reopened by another subagent", []agui.Event{rs("r1"), tms("m1", "s1"), tme("m1", "s1"), tms("m1", "s2")}, rejects(verify.OwnerMismatch, 3, "m1"), rejects(verify.OwnerMismatch, 3, "m1")},
	{"step finished by another owner", []agui.Event{rs("r1"), ss("plan"), sf("plan", "s1")}, rejects(verify.OwnerMismatch, 2, "plan"), rejects(verify.OwnerMismatch, 2, "plan")},
	{"tool call under another subagent's message", []agui.Event{rs("r1"), tms("m1", "s1"), tme("m1", "s1"), tcs("c1", "m1", "s2")}, rejects(verify.OwnerMismatch, 3, "c1"), rejects(verify.OwnerMismatch, 3, "c1")},
	{"tool call reopened under another owner's message", []agui.Event{rs("r1"), tms("m1"), tme("m1"), tms("m2", "s1"), tme("m2", "s1"), tcs("c1", "m1"), tce("c1"), tcs("c1", "m2")}, rejects(verify.OwnerMismatch, 7, "c1"), rejects(verify.OwnerMismatch, 7, "c1")},
	{"reopen against a snapshot's owner", []agui.Event{rs("r1"), snapshot(assistant("m1", "s1")), tms("m1", "s2")}, rejects(verify.OwnerMismatch, 2, "m1"), rejects(verify.OwnerMismatch, 2, "m1")},
	{"reopen against the input's owner", []agui.Event{func() agui.Event {
		e := agui.NewRunStarted("t", "r1")
		e.Input = &agui.RunAgentInput{ThreadID: "t", RunID: "r1", Messages: []agui.Message{assistant("m1", "s1")}}
		return e
	}(), tms("m1", "s2")}, rejects(verify.OwnerMismatch, 1, "m1"), rejects(verify.OwnerMismatch, 1, "m1")},
	{"tool result mints the message it names", []agui.Event{rs("r1"), tcs("c1", ""), tce("c1"), tcr("t1", "c1", "s1"), tms("t1", "s2")}, rejects(verify.OwnerMismatch, 4, "t1"), rejects(verify.OwnerMismatch, 4, "t1")},
	{"chunk attributed to another lane", []agui.Event{rs("r1"), textChunk("m1", "a", "s1"), textChunk("m1", "b", "s2")}, rejects(verify.OwnerMismatch, 2, "m1"), rejects(verify.OwnerMismatch, 2, "m1")},
	{"ambiguous id-less chunk", []agui.Event{rs("r1"), textChunk("m1", "a", "s1"), textChunk("m2", "b", "s2"), textChunk("", "c")}, rejects(verify.OwnerMismatch, 3, ""), rejects(verify.OwnerMismatch, 3, "")},
	{"attribution consistent throughout", []agui.Event{rs("r1"), subStart("s1", ""), tms("m1", "s1"), tmc("m1", "s1"), tme("m1", "s1"), subFinish("s1"), rf("r1")}, ok, ok},
	{"unannounced attribution", []agui.Event{rs("r1"), tms("m1", "s9"), tme("m1", "s9"), rf("r1")}, ok, ok},

	// not-started
	{"first event not RUN_STARTED", []agui.Event{tms("m1")}, rejects(verify.NotStarted, 0, ""), rejects(verify.NotStarted, 0, "")},
	{"chunk before RUN_STARTED", []agui.Event{textChunk("m1", "a"), rs("r1")}, rejects(verify.NotStarted, 0, ""), rejects(verify.NotStarted, 0, "")},
	{"RUN_FINISHED first", []agui.Event{rf("r1")}, rejects(verify.NotStarted, 0, ""), rejects(verify.NotStarted, 0, "")},
	{"a run that failed before it started", []agui.Event{agui.NewRunError("boom")}, ok, ok},

	// truncation
	{"stream ending inside a run", []agui.Event{rs("r1"), tms("m1")}, want{truncated: true, index: 2}, want{truncated: true, index: 2}},
	{"empty stream", nil, want{truncated: true, index: 0}, ok},
}

func TestRules(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			check(t, "server", run(new(verify.Server), tc.events), tc.server)
			check(t, "client", run(new(verify.Client), tc.events), tc.client)
		})
	}
}

// TestEveryRuleCovered proves each rule has a rejecting and an accepting
// case in ruleCases, per profile where the profile has the rule.
func TestEveryRuleCovered(t *testing.T) {
	rejected := map[string]bool{}
	for _, tc := range ruleCases {
		for profile, w := range map[string]want{"server": tc.server, "client": tc.client} {
			if w.rule != 0 {
				rejected[profile+" "+w.rule.String()] = true
			}
		}
	}
	for _, r := range verify.Rules() {
		if !rejected["server "+r.String()] {
			t.Errorf("no server case rejects with %s", r)
		}
		if r != verify.UnknownID && r != verify.OutOfOrder && !rejected["client "+r.String()] {
			t.Errorf("no client case rejects with %s", r)
		}
	}
}

func TestErrorFormat(t *testing.T) {
	var s verify.Server
	for _, ev := range []agui.Event{rs("r1"), tms("msg-1")} {
		if err := s.Observe(ev); err != nil {
			t.Fatal(err)
		}
	}
	err := s.Observe(tmc("msg-2"))
	const want = "TEXT_MESSAGE_CONTENT breaks rule `not-open` (content and terminators require a matching start): message \"msg-2\" is not open [open: messages={\"msg-1\"}]"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	var ve *verify.Error
	if !errors.As(err, &ve) || ve.Event != agui.EventTypeTextMessageContent || ve.ID != "msg-2" || ve.Index != 2 || ve.Open != `messages={"msg-1"}` {
		t.Fatalf("fields: %+v", ve)
	}
}

func TestErrorOpenSet(t *testing.T) {
	var c verify.Client
	events := []agui.Event{rs("r1"), tms("m2"), tms("m1"), tcs("c1", ""), ss("plan", "s1"), subStart("s1", ""), rstart("z"), rf("r1")}
	err := run(&c, events)
	const want = "RUN_FINISHED breaks rule `open-at-finish` (RUN_FINISHED requires everything opened in the run to be closed, subagents included): step \"plan\" (subagent \"s1\") is still open [open: messages={\"m1\",\"m2\"}, tool calls={\"c1\"}, reasoning spans={\"z\"}, steps={\"plan\" (subagent \"s1\")}, subagents={\"s1\"}]"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}

func TestSynthesizedEventNamesItsChunk(t *testing.T) {
	var c verify.Client
	err := run(&c, []agui.Event{rs("r1"), rf("r1"), textChunk("m1", "late")})
	var ve *verify.Error
	if !errors.As(err, &ve) || ve.Rule != verify.RunEnded || ve.Event != agui.EventTypeTextMessageStart || ve.Via != agui.EventTypeTextMessageChunk || ve.Index != 2 {
		t.Fatalf("got %+v", err)
	}
	if !strings.Contains(err.Error(), "(synthesized from TEXT_MESSAGE_CHUNK)") {
		t.Errorf("message %q does not name the chunk", err)
	}
}

func TestChunkFailureWrapsChunkError(t *testing.T) {
	var s verify.Server
	err := run(&s, []agui.Event{rs("r1"), func() agui.Event {
		e := agui.NewToolCallChunk()
		e.ToolCallID = new("c1")
		return e
	}()})
	var ce *chunks.Error
	if !errors.As(err, &ce) || ce.Kind != chunks.MissingName || !errors.Is(err, chunks.ErrChunk) {
		t.Fatalf("got %v", err)
	}
	var ve *verify.Error
	if !errors.As(err, &ve) || ve.Rule != verify.NotOpen || ve.ID != "c1" || ve.Event != agui.EventTypeToolCallChunk {
		t.Fatalf("got %+v", ve)
	}
}

func TestSticky(t *testing.T) {
	for name, v := range map[string]observer{"server": new(verify.Server), "client": new(verify.Client)} {
		first := run(v, []agui.Event{rs("r1"), tmc("m1")})
		if first == nil {
			t.Fatalf("%s: accepted", name)
		}
		for _, ev := range []agui.Event{tms("m1"), tme("m1"), rf("r1"), rs("r2")} {
			if err := v.Observe(ev); err != first {
				t.Errorf("%s: after the failure got %v, want the same error", name, err)
			}
		}
		if err := v.Finish(); err != first {
			t.Errorf("%s: Finish got %v, want the same error", name, err)
		}
	}
}

func TestServerSeed(t *testing.T) {
	var s verify.Server
	s.Seed([]agui.Message{&agui.AssistantMessage{ID: "a1", Attribution: agui.Attribution{SubagentRunID: new("s1")}, ToolCalls: []agui.ToolCall{{ID: "c1"}}}})
	if err := run(&s, []agui.Event{rs("r1"), tcr("t1", "c1"), rf("r1")}); err != nil {
		t.Fatalf("a result for a call from history: %v", err)
	}
	s = verify.Server{}
	s.Seed([]agui.Message{assistant("m1", "s1")})
	err := run(&s, []agui.Event{rs("r1"), tms("m1", "s2")})
	var ve *verify.Error
	if !errors.As(err, &ve) || ve.Rule != verify.OwnerMismatch {
		t.Fatalf("reopening history under another owner: %v", err)
	}
}

func TestNilEvent(t *testing.T) {
	var c verify.Client
	if err := c.Observe(nil); err == nil {
		t.Fatal("nil event accepted")
	}
}
