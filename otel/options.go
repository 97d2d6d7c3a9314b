package aguiotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// scope is the instrumentation scope of the tracer and the meter.
const scope = "github.com/agui-go/sdk/otel"

// Option configures [Server] and [Client].
type Option func(*config)

type config struct {
	tracers trace.TracerProvider
	meters  metric.MeterProvider
	prop    propagation.TextMapPropagator
	agent   string
}

func newConfig(opts []Option) config {
	c := config{
		tracers: otel.GetTracerProvider(),
		meters:  otel.GetMeterProvider(),
		prop:    propagation.TraceContext{},
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// WithTracerProvider sets where spans go; the default is the global
// provider (otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		if tp != nil {
			c.tracers = tp
		}
	}
}

// WithMeterProvider sets where metrics go; the default is the global
// provider (otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp != nil {
			c.meters = mp
		}
	}
}

// WithPropagator sets how a trace context is read from a request (server)
// and written into one (client); the default is the W3C trace context,
// propagation.TraceContext, whatever the global propagator is.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) {
		if p != nil {
			c.prop = p
		}
	}
}

// WithAgentName names the agent: gen_ai.agent.name on spans and metric
// points, and the span's name "invoke_agent {name}".
func WithAgentName(name string) Option { return func(c *config) { c.agent = name } }

// spanName is the name of a run's span.
func (c *config) spanName() string {
	if c.agent == "" {
		return "invoke_agent"
	}
	return "invoke_agent " + c.agent
}
