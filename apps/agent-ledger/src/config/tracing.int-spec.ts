import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { busPrincipal, isTerminalRunEvent } from '@agent-ledger/domain';
import type { EventStore, RecordedEvent } from '@agent-ledger/event-store';
import { runStreamName, SpanAttribute, TRACER_NAME, tracingEnabled } from '@agent-ledger/runtime';
import type { RuntimeHarness, TestAgent } from '@agent-ledger/runtime/testing';
import { eventually, startRuntime, stateOf } from '@agent-ledger/runtime/testing';
import type { HttpTestApp } from '../http/testing/http-test-app';
import { startHttpTestApp } from '../http/testing/http-test-app';
import type { Tracing } from './tracing';
import { registerTracing, startTracing, tracesEndpoint } from './tracing';

/*
 * Traces, recorded by the SDK's in-memory exporter: one trace per run, from
 * the caller's span (an HTTP request's traceparent, or a span active around
 * a bus command) through every segment, whichever process or runtime
 * instance executes it, with a span per model call and per tool call.
 */

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const CALLER = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

const readThenAppend = [{ toolCalls: [{ tool: 'test.read', arguments: { value: 'a' } }, { tool: 'test.append', arguments: { value: 'b' } }] }, { final: 'done' }];
const AGENTS: readonly TestAgent[] = [
  { name: 'trusted', script: readThenAppend, approvals: { preApproved: ['test.append'] } },
  { name: 'careful', script: readThenAppend, approvals: { preApproved: [] } },
];

const exporter = new InMemorySpanExporter();
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;
const spansOfRun = (runId: string) => exporter.getFinishedSpans().filter((s) => s.attributes[SpanAttribute.RUN_ID] === runId);
const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
/** A run's events as stored, with their metadata. */
const storedEvents = async (store: EventStore, stream: string) => (await store.readStream(stream)).events;
const storedTraceparents = (events: readonly RecordedEvent[]) => events.map((e) => (e.metadata as { traceparent?: string } | undefined)?.traceparent);

/** The run's spans once `segments` segment spans have ended. */
const segmentsEnded = (runId: string, segments: number) =>
  eventually(() => {
    const spans = spansOfRun(runId);
    return named(spans, 'segment').length >= segments ? spans : undefined;
  }, 10_000, `${segments} segment span(s) of run ${runId}`);

