package aguiotel

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/agui-go/sdk/agui"
)

// The attribute keys: the GenAI conventions' where they name the thing,
// agui.* for what is the protocol's own.
const (
	keyOperation      = attribute.Key("gen_ai.operation.name")
	keyAgentName      = attribute.Key("gen_ai.agent.name")
	keyConversationID = attribute.Key("gen_ai.conversation.id")
	keyToolName       = attribute.Key("gen_ai.tool.name")
	keyToolCallID     = attribute.Key("gen_ai.tool.call.id")
	keyInputTokens    = attribute.Key("gen_ai.usage.input_tokens")
	keyOutputTokens   = attribute.Key("gen_ai.usage.output_tokens")
	keyCacheRead      = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	keyCacheCreation  = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	keyErrorType      = attribute.Key("error.type")
	keyHTTPStatus     = attribute.Key("http.response.status_code")

	keyRunID         = attribute.Key("agui.run.id")
	keyParentRunID   = attribute.Key("agui.parent_run.id")
	keyDurable       = attribute.Key("agui.run.durable")
	keyOutcome       = attribute.Key("agui.run.outcome")
	keyEvents        = attribute.Key("agui.run.events")
	keyBytes         = attribute.Key("agui.run.bytes")
	keyEventType     = attribute.Key("agui.event.type")
	keyCause         = attribute.Key("agui.cause")
	keyInterruptID   = attribute.Key("agui.interrupt.id")
	keyInterruptWhy  = attribute.Key("agui.interrupt.reason")
	keyPending       = attribute.Key("agui.tool_call.pending")
	keyReplayAfter   = attribute.Key("agui.replay.after")
	keyReplayEnded   = attribute.Key("agui.replay.ended")
	keyConnReplayed  = attribute.Key("agui.connect.replayed")
	keyConnEnded     = attribute.Key("agui.connect.ended")
	keyWarningKind   = attribute.Key("agui.warning.kind")
	keyAttempt       = attribute.Key("agui.reattach.attempt")
	keyLastEventID   = attribute.Key("agui.reattach.last_event_id")
	keyMessage       = attribute.Key("agui.message")
	keyExceptionType = attribute.Key("exception.type")
	keyExceptionMsg  = attribute.Key("exception.message")
	keyExceptionST   = attribute.Key("exception.stacktrace")
)

// The values of agui.run.outcome.
const (
	outcomeSuccess      = "success"
	outcomeInterrupt    = "interrupt"
	outcomeCancelled    = "cancelled"
	outcomeError        = "error"
	outcomeDisconnected = "disconnected"
)

// terminal reads a terminal event: the run's outcome, its error code (""
// for none), its usage and, for an interrupted run, the interrupts.
func terminal(ev agui.Event) (outcome string, code agui.ErrorCode, usage []agui.TokenUsage, interrupts []agui.Interrupt) {
	switch ev := ev.(type) { //agui:nonexhaustive only the two terminal events end a run
	case *agui.RunFinished:
		outcome = outcomeSuccess
		switch o := ev.Outcome.(type) {
		case nil, *agui.RunFinishedSuccessOutcome:
		case *agui.RunFinishedInterruptOutcome:
			outcome, interrupts = outcomeInterrupt, o.Interrupts
		case *agui.RunFinishedCancelledOutcome:
			outcome = outcomeCancelled
		}
		return outcome, "", ev.Usage, interrupts
	case *agui.RunError:
		if ev.Code != nil {
			code = agui.ErrorCode(*ev.Code)
		}
		return outcomeError, code, ev.Usage, nil
	}
	return outcomeDisconnected, "", nil, nil
}

// usageAttrs are the GenAI usage attributes of usage, summed over its
// entries (a run may call several models); none when it reports nothing.
func usageAttrs(usage []agui.TokenUsage) []attribute.KeyValue {
	var in, out, read, created int64
	var hasIn, hasOut, hasRead, hasCreated bool
	add := func(sum *int64, has *bool, v *int64) {
		if v != nil {
			*sum += *v
			*has = true
		}
	}
	for _, u := range usage {
		add(&in, &hasIn, u.InputTokens)
		add(&out, &hasOut, u.OutputTokens)
		add(&read, &hasRead, u.CachedInputTokens)
		add(&created, &hasCreated, u.CacheWriteInputTokens)
	}
	var attrs []attribute.KeyValue
	if hasIn {
		attrs = append(attrs, keyInputTokens.Int64(in))
	}
	if hasOut {
		attrs = append(attrs, keyOutputTokens.Int64(out))
	}
	if hasRead {
		attrs = append(attrs, keyCacheRead.Int64(read))
	}
	if hasCreated {
		attrs = append(attrs, keyCacheCreation.Int64(created))
	}
	return attrs
}
