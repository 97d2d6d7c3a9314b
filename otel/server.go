package aguiotel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// Server returns the observer that traces and measures the runs of a
// handler or a driver (see the package documentation); give it to
// server.WithObserver. Its error is a meter provider's refusal to create
// an instrument.
func Server(opts ...Option) (server.Observer, error) {
	c := newConfig(opts)
	m, err := newServerMetrics(c.meters.Meter(scope))
	if err != nil {
		return server.Observer{}, err
	}
	o := &serverObserver{observer: newObserver(c), m: m}
	return server.Observer{StartRun: o.startRun, Reattach: o.reattach, Connect: o.connect}, nil
}

type serverObserver struct {
	observer
	m *serverMetrics
}

type serverMetrics struct {
	active      metric.Int64UpDownCounter
	runs        metric.Int64Counter
	duration    metric.Float64Histogram
	firstEvent  metric.Float64Histogram
	events      metric.Int64Histogram
	bytes       metric.Int64Histogram
	disconnects metric.Int64Counter
	replays     metric.Int64Counter
	connects    metric.Int64Counter
}

func newServerMetrics(m metric.Meter) (*serverMetrics, error) {
	var s serverMetrics
	var errs [9]error
	s.active, errs[0] = m.Int64UpDownCounter("agui.server.runs.active", metric.WithUnit("{run}"), metric.WithDescription("Runs in flight."))
	s.runs, errs[1] = m.Int64Counter("agui.server.runs", metric.WithUnit("{run}"), metric.WithDescription("Runs ended, by outcome and error code."))
	s.duration, errs[2] = m.Float64Histogram("agui.server.run.duration", metric.WithUnit("s"), metric.WithDescription("How long runs took, from their start to their terminal event."))
	s.firstEvent, errs[3] = m.Float64Histogram("agui.server.run.time_to_first_event", metric.WithUnit("s"), metric.WithDescription("Time from a run's start to the first event its agent emitted."))
	s.events, errs[4] = m.Int64Histogram("agui.server.run.events", metric.WithUnit("{event}"), metric.WithDescription("Events sent per run."))
	s.bytes, errs[5] = m.Int64Histogram("agui.server.run.bytes", metric.WithUnit("By"), metric.WithDescription("Bytes of events sent per run."))
	s.disconnects, errs[6] = m.Int64Counter("agui.server.disconnects", metric.WithUnit("{disconnect}"), metric.WithDescription("Consumers found gone before their run ended."))
	s.replays, errs[7] = m.Int64Counter("agui.server.replays", metric.WithUnit("{replay}"), metric.WithDescription("Readers that reattached to a durable run."))
	s.connects, errs[8] = m.Int64Counter("agui.server.connects", metric.WithUnit("{connect}"), metric.WithDescription("Connect streams of threads served."))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, fmt.Errorf("aguiotel: %w", err)
	}
	return &s, nil
}

// serverRun is one observed run. Event, Rejected and Disconnect are called
// with the run's emission lock held, and End after the last of them, so
// the fields need no lock of their own; Cancel touches only the span,
// which is safe for concurrent use.
type serverRun struct {
	o     *serverObserver
	ctx   context.Context // carries span
	span  trace.Span
	start time.Time

	events, bytes int64
	first         bool                  // the agent's first event was seen
	tools         map[string]trace.Span // the tool calls without a result yet
}

func (o *serverObserver) startRun(ctx context.Context, info server.RunInfo) (context.Context, *server.RunTrace) {
	kind := trace.SpanKindInternal
	if req := info.Request; req != nil {
		kind = trace.SpanKindServer
		if !trace.SpanContextFromContext(ctx).IsValid() {
			ctx = o.cfg.prop.Extract(ctx, propagation.HeaderCarrier(req.Header))
		}
	}
	in := info.Input
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, keyOperation.String("invoke_agent"))
	attrs = append(attrs, o.common...)
	attrs = append(attrs, keyConversationID.String(in.ThreadID), keyRunID.String(in.RunID))
	if in.ParentRunID != nil {
		attrs = append(attrs, keyParentRunID.String(*in.ParentRunID))
	}
	if info.Durable {
		attrs = append(attrs, keyDurable.Bool(true))
	}
	r := &serverRun{o: o, start: time.Now()}
	r.ctx, r.span = o.tracer.Start(ctx, o.name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...), trace.WithTimestamp(r.start))
	o.m.active.Add(r.ctx, 1, o.commonSet)
	return r.ctx, &server.RunTrace{
		Event:      r.event,
		Rejected:   r.rejected,
		Disconnect: r.disconnect,
		Cancel:     r.cancel,
		End:        r.end,
	}
}

func (r *serverRun) event(ev agui.Event, size int) {
	r.events++
	r.bytes += int64(size)
	switch ev := ev.(type) { //agui:nonexhaustive the run's span follows tool calls alone; every other event only counts
	case *agui.RunStarted, *agui.RunFinished, *agui.RunError:
		return // the driver's, not the agent's: no first event
	case *agui.ToolCallStart:
		r.startTool(ev)
	case *agui.ToolCallResult:
		if s, ok := r.tools[ev.ToolCallID]; ok {
			delete(r.tools, ev.ToolCallID)
			s.End()
		}
	}
	if !r.first {
		r.first = true
		r.o.m.firstEvent.Record(r.ctx, time.Since(r.start).Seconds(), r.o.commonSet)
	}
}

