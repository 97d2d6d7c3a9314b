// Package oteltest writes the spans and metrics an OpenTelemetry SDK
// recorded as text for golden files: what a run's telemetry says, with
// what varies from run to run (span and trace ids, times, ports, sizes
// that hold random ids) left out, so that the same run writes the same
// text. The tests of aguiotel and of the adapters that trace through it
// compare their telemetry this way.
package oteltest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Spans writes spans, a block each: the span's name, kind, its parent's
// name ("-" for a root, "(outside)" for a parent not among spans), its
// status, then its attributes and events, sorted by key. Spans are in the
// order of their names, and those of one name in the order they started.
func Spans(spans []sdktrace.ReadOnlySpan) string {
	names := map[trace.SpanID]string{}
	for _, s := range spans {
		names[s.SpanContext().SpanID()] = s.Name()
	}
	spans = slices.Clone(spans)
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int {
		return cmp.Or(strings.Compare(a.Name(), b.Name()), a.StartTime().Compare(b.StartTime()))
	})
	var b strings.Builder
	for _, s := range spans {
		parent := "-"
		if p := s.Parent(); p.IsValid() {
			parent = names[p.SpanID()]
			if parent == "" {
				parent = "(outside)"
			}
		}
		fmt.Fprintf(&b, "span %q kind=%s parent=%q status=%s", s.Name(), s.SpanKind(), parent, s.Status().Code)
		if d := s.Status().Description; d != "" {
			fmt.Fprintf(&b, " %q", d)
		}
		b.WriteString("\n")
		writeAttrs(&b, "  ", s.Attributes())
		for _, e := range s.Events() {
			fmt.Fprintf(&b, "  event %q\n", e.Name)
			writeAttrs(&b, "    ", e.Attributes)
		}
	}
	return b.String()
}

// writeAttrs writes kvs sorted by key, a line each, with the values that
// vary from run to run replaced.
func writeAttrs(b *strings.Builder, indent string, kvs []attribute.KeyValue) {
	kvs = slices.Clone(kvs)
	slices.SortFunc(kvs, func(x, y attribute.KeyValue) int { return strings.Compare(string(x.Key), string(y.Key)) })
	for _, kv := range kvs {
		v := kv.Value.Emit()
		switch kv.Key {
		case "exception.stacktrace":
			v = "<stack>"
		case "agui.run.bytes":
			v = "<bytes>" // message ids are random
		case "server.port":
			v = "<port>"
		case "url.full": // a local server's port
			if rest, ok := strings.CutPrefix(v, "http://127.0.0.1:"); ok {
				if i := strings.IndexByte(rest, '/'); i >= 0 {
					v = "http://127.0.0.1:<port>" + rest[i:]
				}
			}
		}
		fmt.Fprintf(b, "%s%s=%s\n", indent, kv.Key, v)
	}
}

// Metrics writes the points of the metrics whose names start with prefix
// ("" for all), sorted, a line each: the metric's name, the point's
// attributes, and a sum's value or a histogram's count (with its sum for
// a metric of counts of events, named ….events).
func Metrics(rm metricdata.ResourceMetrics, prefix string) string {
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if !strings.HasPrefix(m.Name, prefix) {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					lines = append(lines, fmt.Sprintf("%s %s value=%d", m.Name, setString(p.Attributes), p.Value))
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					line := fmt.Sprintf("%s %s count=%d", m.Name, setString(p.Attributes), p.Count)
					if strings.HasSuffix(m.Name, ".events") {
						line += fmt.Sprintf(" sum=%d", p.Sum)
					}
					lines = append(lines, line)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					lines = append(lines, fmt.Sprintf("%s %s count=%d", m.Name, setString(p.Attributes), p.Count))
				}
			default:
				lines = append(lines, fmt.Sprintf("%s %T", m.Name, d))
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

func setString(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.Emit())
	}
	return "{" + strings.Join(parts, ",") + "}"
}
