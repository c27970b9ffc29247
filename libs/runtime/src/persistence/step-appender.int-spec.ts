/**
 * A step's records in one commit (issue 27): where the audit streams live in
 * the run store and it appends to several streams at once (embedded SQLite,
 * PostgreSQL), a read's `StepStarted`, `ToolExecuted` and `AuditRecorded`
 * are one write operation; a write's `ToolExecuted` and audit one more after
 * its fence, and a model call's response and audit one more after its start. The events, their order in each stream and
 * the audit chain are those of the records one after the other.
 */
import type { AuditRecord, RunEvent } from '@agent-ledger/domain';
import { busPrincipal, isTerminalRunEvent, verifyAuditChain } from '@agent-ledger/domain';
import type { RecordedEvent } from '@agent-ledger/event-store';
import { PostgresEventStore, SqliteEventStore } from '@agent-ledger/event-store';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime } from '../testing/runtime-harness';

const call = (tool: string, value = 'x') => ({ tool, arguments: { value } });
const AGENTS: TestAgent[] = [
  { name: 'putter', script: [{ toolCalls: [call('test.read'), call('test.put')] }, { final: 'put it' }] },
  { name: 'two-rounds', script: [{ toolCalls: [call('test.read', 'a')] }, { toolCalls: [call('test.put', 'b')] }, { final: 'done' }] },
];
const types = (events: readonly RunEvent[]) => events.map((e) => e.type);
const chainBreaks = (audits: readonly RecordedEvent[]) => verifyAuditChain(audits.map((e) => e.data as unknown as AuditRecord));
const PUTTER_EVENTS = [
  'RunRequested',
  'RunClaimed',
  'StepStarted',
  'ModelResponded',
  'StepStarted',
  'ToolExecuted',
  'ToolCallPreApproved',
  'StepStarted',
  'ToolExecuted',
  'StepStarted',
  'ModelResponded',
  'RunCompleted',
];

/** Write operations (appends, multi-stream appends) the run store has taken so far. */
function writeOperations(rt: RuntimeHarness): number {
  const store = rt.runStore;
  if (store instanceof SqliteEventStore || store instanceof PostgresEventStore) return store.stats().operations;
  throw new Error(`no write counter on ${store.constructor.name}`);
}

describe.each(['sqlite', 'postgres'] as const)('a step in one commit, the audit in the run store, on %s', (store) => {
  let rt: RuntimeHarness;

  afterEach(async () => {
    await rt?.close();
  });

  it('stores a read as one write, a write and a model call as their start then one more; same events, same chain', async () => {
    rt = await startRuntime({ store, audit: 'run store', agents: AGENTS });
    expect(rt.auditStore).toBe(rt.runStore);
    const before = writeOperations(rt);
    const { runId, state } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'put x' });
    expect(state.status).toBe('COMPLETED');
    expect(types(await rt.runEvents(runId))).toEqual(PUTTER_EVENTS);
    const audits = await rt.auditEvents(runId);
    expect(audits.map((e) => e.type)).toEqual(['RunStartRecorded', 'AuditRecorded', 'AuditRecorded', 'AuditRecorded', 'AuditRecorded']);
    expect(audits.slice(1).map((e) => (e.data as { stepId: string }).stepId)).toEqual([`${runId}/r0/llm`, `${runId}/r0/t0`, `${runId}/r0/t1`, `${runId}/r1/llm`]);
    expect(chainBreaks(audits)).toEqual([]);
    // RunRequested, its start statement, RunClaimed; r0/llm: its start, then its response with its audit; r0/t0: one; r0/t1:
    // its fence (with the pre-approval), then its result with its audit; r1/llm: two; RunCompleted. One record after the
    // other it would be 3 + 3 + 3 + 1 + 2 + 3 + 1 = 16.
    expect(writeOperations(rt) - before).toBe(11);
    expect(rt.metrics.get('stepsAppendedTogether')).toBe(4);
    expect(rt.metrics.get('stepAppendFallbacks')).toBe(0);
    expect(rt.behaviour.executions.map((e) => e.tool)).toEqual(['test.read', 'test.put']);
  });

  it('a run cancelled during a read: the one-commit append is refused (the run moved on), and the run ends cancelled, nothing after', async () => {
    rt = await startRuntime({ store, audit: 'run store', agents: AGENTS, execution: { workers: { concurrency: 1 } } });
    const gate = rt.behaviour.blockNext('test.read');
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'go' });
    await gate.reached;
    await rt.runs.cancel(runId, busPrincipal('alice'));
    const events = await eventually(async () => {
      const stored = await rt.runEvents(runId);
      return stored.some(isTerminalRunEvent) ? stored : undefined;
    }, 10_000, 'the run to settle');
    expect(events.filter(isTerminalRunEvent).map((e) => e.type)).toEqual(['RunCancelled']);
    expect(rt.metrics.get('stepAppendFallbacks')).toBe(1);
    expect(rt.behaviour.count('test.put')).toBe(0);
    expect(chainBreaks(await rt.auditEvents(runId))).toEqual([]);
  });
});

describe('the audit in a store of its own', () => {
  let rt: RuntimeHarness;

  afterEach(async () => {
    await rt?.close();
  });

  it('records a step one record after the other, as before', async () => {
    rt = await startRuntime({ store: 'sqlite', agents: AGENTS });
    const { runId } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'put x' });
    expect(types(await rt.runEvents(runId))).toEqual(PUTTER_EVENTS);
    expect(rt.metrics.get('stepsAppendedTogether')).toBe(0);
    expect(rt.metrics.get('stepAppendFallbacks')).toBe(0);
  });
});
