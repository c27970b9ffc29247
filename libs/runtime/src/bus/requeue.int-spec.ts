import type { AuditRecord } from '@agent-ledger/domain';
import { busPrincipal, isTerminalRunEvent, verifyAuditChain } from '@agent-ledger/domain';
import type { RuntimeHarness } from '../testing/runtime-harness';
import { eventually, startRuntime } from '../testing/runtime-harness';

const SECOND = 1000;
const AGENTS = [{ name: 'appender', script: [{ toolCalls: [{ tool: 'test.read', arguments: { value: 'a' } }, { tool: 'test.append', arguments: { value: 'b' } }] }, { final: 'done' }] }];

describe.each(['sqlite', 'eventstoredb'] as const)('an operator requeue on %s', (store) => {
  let rt: RuntimeHarness;

  beforeEach(async () => {
    rt = await startRuntime({ store, agents: AGENTS, execution: { workers: { concurrency: 2 }, policy: { leaseSeconds: 10 } } });
  });

  afterEach(async () => {
    await rt.close();
  });

  /** A queued run dead-lettered WRITE_INTERRUPTED: reaped while its append was executing. */
  async function deadLetteredMidAppend(): Promise<string> {
    const gate = rt.behaviour.blockNext('test.append');
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'go' });
    await gate.reached;
    rt.clock.advance(121 * SECOND);
    await eventually(async () => ((await rt.reaper.reapOnce()).failed.length > 0 ? true : undefined), 5000, 'the reap');
    gate.release();
    await eventually(() => (rt.metrics.get('leaseLost') === 1 ? true : undefined), 5000, 'the stale segment to stop');
    return runId;
  }

  const settled = (runId: string) =>
    eventually(async () => {
      const events = await rt.runEvents(runId);
      return events.some(isTerminalRunEvent) ? events : undefined;
    }, 10_000, `run ${runId} to settle`);

  it('is refused with a NON_IDEMPOTENT_WRITE in flight and no resolution, and writes nothing', async () => {
    const runId = await deadLetteredMidAppend();
    const before = { run: (await rt.runEvents(runId)).length, audit: (await rt.auditEvents(runId)).length };
    await expect(rt.runs.requeue(runId, { requestedBy: busPrincipal('alice') })).rejects.toMatchObject({ code: 'IN_FLIGHT_WRITE_UNRESOLVED', toolName: 'test.append' });
    expect((await rt.runEvents(runId)).length).toBe(before.run);
    expect((await rt.auditEvents(runId)).length).toBe(before.audit);
  });

  it('with the write declared executed: records the statement in the audit chain, and the continuation never executes it again', async () => {
    const runId = await deadLetteredMidAppend();
    const { continuationRunId } = await rt.runs.requeue(runId, {
      requestedBy: busPrincipal('alice'),
      reason: 'provider back',
      resolution: { outcome: 'executed', note: 'the line is in the target file' },
    });
    const events = await settled(continuationRunId);
    expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    expect(rt.behaviour.count('test.append')).toBe(1);
    expect(rt.behaviour.count('test.read')).toBe(1);
    // The requeued run keeps its one terminal event, and says where it continues.
    const original = await rt.runEvents(runId);
    expect(original.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ data: expect.objectContaining({ reason: 'WRITE_INTERRUPTED' }) })]);
    expect(original.at(-1)).toMatchObject({ type: 'RunRequeuedByOperator', data: { continuationRunId, requestedBy: busPrincipal('alice'), resolution: { outcome: 'executed' } } });
    const audit = await rt.auditEvents(runId);
    expect(audit.at(-1)).toMatchObject({ type: 'WriteResolutionRecorded', data: { stepId: `${runId}/r0/t1`, outcome: 'executed', resolvedBy: busPrincipal('alice'), continuationRunId } });
    expect(verifyAuditChain(audit.map((e) => e.data as unknown as AuditRecord))).toEqual([]);
  });

  it('with the write declared not executed: the continuation executes it once, under the original idempotency key', async () => {
    const runId = await deadLetteredMidAppend();
    const { continuationRunId } = await rt.runs.requeue(runId, { requestedBy: busPrincipal('alice'), resolution: { outcome: 'notExecuted', note: 'nothing in the target' } });
    await settled(continuationRunId);
    const appends = rt.behaviour.executions.filter((e) => e.tool === 'test.append');
    expect(appends.map((e) => [e.runId, e.idempotencyKey])).toEqual([
      [runId, `agent-ledger:${runId}/r0/t1`],
      [continuationRunId, `agent-ledger:${runId}/r0/t1`],
    ]);
    expect(rt.behaviour.count('test.read')).toBe(1);
  });

  it('is made once: a second requeue is refused', async () => {
    const runId = await deadLetteredMidAppend();
    const first = await rt.runs.requeue(runId, { requestedBy: busPrincipal('alice'), resolution: { outcome: 'notExecuted', note: 'checked' } });
    await expect(rt.runs.requeue(runId, { requestedBy: busPrincipal('bob'), resolution: { outcome: 'notExecuted', note: 'checked' } })).rejects.toMatchObject({
      code: 'RUN_ALREADY_REQUEUED',
      continuationRunId: first.continuationRunId,
    });
  });
});
