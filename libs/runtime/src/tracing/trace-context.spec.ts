import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { decodeEvent, encodeEvent } from '@agent-ledger/domain';
import { continueTrace, parseTraceContext, storedTraceContext, traceContextOfSpan, tracingEnabled } from './trace-context';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const VALID = `00-${TRACE_ID}-${SPAN_ID}-01`;

describe('W3C trace context', () => {
  it('parses a valid traceparent into a remote span context', () => {
    expect(parseTraceContext(VALID)).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    expect(parseTraceContext(`00-${TRACE_ID}-${SPAN_ID}-00`)?.traceFlags).toBe(TraceFlags.NONE);
  });

  it.each([
    ['not a string', 42],
    ['empty', ''],
    ['upper case', VALID.toUpperCase()],
    ['a zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['a zero span id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ['version 00 with more fields', `${VALID}-extra`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['a newline inside', `00-${TRACE_ID}\n-${SPAN_ID}-01`],
    ['over 512 characters', `01-${TRACE_ID}-${SPAN_ID}-01-${'a'.repeat(512)}`],
  ])('ignores a malformed traceparent (%s)', (_case, header) => {
    expect(parseTraceContext(header)).toBeUndefined();
    expect(trace.getSpanContext(continueTrace(header))).toBeUndefined();
  });

  it('accepts a newer version with more fields, as the W3C recommendation asks', () => {
    expect(parseTraceContext(`01-${TRACE_ID}-${SPAN_ID}-01-future`)).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID });
  });

  it('keeps the valid members of a tracestate, drops the rest, and an over-long one altogether', () => {
    expect(parseTraceContext(VALID, 'vendor=a1,BAD KEY=x')?.traceState?.serialize()).toBe('vendor=a1');
    expect(parseTraceContext(VALID, '!!!')?.traceState).toBeUndefined();
    expect(parseTraceContext(VALID, `v=${'a'.repeat(600)}`)?.traceState).toBeUndefined();
  });

  it('formats what it stores from the parsed context, never the header as it came', () => {
    const parsed = parseTraceContext(` ${VALID} `, 'vendor=a1');
    expect(traceContextOfSpan(parsed)).toEqual({ traceparent: VALID, tracestate: 'vendor=a1' });
    expect(traceContextOfSpan(undefined)).toBeUndefined();
  });

  it('continues a valid traceparent in the root context', () => {
    expect(trace.getSpanContext(continueTrace(VALID))).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, isRemote: true });
    expect(continueTrace(undefined)).toBe(ROOT_CONTEXT);
  });

  it('reads the trace context stored in metadata; events stored without one still decode', () => {
    const event = { type: 'RunCancelled', data: { runId: 'r1', requestedBy: { kind: 'development' }, cancelledAt: 1 } } as never;
    const encoded = encodeEvent(event, { correlationId: 'r1', traceContext: { traceparent: VALID, tracestate: 'vendor=a1' } });
    expect(encoded.metadata).toMatchObject({ traceparent: VALID, tracestate: 'vendor=a1', $correlationId: 'r1' });
    expect(storedTraceContext(encoded.metadata)).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID });

    const old = { type: 'RunCancelled', data: (event as { data: object }).data, metadata: { schemaVersion: encoded.metadata.schemaVersion } };
    expect(storedTraceContext(old.metadata)).toBeUndefined();
    expect(storedTraceContext(undefined)).toBeUndefined();
    expect(storedTraceContext({ traceparent: 'garbage' })).toBeUndefined();
    expect(decodeEvent(old as never)).toEqual(decodeEvent({ ...old, metadata: encoded.metadata } as never));
  });

  it('says no tracer provider is registered when none is', () => {
    expect(tracingEnabled()).toBe(false);
  });
});