func (r *serverRun) startTool(ev *agui.ToolCallStart) {
	if r.tools == nil {
		r.tools = make(map[string]trace.Span)
	}
	_, s := r.o.tracer.Start(r.ctx, "execute_tool "+ev.ToolCallName, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(keyOperation.String("execute_tool"), keyToolName.String(ev.ToolCallName), keyToolCallID.String(ev.ToolCallID)))
	r.tools[ev.ToolCallID] = s
}

func (r *serverRun) rejected(ev agui.Event, err error) {
	r.span.AddEvent("agui.verifier.rejected", trace.WithAttributes(keyEventType.String(string(ev.Type())), keyMessage.String(err.Error())))
}

func (r *serverRun) disconnect(cause error) {
	r.span.AddEvent("agui.disconnected", trace.WithAttributes(keyCause.String(cause.Error())))
	r.o.m.disconnects.Add(r.ctx, 1, r.o.commonSet)
}

func (r *serverRun) cancel(cause error) {
	msg := "context canceled"
	if cause != nil {
		msg = cause.Error()
	}
	r.span.AddEvent("agui.cancelled", trace.WithAttributes(keyCause.String(msg)))
}

func (r *serverRun) end(end server.RunEnd) {
	now := time.Now()
	outcome, _, usage, interrupts := terminal(end.Terminal)
	for _, in := range interrupts {
		attrs := []attribute.KeyValue{keyInterruptID.String(in.ID), keyInterruptWhy.String(in.Reason)}
		if in.ToolCallID != nil {
			attrs = append(attrs, keyToolCallID.String(*in.ToolCallID))
		}
		r.span.AddEvent("agui.interrupt", trace.WithAttributes(attrs...))
	}
	for _, s := range r.tools {
		s.SetAttributes(keyPending.Bool(true))
		s.End(trace.WithTimestamp(now))
	}
	r.tools = nil

	point := append(make([]attribute.KeyValue, 0, 3), r.o.common...)
	point = append(point, keyOutcome.String(outcome))
	if !end.Normal && end.Code != "" {
		point = append(point, keyErrorType.String(string(end.Code)))
	}
	span := append(point, keyEvents.Int64(r.events), keyBytes.Int64(r.bytes))
	span = append(span, usageAttrs(usage)...)
	r.span.SetAttributes(span...)
	if !end.Normal && outcome != outcomeCancelled {
		msg := string(end.Code)
		if end.Err != nil {
			msg = end.Err.Error()
		}
		if pe, ok := errors.AsType[*server.PanicError](end.Err); ok {
			r.span.AddEvent("exception", trace.WithAttributes(keyExceptionType.String("panic"),
				keyExceptionMsg.String(fmt.Sprint(pe.Value)), keyExceptionST.String(string(pe.Stack))))
		}
		r.span.SetStatus(codes.Error, msg)
	}
	// The points before the span ends: whoever sees the run's span
	// ended finds its points.
	m, set := r.o.m, metric.WithAttributes(point...)
	m.active.Add(r.ctx, -1, r.o.commonSet)
	m.runs.Add(r.ctx, 1, set)
	m.duration.Record(r.ctx, now.Sub(r.start).Seconds(), set)
	m.events.Record(r.ctx, r.events, set)
	m.bytes.Record(r.ctx, r.bytes, set)
	r.span.End(trace.WithTimestamp(now))
}

// connect traces a thread's connect stream: a span of its own (a page's
// reload, a client picking the thread up), continuing the caller's trace,
// with the thread, whether its history was replayed and the live run it
// followed.
func (o *serverObserver) connect(ctx context.Context, info server.ConnectInfo) func(server.ConnectEnd) {
	if req := info.Request; req != nil && !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = o.cfg.prop.Extract(ctx, propagation.HeaderCarrier(req.Header))
	}
	attrs := append(append(make([]attribute.KeyValue, 0, 4), o.common...),
		keyConversationID.String(info.ThreadID), keyConnReplayed.Bool(info.Replayed))
	if info.LiveRunID != "" {
		attrs = append(attrs, keyRunID.String(info.LiveRunID))
	}
	ctx, span := o.tracer.Start(ctx, "agui.connect", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return func(end server.ConnectEnd) {
		span.SetAttributes(keyConnEnded.Bool(end.Ended))
		if end.Cause != nil {
			span.AddEvent("agui.disconnected", trace.WithAttributes(keyCause.String(end.Cause.Error())))
		}
		o.m.connects.Add(ctx, 1, metric.WithAttributes(append(o.common[:len(o.common):len(o.common)], keyConnEnded.Bool(end.Ended))...))
		span.End()
	}
}

func (o *serverObserver) reattach(ctx context.Context, info server.ReattachInfo) func(server.ReattachEnd) {
	if req := info.Request; req != nil && !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = o.cfg.prop.Extract(ctx, propagation.HeaderCarrier(req.Header))
	}
	attrs := append(append(make([]attribute.KeyValue, 0, 4), o.common...),
		keyConversationID.String(info.ThreadID), keyRunID.String(info.RunID), keyReplayAfter.Int64(int64(info.After)))
	ctx, span := o.tracer.Start(ctx, "agui.replay", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return func(end server.ReattachEnd) {
		span.SetAttributes(keyReplayEnded.Bool(end.Ended))
		if end.Cause != nil {
			span.AddEvent("agui.disconnected", trace.WithAttributes(keyCause.String(end.Cause.Error())))
		}
		o.m.replays.Add(ctx, 1, metric.WithAttributes(append(o.common[:len(o.common):len(o.common)], keyReplayEnded.Bool(end.Ended))...))
		span.End()
	}
}
