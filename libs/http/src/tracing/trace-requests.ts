import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { continueTrace, TRACER_NAME } from '@agent-ledger/runtime';

/** What Express calls a middleware; the request may carry the matched route once routed. */
type TracingMiddleware = (request: IncomingMessage & { route?: { path?: unknown } }, response: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The HTTP API's entry span: one server span a request (`GET /runs/:runId`,
 * named by its route once routed), continuing the caller's trace when the
 * request carries a valid W3C `traceparent` header (and `tracestate`). A
 * missing or malformed header starts a new trace; it is never an error and
 * never stored as it came. The rest of the request runs in the span's
 * context, so a run it starts records the span's context with its events.
 * Without a registered OpenTelemetry SDK the span is a no-op.
 */
export function traceRequests(): TracingMiddleware {
  const tracer = trace.getTracer(TRACER_NAME);
  return (request, response, next) => {
    const method = request.method ?? 'GET';
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const parent = continueTrace(request.headers.traceparent, request.headers.tracestate);
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } }, parent);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = request.route?.path;
      if (typeof route === 'string') {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${response.statusCode}` });
      if (!response.writableFinished) span.setAttribute('http.response.aborted', true);
      span.end();
    };
    response.once('finish', end);
    response.once('close', end);
    const active = trace.setSpan(parent, span);
    // Body parsing resumes the chain from the request stream's events: bound, they run in the span's context too.
    context.bind(active, request);
    context.bind(active, response);
    context.with(active, next);
  };
}
