import type { Context, Span, SpanContext } from '@opentelemetry/api';
import { context, createTraceState, isSpanContextValid, ProxyTracerProvider, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import type { EventTraceContext } from '@agent-ledger/domain';

/*
 * The W3C trace context (https://www.w3.org/TR/trace-context/) of the runtime,
 * written and read here without a propagator, so that a host that registers
 * no OpenTelemetry SDK still carries a caller's context and pays no more
 * than a few string checks. A value that is not a valid `traceparent` is
 * ignored, never an error, and nothing is ever stored as it came: what is
 * stored is formatted again from the parsed span context.
 */

/** `version-traceid-parentid-flags`; a version other than 00 may carry more fields after the flags (the W3C rule for newer versions). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** The W3C limit of a `tracestate` header. */
const MAX_TRACESTATE_LENGTH = 512;

/** The span context a `traceparent` (and `tracestate`) names, or undefined when it is not a valid one. */
export function parseTraceContext(traceparent: unknown, tracestate?: unknown): SpanContext | undefined {
  if (typeof traceparent !== 'string' || traceparent.length > 512) return undefined;
  const match = TRACEPARENT.exec(traceparent.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const spanContext: SpanContext = { traceId, spanId, traceFlags: parseInt(flags, 16) & 1, isRemote: true };
  if (!isSpanContextValid(spanContext)) return undefined;
  if (typeof tracestate === 'string' && tracestate.length > 0 && tracestate.length <= MAX_TRACESTATE_LENGTH) {
    // createTraceState drops the members that are not valid; an empty result is left out.
    const state = createTraceState(tracestate);
    if (state.serialize() !== '') return { ...spanContext, traceState: state };
  }
  return spanContext;
}

/** The trace context to store for a span context (formatted from it), or undefined when it is not valid. */
export function traceContextOfSpan(spanContext: SpanContext | undefined): EventTraceContext | undefined {
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return undefined;
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 1).toString(16).padStart(2, '0')}`;
  const tracestate = spanContext.traceState?.serialize();
  return tracestate === undefined || tracestate === '' ? { traceparent } : { traceparent, tracestate };
}

/** The trace context of the active span, if any (what a command sent inside a span stores with its events). */
export function activeTraceContext(): EventTraceContext | undefined {
  return traceContextOfSpan(trace.getActiveSpan()?.spanContext());
}

/** The trace context stored in an event's metadata (`traceparent`, `tracestate`), or undefined when absent or not valid. */
export function storedTraceContext(metadata: unknown): SpanContext | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const { traceparent, tracestate } = metadata as { traceparent?: unknown; tracestate?: unknown };
  return parseTraceContext(traceparent, tracestate);
}

/**
 * The context that continues a caller's trace: `parent` (a remote span
 * context) set on `base`; `base` itself when there is none.
 */
export function contextWithParent(parent: SpanContext | undefined, base: Context = context.active()): Context {
  return parent === undefined ? base : trace.setSpanContext(base, parent);
}

/**
 * Continues the trace of an incoming `traceparent` (and `tracestate`): the
 * context to run the request's span in. A missing or malformed header gives
 * the root context (a new trace), never an error.
 */
export function continueTrace(traceparent: unknown, tracestate?: unknown): Context {
  return contextWithParent(parseTraceContext(traceparent, tracestate), ROOT_CONTEXT);
}

/**
 * Whether a tracer provider is registered (an OpenTelemetry SDK): the
 * runtime reads a run's stored trace context only then, so that a host
 * without one pays nothing.
 */
export function tracingEnabled(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer(TRACER_NAME) !== undefined;
}

/** The instrumentation scope of the runtime's and the HTTP API's spans. */
export const TRACER_NAME = 'agent-ledger';

/** Records `error` on `span` (an exception event and an error status), without ending it. */
export function recordSpanError(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Records a failure that is not a thrown error (a tool call recorded as failed) on `span`: an exception event named `name`, and an error status. */
export function recordSpanFailure(span: Span, name: string, message: string): void {
  span.recordException({ name, message });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
