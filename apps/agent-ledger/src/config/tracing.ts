import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** The service name of the traces when `OTEL_SERVICE_NAME` is not set. */
export const DEFAULT_SERVICE_NAME = 'agent-ledger';

/** A registered tracer provider: `shutdown` exports what is pending and unregisters it. */
export interface Tracing {
  readonly provider: BasicTracerProvider;
  shutdown(): Promise<void>;
}

/**
 * Registers an OpenTelemetry tracer provider for this process with
 * `spanProcessors`: the global tracer provider, an AsyncLocalStorage context
 * manager (so a span stays active across awaits) and the W3C trace-context
 * propagator.
 */
export function registerTracing(spanProcessors: readonly SpanProcessor[], serviceName: string = DEFAULT_SERVICE_NAME): Tracing {
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': serviceName }), spanProcessors: [...spanProcessors] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    provider,
    async shutdown() {
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
        context.disable();
        propagation.disable();
      }
    },
  };
}

/**
 * Starts exporting traces over OTLP/HTTP when an endpoint is configured in
 * `env`: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, or else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended (the exporter
 * reads its other standard `OTEL_EXPORTER_OTLP_*` settings, headers and
 * timeout, from the process's environment), under `OTEL_SERVICE_NAME`
 * (`agent-ledger` by default). Without an endpoint nothing is registered and
 * every span is a no-op: null.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing | null {
  const url = tracesEndpoint(env);
  if (url === null) return null;
  const serviceName = (env.OTEL_SERVICE_NAME ?? '').trim() || DEFAULT_SERVICE_NAME;
  return registerTracing([new BatchSpanProcessor(new OTLPTraceExporter({ url }))], serviceName);
}

/** The traces endpoint `env` configures, or null for none. */
export function tracesEndpoint(env: NodeJS.ProcessEnv): string | null {
  const traces = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? '').trim();
  if (traces !== '') return traces;
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  return base === '' ? null : `${base.replace(/\/+$/, '')}/v1/traces`;
}
