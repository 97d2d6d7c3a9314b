package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agui-go/sdk/agui/server"
	aguiotel "github.com/agui-go/sdk/otel"
)

// otelFlushTimeout bounds flushing the spans and metrics on exit, so that
// a collector that is gone delays the command's end by that much at most
// (the exporters retry a failed export for up to a minute otherwise).
const otelFlushTimeout = 10 * time.Second

// otelAgentName is the demo agent's name on its spans and metric points
// (gen_ai.agent.name), so its spans are "invoke_agent demo".
const otelAgentName = "demo"

// openOTel sets up the export of the demo's traces and metrics over
// OTLP/HTTP: the exporters read the endpoint, headers, compression and
// timeouts from the OTEL_EXPORTER_OTLP_* variables themselves (the SDK's
// batcher and periodic reader their OTEL_BSP_* and OTEL_METRIC_EXPORT_*),
// and the resource is service.name agui-demo unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES say otherwise. It returns the handler options
// that observe the runs (aguiotel.Server) and log their records with the
// runs' trace and span ids (aguiotel.LogHandler around the demo's log,
// slog.Default), and the function that shuts the providers down, flushing
// what they hold; it must run after the server stopped.
func openOTel(ctx context.Context) ([]server.HandlerOption, func() error, error) {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := os.Getenv(name); p == "grpc" {
			return nil, nil, fmt.Errorf("--otel exports OTLP over HTTP (http/protobuf), not %s=%s", name, p)
		}
	}
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", "agui-demo")),
		resource.WithFromEnv(), // after, so that OTEL_SERVICE_NAME wins
	)
	if err != nil {
		return nil, nil, fmt.Errorf("--otel: the resource: %w", err)
	}
	texp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("--otel: the OTLP trace exporter: %w", err)
	}
	mexp, err := otlpmetrichttp.New(ctx)
	if err != nil {
		_ = texp.Shutdown(ctx)
		return nil, nil, fmt.Errorf("--otel: the OTLP metric exporter: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(texp), sdktrace.WithResource(res))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)), sdkmetric.WithResource(res))
	shutdown := func() error {
		// Not the serving context: it is done by now (Ctrl-C).
		ctx, cancel := context.WithTimeout(context.Background(), otelFlushTimeout)
		defer cancel()
		var errs []error
		// ForceFlush first: it returns the export's error, where Shutdown
		// hands the error of its own last export to otel.Handle.
		if err := tp.ForceFlush(ctx); err != nil {
			errs = append(errs, fmt.Errorf("flushing the spans: %w", err))
		}
		if err := tp.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stopping the span exporter: %w", err))
		}
		if err := mp.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("flushing the metrics: %w", err))
		}
		return errors.Join(errs...)
	}
	obs, err := aguiotel.Server(aguiotel.WithTracerProvider(tp), aguiotel.WithMeterProvider(mp), aguiotel.WithAgentName(otelAgentName))
	if err != nil {
		_ = shutdown()
		return nil, nil, fmt.Errorf("--otel: %w", err)
	}
	logger := slog.New(aguiotel.LogHandler(slog.Default().Handler()))
	return []server.HandlerOption{server.WithObserver(obs), server.WithLogger(logger)}, shutdown, nil
}
