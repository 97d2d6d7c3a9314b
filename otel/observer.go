package aguiotel

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// observer is what the server's and the client's observers share: the
// configuration, the tracer, the name of a run's span and the attributes
// every span and point carries (the agent's name, when it is set).
type observer struct {
	cfg       config
	tracer    trace.Tracer
	name      string
	common    []attribute.KeyValue
	commonSet metric.MeasurementOption
}

func newObserver(c config) observer {
	o := observer{cfg: c, tracer: c.tracers.Tracer(scope), name: c.spanName()}
	if c.agent != "" {
		o.common = []attribute.KeyValue{keyAgentName.String(c.agent)}
	}
	o.commonSet = metric.WithAttributes(o.common...)
	return o
}
