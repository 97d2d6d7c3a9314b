package aguiotel

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// Client returns the observer that traces and measures the runs of a
// client (see the package documentation); give it to client.WithObserver.
// Each run is a span "invoke_agent {agent}" of kind Client, a child of the
// span of the context the run is started with, and its requests carry its
// trace context (WithPropagator), so the server's run span is its child.
func Client(opts ...Option) (client.Observer, error) {
	c := newConfig(opts)
	m, err := newClientMetrics(c.meters.Meter(scope))
	if err != nil {
		return client.Observer{}, err
	}
	o := &clientObserver{observer: newObserver(c), m: m}
	return client.Observer{StartRun: o.startRun}, nil
}

type clientObserver struct {
	observer
	m *clientMetrics
}

type clientMetrics struct {
	runs       metric.Int64Counter
	duration   metric.Float64Histogram
	firstEvent metric.Float64Histogram
	events     metric.Int64Histogram
	reattaches metric.Int64Counter
	warnings   metric.Int64Counter
}

func newClientMetrics(m metric.Meter) (*clientMetrics, error) {
	var s clientMetrics
	var errs [6]error
	s.runs, errs[0] = m.Int64Counter("agui.client.runs", metric.WithUnit("{run}"), metric.WithDescription("Runs consumed, by outcome and error."))
	s.duration, errs[1] = m.Float64Histogram("agui.client.run.duration", metric.WithUnit("s"), metric.WithDescription("How long runs took, from the request to the stream's end."))
	s.firstEvent, errs[2] = m.Float64Histogram("agui.client.run.time_to_first_event", metric.WithUnit("s"), metric.WithDescription("Time from the request to the first event after RUN_STARTED."))
	s.events, errs[3] = m.Int64Histogram("agui.client.run.events", metric.WithUnit("{event}"), metric.WithDescription("Events delivered per run."))
	s.reattaches, errs[4] = m.Int64Counter("agui.client.reattaches", metric.WithUnit("{reattach}"), metric.WithDescription("Attempts to reattach to a durable run after a dropped connection."))
	s.warnings, errs[5] = m.Int64Counter("agui.client.warnings", metric.WithUnit("{warning}"), metric.WithDescription("Warnings of the client's pipeline, by kind."))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, fmt.Errorf("aguiotel: %w", err)
	}
	return &s, nil
}

// clientRun is one observed run of a client; its funcs are all called on
// the goroutine that consumes the run.
type clientRun struct {
	o        *clientObserver
	ctx      context.Context
	span     trace.Span
	start    time.Time
	events   int64
	first    bool
	terminal agui.Event
	status   int // the first answer's
}

func (o *clientObserver) startRun(ctx context.Context, info client.RunInfo) (context.Context, *client.RunTrace) {
	attrs := append(append(make([]attribute.KeyValue, 0, 5), keyOperation.String("invoke_agent")), o.common...)
	if in := info.Input; in != nil {
		attrs = append(attrs, keyConversationID.String(in.ThreadID), keyRunID.String(in.RunID))
	}
	r := &clientRun{o: o, start: time.Now()}
	r.ctx, r.span = o.tracer.Start(ctx, o.name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...), trace.WithTimestamp(r.start))
	return r.ctx, &client.RunTrace{
		Request:  r.request,
		Response: r.response,
		Event:    r.event,
		Warning:  r.warning,
		Reattach: r.reattach,
		End:      r.end,
	}
}

func (r *clientRun) request(req *http.Request) {
	r.o.cfg.prop.Inject(r.ctx, propagation.HeaderCarrier(req.Header))
}

func (r *clientRun) response(resp *http.Response, err error) {
	if err == nil && r.status == 0 {
		r.status = resp.StatusCode
		r.span.SetAttributes(keyHTTPStatus.Int(resp.StatusCode))
	}
}

func (r *clientRun) event(ev agui.Event, _ client.Position) {
	r.events++
	switch t := ev.Type(); t { //agui:nonexhaustive the driver's events mark the run; every other one only counts
	case agui.EventTypeRunStarted:
		return
	case agui.EventTypeRunFinished, agui.EventTypeRunError:
		r.terminal = ev
		return
	default:
	}
	if !r.first {
		r.first = true
		r.o.m.firstEvent.Record(r.ctx, time.Since(r.start).Seconds(), r.o.commonSet)
	}
}

func (r *clientRun) warning(w agui.Warning) {
	r.span.AddEvent("agui.warning", trace.WithAttributes(keyWarningKind.String(string(w.Kind)), keyMessage.String(w.Message)))
	r.o.m.warnings.Add(r.ctx, 1, metric.WithAttributes(append(r.o.common[:len(r.o.common):len(r.o.common)], keyWarningKind.String(string(w.Kind)))...))
}

func (r *clientRun) reattach(lastID string, attempt int, err error) {
	attrs := []attribute.KeyValue{keyLastEventID.String(lastID), keyAttempt.Int(attempt)}
	if err != nil {
		attrs = append(attrs, keyMessage.String(err.Error()))
	}
	r.span.AddEvent("agui.reattach", trace.WithAttributes(attrs...))
	r.o.m.reattaches.Add(r.ctx, 1, r.o.commonSet)
}

func (r *clientRun) end(err error) {
	now := time.Now()
	outcome, code, usage, _ := terminal(r.terminal)
	point := append(make([]attribute.KeyValue, 0, 3), r.o.common...)
	switch {
	case err != nil:
		outcome = outcomeError
		point = append(point, keyOutcome.String(outcome), keyErrorType.String(clientErrorType(err)))
		r.span.SetStatus(codes.Error, err.Error())
	case code != "":
		point = append(point, keyOutcome.String(outcome), keyErrorType.String(string(code)))
		r.span.SetStatus(codes.Error, string(code))
	default:
		if r.terminal == nil {
			outcome = outcomeDisconnected // the loop stopped before the end
		}
		point = append(point, keyOutcome.String(outcome))
	}
	span := append(point, keyEvents.Int64(r.events))
	r.span.SetAttributes(append(span, usageAttrs(usage)...)...)
	set := metric.WithAttributes(point...)
	r.o.m.runs.Add(r.ctx, 1, set)
	r.o.m.duration.Record(r.ctx, now.Sub(r.start).Seconds(), set)
	r.o.m.events.Record(r.ctx, r.events, set)
	r.span.End(trace.WithTimestamp(now)) // after the points, as the server's
}

// clientErrorType is error.type for a run the client could not read to
// its end: the HTTP status of a refusal, "stream" for a stream that broke
// or was rejected, the conventions' "_OTHER" otherwise.
func clientErrorType(err error) string {
	if he, ok := errors.AsType[*client.HTTPError](err); ok {
		return strconv.Itoa(he.Status)
	}
	if _, ok := errors.AsType[*client.StreamError](err); ok {
		return "stream"
	}
	return "_OTHER"
}