describe('traces with an SDK registered', () => {
  let tracing: Tracing;

  beforeAll(() => {
    tracing = registerTracing([new SimpleSpanProcessor(exporter)]);
  });
  afterAll(async () => {
    await tracing.shutdown();
  });
  beforeEach(() => exporter.reset());

  describe('through the HTTP API', () => {
    let app: HttpTestApp;
    beforeEach(async () => {
      app = await startHttpTestApp({ env: { WORKER_CONCURRENCY: '1' } });
    });
    afterEach(async () => {
      await app.close();
    });

    it('a queued run executed by a worker is one trace from the caller\'s traceparent through the request, the segment, its model and tool calls', async () => {
      const started = await app.call('POST', '/runs', { body: { agent: 'writer', input: 'go' }, headers: { traceparent: CALLER, tracestate: 'vendor=a1' } });
      expect(started.status).toBe(202);
      const runId = (started.body as { runId: string }).runId;
      const spans = await segmentsEnded(runId, 1);

      const request = exporter.getFinishedSpans().find((s) => s.name === 'POST /runs');
      expect(request).toBeDefined();
      const http = request as ReadableSpan;
      expect(http.kind).toBe(SpanKind.SERVER);
      expect(traceOf(http)).toBe(CALLER_TRACE);
      expect(parentOf(http)).toBe(CALLER_SPAN);
      expect(http.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/runs', 'http.response.status_code': 202 });
      expect(http.instrumentationScope.name).toBe(TRACER_NAME);

      const [segment] = named(spans, 'segment');
      expect(traceOf(segment as ReadableSpan)).toBe(CALLER_TRACE);
      expect(parentOf(segment as ReadableSpan)).toBe(idOf(http));
      expect((segment as ReadableSpan).attributes).toMatchObject({ [SpanAttribute.AGENT]: 'writer', [SpanAttribute.ATTEMPT]: 1, [SpanAttribute.SEGMENT_OUTCOME]: 'settled' });

      const models = named(spans, 'model call');
      expect(models.map((s) => s.attributes[SpanAttribute.ROUND])).toEqual([0, 1]);
      for (const model of models) expect(parentOf(model)).toBe(idOf(segment as ReadableSpan));

      const events = await storedEvents(app.stores.runStore, runStreamName(runId));
      const fence = events.find((e) => e.type === 'StepStarted' && (e.data as { toolName?: string }).toolName === 'files.write');
      const [tool] = named(spans, 'tool call');
      expect(parentOf(tool as ReadableSpan)).toBe(idOf(segment as ReadableSpan));
      expect((tool as ReadableSpan).attributes).toEqual(
        expect.objectContaining({
          [SpanAttribute.TOOL_NAME]: 'files.write',
          [SpanAttribute.TOOL_EFFECT]: (fence?.data as { effect: string }).effect,
          [SpanAttribute.IDEMPOTENCY_KEY]: (fence?.data as { idempotencyKey: string }).idempotencyKey,
          [SpanAttribute.ATTEMPT]: 1,
          [SpanAttribute.TOOL_OUTCOME]: 'succeeded',
          [SpanAttribute.AUDIT_OUTCOME]: 'stored',
        }),
      );
      expect((tool as ReadableSpan).status.code).not.toBe(SpanStatusCode.ERROR);

      // The context travels in the events: the start carries the request's span (the caller's tracestate kept), the fence the tool call's.
      expect(events[0]?.metadata).toMatchObject({ traceparent: `00-${CALLER_TRACE}-${idOf(http)}-01`, tracestate: 'vendor=a1' });
      expect((fence?.metadata as { traceparent: string }).traceparent).toBe(`00-${CALLER_TRACE}-${idOf(tool as ReadableSpan)}-01`);
      // A worker's claim is decided before it knows the run's trace: the one event without a context.
      expect(events.filter((e) => storedTraceparents([e])[0] === undefined).map((e) => e.type)).toEqual(['RunClaimed']);
      for (const traceparent of storedTraceparents(events).filter((t) => t !== undefined)) expect(traceparent).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
      expect(storedTraceparents(events)).not.toContain(CALLER);
    });

    it('an interactive run\'s segment runs inside the request\'s span', async () => {
      const started = await app.call('POST', '/runs', { body: { agent: 'clock', input: 'now', mode: 'interactive' }, headers: { traceparent: CALLER } });
      expect(started.status).toBe(200);
      const runId = (started.body as { runId: string }).runId;
      const spans = await segmentsEnded(runId, 1);
      const http = exporter.getFinishedSpans().find((s) => s.name === 'POST /runs') as ReadableSpan;
      const [segment] = named(spans, 'segment');
      expect(parentOf(segment as ReadableSpan)).toBe(idOf(http));
      expect(traceOf(segment as ReadableSpan)).toBe(CALLER_TRACE);
      // The segment ended inside the request.
      expect(http.endTime[0] * 1e9 + http.endTime[1]).toBeGreaterThanOrEqual((segment as ReadableSpan).endTime[0] * 1e9 + (segment as ReadableSpan).endTime[1]);
      const [tool] = named(spans, 'tool call');
      expect((tool as ReadableSpan).attributes).toMatchObject({ [SpanAttribute.TOOL_NAME]: 'clock.now', [SpanAttribute.TOOL_EFFECT]: 'READ_ONLY', [SpanAttribute.TOOL_OUTCOME]: 'succeeded' });
    });

    it('a malformed traceparent is ignored: a new trace, a normal answer, and the header is never stored', async () => {
      const malformed = `00-${CALLER_TRACE.toUpperCase()}-${CALLER_SPAN}-01`;
      const started = await app.call('POST', '/runs', { body: { agent: 'clock', input: 'now' }, headers: { traceparent: malformed, tracestate: 'x=1' } });
      expect(started.status).toBe(202);
      const runId = (started.body as { runId: string }).runId;
      const spans = await segmentsEnded(runId, 1);
      const http = exporter.getFinishedSpans().find((s) => s.name === 'POST /runs') as ReadableSpan;
      expect(parentOf(http)).toBeUndefined();
      expect(traceOf(http)).not.toBe(CALLER_TRACE);
      expect(traceOf(named(spans, 'segment')[0] as ReadableSpan)).toBe(traceOf(http));
      const events = await storedEvents(app.stores.runStore, runStreamName(runId));
      expect(events[0]?.metadata).toMatchObject({ traceparent: `00-${traceOf(http)}-${idOf(http)}-01` });
      expect(events[0]?.metadata).not.toHaveProperty('tracestate');
    });
  });

  describe.each(['sqlite', 'eventstoredb'] as const)('through the bus, on %s', (store) => {
    let rt: RuntimeHarness;
    let other: RuntimeHarness | undefined;
    afterEach(async () => {
      await other?.close();
      other = undefined;
      await rt.close();
    });

    /** Starts a queued run inside an active span of the caller's, and answers the run id and that span's context. */
    const enqueueInSpan = (harness: RuntimeHarness, agent: string) =>
      trace.getTracer('caller').startActiveSpan('caller', async (span) => {
        try {
          return { runId: await harness.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent, input: 'go' }), caller: span.spanContext() };
        } finally {
          span.end();
        }
      });
    const settled = (harness: RuntimeHarness, runId: string) =>
      eventually(async () => {
        const events = await harness.runEvents(runId);
        return events.some(isTerminalRunEvent) ? events : undefined;
      }, 10_000, `run ${runId} to settle`);

    it('a run resumed after an approval stays in its trace: both segments are children of the span that started it', async () => {
      rt = await startRuntime({ store, agents: AGENTS, execution: { workers: { concurrency: 1 } } });
      const { runId, caller } = await enqueueInSpan(rt, 'careful');
      await eventually(async () => (stateOf(await rt.runEvents(runId)).status === 'WAITING_FOR_APPROVAL' ? true : undefined), 10_000, 'the approval request');
      // The decision comes from outside any span: the run's trace is still the one it started in.
      await rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') });
      await settled(rt, runId);
      const spans = await segmentsEnded(runId, 2);

      const segments = named(spans, 'segment');
      expect(segments.map((s) => s.attributes[SpanAttribute.SEGMENT_OUTCOME])).toEqual(['waiting', 'settled']);
      for (const segment of segments) {
        expect(traceOf(segment)).toBe(caller.traceId);
        expect(parentOf(segment)).toBe(caller.spanId);
      }
      // The resumed segment reuses round 0's recorded answer: it calls the model once more, and executes both calls.
      const [first, second] = segments as [ReadableSpan, ReadableSpan];
      expect(named(spans, 'model call').map(parentOf)).toEqual([idOf(first), idOf(second)]);
      const tools = named(spans, 'tool call');
      expect(tools.map((s) => [s.attributes[SpanAttribute.TOOL_NAME], s.attributes[SpanAttribute.TOOL_EFFECT], parentOf(s)])).toEqual([
        ['test.read', 'READ_ONLY', idOf(second)],
        ['test.append', 'NON_IDEMPOTENT_WRITE', idOf(second)],
      ]);
      const append = rt.behaviour.executions.find((e) => e.tool === 'test.append');
      expect(tools[1]?.attributes).toMatchObject({ [SpanAttribute.IDEMPOTENCY_KEY]: append?.idempotencyKey, [SpanAttribute.ATTEMPT]: 2, [SpanAttribute.AUDIT_OUTCOME]: 'stored' });
    });

    it('a run started by one runtime instance is continued by another on the same store, in the same trace', async () => {
      rt = await startRuntime({ store, agents: AGENTS, execution: { workers: { concurrency: 0 } } });
      other = await startRuntime({ agents: AGENTS, sharedWith: rt, execution: { workers: { concurrency: 1 } } });
      const { runId, caller } = await enqueueInSpan(rt, 'trusted');
      await settled(other, runId);
      const spans = await segmentsEnded(runId, 1);
      const [segment] = named(spans, 'segment');
      expect(traceOf(segment as ReadableSpan)).toBe(caller.traceId);
      expect(parentOf(segment as ReadableSpan)).toBe(caller.spanId);
      expect(named(spans, 'tool call').map((s) => s.attributes[SpanAttribute.TOOL_NAME])).toEqual(['test.read', 'test.append']);
      for (const span of spans) expect(traceOf(span)).toBe(caller.traceId);
    });

    it('a failed tool call records its error on its span; the run goes on', async () => {
      rt = await startRuntime({ store, agents: AGENTS, execution: { workers: { concurrency: 1 } } });
      rt.behaviour.failWith = new Error('the disk is full');
      const { runId } = await enqueueInSpan(rt, 'trusted');
      await settled(rt, runId);
      const spans = await segmentsEnded(runId, 1);
      const [read] = named(spans, 'tool call');
      expect(read?.attributes[SpanAttribute.TOOL_OUTCOME]).toBe('failed');
      expect(read?.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'the disk is full' });
      expect(read?.events.map((e) => e.name)).toContain('exception');
    });
  });
});

