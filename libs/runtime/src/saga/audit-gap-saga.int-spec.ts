import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@agent-ledger/domain';
import { isTerminalRunEvent } from '@agent-ledger/domain';
import { auditStreamName } from '../persistence/run-streams';
import { writeExecutedWithoutAudit } from '../testing/crash-points';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime } from '../testing/runtime-harness';

const SECOND = 1000;
const call = (tool: string) => ({ tool, arguments: { value: 'x' } });
const AGENTS: TestAgent[] = [
  { name: 'putter', script: [{ toolCalls: [call('test.put')] }, { final: 'put' }] },
  { name: 'reader', script: [{ toolCalls: [call('test.read')] }, { final: 'read' }] },
];
const PUT = { name: 'test.put', effect: 'IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 } as const;
const APPEND = { name: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 } as const;
const READ = { name: 'test.read', effect: 'READ_ONLY' } as const;
const gapEvents = (events: readonly RunEvent[]) => events.filter((e) => e.type === 'AuditGapDetected' || isTerminalRunEvent(e));

describe.each(['sqlite', 'eventstoredb'] as const)('audit-gap saga on %s', (store) => {
  let rt: RuntimeHarness;
  let other: RuntimeHarness | undefined;

  beforeEach(async () => {
    rt = await startRuntime({ store, agents: AGENTS, execution: { auditGapSaga: { gracePeriodMs: 30 * SECOND } } });
  });

  afterEach(async () => {
    await other?.close();
    other = undefined;
    await rt.close();
  });

  const pending = (h: RuntimeHarness, n: number) => eventually(() => (h.saga.pendingCount() === n ? true : undefined), 10_000, `${n} pending writes`);

  it('fails a run whose write never gets its audit, once the grace period is over (AUDIT_MISSING, not retryable)', async () => {
    const { runId, stepId } = await writeExecutedWithoutAudit(rt, { agent: 'putter', tool: APPEND });
    await pending(rt, 1);
    rt.clock.advance(29 * SECOND);
    expect(await rt.saga.checkDeadlines()).toEqual({ reported: [], found: [], statements: [] });
    rt.clock.advance(2 * SECOND);
    expect(await rt.saga.checkDeadlines()).toEqual({ reported: [stepId], found: [], statements: [] });
    const events = await rt.runEvents(runId);
    expect(gapEvents(events)).toEqual([
      expect.objectContaining({ type: 'AuditGapDetected', data: expect.objectContaining({ stepId, runAlreadySettled: false, effect: 'NON_IDEMPOTENT_WRITE' }) }),
      expect.objectContaining({ type: 'RunFailed', data: expect.objectContaining({ reason: 'AUDIT_MISSING', deadLettered: true, failure: expect.objectContaining({ failureClass: 'unknown' }) }) }),
    ]);
    expect(rt.saga.pendingCount()).toBe(0);
  });

  it("counts only the step's own AuditRecorded as its audit: another audit record naming the step (an input answer) is not", async () => {
    const { runId, stepId } = await writeExecutedWithoutAudit(rt, { agent: 'putter', tool: APPEND });
    await pending(rt, 1);
    // After the run's start statement (sequence 1).
    const answer = { runId, stepId, sequence: 2, inputHash: 'a'.repeat(64), answeredBy: { kind: 'development' }, answeredAt: rt.clock.now(), recordedAt: rt.clock.now(), previousHash: null, hash: 'b'.repeat(64) };
    await rt.auditStore.append(auditStreamName(runId), [{ id: randomUUID(), type: 'InputAnswerRecorded', data: answer, metadata: { schemaVersion: 1 } }], { expectedRevision: 0n });
    rt.clock.advance(31 * SECOND);
    expect(await rt.saga.checkDeadlines()).toEqual({ reported: [stepId], found: [], statements: [] });
  });

  it('only records the gap of a run that settled before the gap was seen', async () => {
    const { runId, stepId } = await writeExecutedWithoutAudit(rt, { agent: 'putter', tool: PUT, settle: true });
    await pending(rt, 1);
    rt.clock.advance(31 * SECOND);
    await rt.saga.checkDeadlines();
    expect(gapEvents(await rt.runEvents(runId))).toEqual([
      expect.objectContaining({ type: 'RunCompleted' }),
      expect.objectContaining({ type: 'AuditGapDetected', data: expect.objectContaining({ stepId, runAlreadySettled: true }) }),
    ]);
  });

  it('does nothing for a write whose audit arrives in time, nor for read-only steps', async () => {
    const { runId } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' });
    const read = await writeExecutedWithoutAudit(rt, { agent: 'reader', tool: READ });
    // Both the write and its audit are seen: nothing is pending, and the read-only step never was. The chain: the start, two model rounds, the write.
    await eventually(async () => ((await rt.auditEvents(runId)).length === 4 ? true : undefined));
    await pending(rt, 0);
    rt.clock.advance(3600 * SECOND);
    expect(await rt.saga.checkDeadlines()).toEqual({ reported: [], found: [], statements: [] });
    expect(gapEvents(await rt.runEvents(runId))).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    expect(gapEvents(await rt.runEvents(read.runId))).toEqual([]);
  });

  it('reports each gap once when two instances watch the same stores', async () => {
    other = await startRuntime({ store, agents: AGENTS, sharedWith: rt, execution: { auditGapSaga: { gracePeriodMs: 30 * SECOND } } });
    const { runId } = await writeExecutedWithoutAudit(rt, { agent: 'putter', tool: APPEND });
    await pending(rt, 1);
    await pending(other, 1);
    rt.clock.advance(31 * SECOND);
    await Promise.all([rt.saga.checkDeadlines(), (other as RuntimeHarness).saga.checkDeadlines()]);
    const events = await rt.runEvents(runId);
    expect(events.filter((e) => e.type === 'AuditGapDetected')).toHaveLength(1);
    expect(events.filter(isTerminalRunEvent)).toHaveLength(1);
  });
});
