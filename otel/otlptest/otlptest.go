// Package otlptest is a local OTLP/HTTP receiver for tests: an
// httptest server that takes what an OTLP/HTTP exporter sends
// (go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp,
// …/otlpmetric/otlpmetrichttp, or any other in protobuf), decodes each
// export request with go.opentelemetry.io/proto/otlp and keeps it, so that
// a test can look for the spans and metrics a real export carried.
//
//	rec := otlptest.NewReceiver()
//	defer rec.Close()
//	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rec.URL)
//	… export, then shut the providers down (which flushes) …
//	for _, s := range rec.Spans() { … }
//
// It serves POST /v1/traces and /v1/metrics with the body in protobuf
// (Content-Type application/x-protobuf), gzipped or not, and answers each
// with an empty response message: full success. Anything else gets a 4xx
// status and is recorded as an error ([Receiver.Err]), so that a test sees
// an exporter that sent what the receiver did not understand.
package otlptest

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// maxBody bounds an export request's body, decompressed.
const maxBody = 64 << 20

// Receiver is a running OTLP/HTTP receiver. Its methods are safe to call
// while exports arrive.
type Receiver struct {
	// URL is the receiver's base URL, http://127.0.0.1:PORT: the value for
	// OTEL_EXPORTER_OTLP_ENDPOINT, to which the exporters add /v1/traces
	// and /v1/metrics.
	URL string

	srv     *httptest.Server
	mu      sync.Mutex
	traces  []*coltracepb.ExportTraceServiceRequest
	metrics []*colmetricpb.ExportMetricsServiceRequest
	errs    []error
}

// NewReceiver starts a receiver on a free port of the loopback interface.
// Close stops it.
func NewReceiver() *Receiver {
	r := &Receiver{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, req *http.Request) {
		var m coltracepb.ExportTraceServiceRequest
		if r.decode(w, req, &m) {
			r.mu.Lock()
			r.traces = append(r.traces, &m)
			r.mu.Unlock()
			reply(w, &coltracepb.ExportTraceServiceResponse{})
		}
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, req *http.Request) {
		var m colmetricpb.ExportMetricsServiceRequest
		if r.decode(w, req, &m) {
			r.mu.Lock()
			r.metrics = append(r.metrics, &m)
			r.mu.Unlock()
			reply(w, &colmetricpb.ExportMetricsServiceResponse{})
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		r.fail(w, http.StatusNotFound, fmt.Errorf("%s %s: not an OTLP/HTTP route this receiver serves", req.Method, req.URL.Path))
	})
	r.srv = httptest.NewServer(mux)
	r.URL = r.srv.URL
	return r
}

// Close stops the receiver and closes its connections.
func (r *Receiver) Close() { r.srv.Close() }

// Endpoint is the receiver's host:port, for an exporter's WithEndpoint
// (with WithInsecure: the receiver speaks plain HTTP).
func (r *Receiver) Endpoint() string { return strings.TrimPrefix(r.URL, "http://") }

func (r *Receiver) decode(w http.ResponseWriter, req *http.Request, m proto.Message) bool {
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		r.fail(w, http.StatusUnsupportedMediaType, fmt.Errorf("%s: Content-Type %q, want application/x-protobuf", req.URL.Path, ct))
		return false
	}
	var body io.Reader = req.Body
	switch enc := req.Header.Get("Content-Encoding"); enc {
	case "", "identity":
	case "gzip":
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			r.fail(w, http.StatusBadRequest, fmt.Errorf("%s: gzip: %w", req.URL.Path, err))
			return false
		}
		defer gz.Close()
		body = gz
	default:
		r.fail(w, http.StatusUnsupportedMediaType, fmt.Errorf("%s: Content-Encoding %q", req.URL.Path, enc))
		return false
	}
	b, err := io.ReadAll(io.LimitReader(body, maxBody+1))
	if err == nil && len(b) > maxBody {
		err = fmt.Errorf("more than %d bytes", maxBody)
	}
	if err == nil {
		err = proto.Unmarshal(b, m)
	}
	if err != nil {
		r.fail(w, http.StatusBadRequest, fmt.Errorf("%s: decoding the export request: %w", req.URL.Path, err))
		return false
	}
	return true
}

func (r *Receiver) fail(w http.ResponseWriter, status int, err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
	http.Error(w, err.Error(), status)
}

func reply(w http.ResponseWriter, m proto.Message) {
	b, err := proto.Marshal(m)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

// Err joins every request the receiver refused, or is nil.
func (r *Receiver) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.errs...)
}

// TraceRequests returns the trace export requests received so far, in
// the order they arrived.
func (r *Receiver) TraceRequests() []*coltracepb.ExportTraceServiceRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*coltracepb.ExportTraceServiceRequest(nil), r.traces...)
}

// MetricRequests returns the metric export requests received so far, in
// the order they arrived.
func (r *Receiver) MetricRequests() []*colmetricpb.ExportMetricsServiceRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*colmetricpb.ExportMetricsServiceRequest(nil), r.metrics...)
}

// Span is one received span with the resource and instrumentation scope
// it was exported under.
type Span struct {
	Resource *resourcepb.Resource
	Scope    *commonpb.InstrumentationScope
	*tracepb.Span
}

// Spans returns every span received so far, in the order they arrived.
func (r *Receiver) Spans() []Span {
	var spans []Span
	for _, req := range r.TraceRequests() {
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					spans = append(spans, Span{Resource: rs.GetResource(), Scope: ss.GetScope(), Span: s})
				}
			}
		}
	}
	return spans
}

// Metric is one received metric with the resource and instrumentation
// scope it was exported under.
type Metric struct {
	Resource *resourcepb.Resource
	Scope    *commonpb.InstrumentationScope
	*metricspb.Metric
}

// Metrics returns every metric received so far, in the order they
// arrived; a periodic reader's metric appears once per export.
func (r *Receiver) Metrics() []Metric {
	var metrics []Metric
	for _, req := range r.MetricRequests() {
		for _, rm := range req.GetResourceMetrics() {
			for _, sm := range rm.GetScopeMetrics() {
				for _, m := range sm.GetMetrics() {
					metrics = append(metrics, Metric{Resource: rm.GetResource(), Scope: sm.GetScope(), Metric: m})
				}
			}
		}
	}
	return metrics
}

// Attrs maps attributes' keys to their values as text: a string as it
// is, a boolean, integer or double as strconv writes it, bytes in hex,
// an array or a map in brackets.
func Attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = Value(kv.GetValue())
	}
	return m
}

// Value is an attribute value as text (see [Attrs]).
func Value(v *commonpb.AnyValue) string {
	switch v := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return v.StringValue
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(v.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(v.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(v.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BytesValue:
		return fmt.Sprintf("%x", v.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		parts := make([]string, len(v.ArrayValue.GetValues()))
		for i, e := range v.ArrayValue.GetValues() {
			parts[i] = Value(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *commonpb.AnyValue_KvlistValue:
		parts := make([]string, len(v.KvlistValue.GetValues()))
		for i, kv := range v.KvlistValue.GetValues() {
			parts[i] = kv.GetKey() + "=" + Value(kv.GetValue())
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		return ""
	}
}

// Attrs is [Attrs] of the span's attributes.
func (s Span) Attrs() map[string]string { return Attrs(s.GetAttributes()) }