describe('traces without an SDK', () => {
  let rt: RuntimeHarness;
  afterEach(async () => {
    await rt.close();
  });

  it('records nothing, stores no trace context, and runs as before', async () => {
    expect(tracingEnabled()).toBe(false);
    expect(startTracing({})).toBeNull();
    expect(tracingEnabled()).toBe(false);
    exporter.reset();
    rt = await startRuntime({ store: 'sqlite', agents: AGENTS, execution: { workers: { concurrency: 1 } } });
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'trusted', input: 'go' });
    const events = await eventually(async () => {
      const stored = await storedEvents(rt.runStore, runStreamName(runId));
      return stored.some((e) => e.type === 'RunCompleted') ? stored : undefined;
    }, 10_000, `run ${runId} to complete`);
    expect(storedTraceparents(events).every((t) => t === undefined)).toBe(true);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

// The export itself (the exporter loads Node's http with a dynamic import, which Jest's sandbox refuses) is tested on the built
// service: test/e2e/traces.e2e-spec.ts.
describe('OTLP export', () => {
  it('takes the traces endpoint as it is, or the base endpoint with /v1/traces; none without either', () => {
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' })).toBe('http://c:4318/custom');
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toBe('http://c:4318/v1/traces');
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeNull();
    expect(tracesEndpoint({})).toBeNull();
  });

});
