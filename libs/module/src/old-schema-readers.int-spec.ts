import type { CancelRequested } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision } from '@agent-ledger/event-store';
import { auditStreamName, runStreamName } from '@agent-ledger/runtime';
import type { RuntimeHarness } from '@agent-ledger/runtime/testing';
import { decisionHistories, eventually, seedRun, startRuntime } from '@agent-ledger/runtime/testing';
import type { FollowedReadModels } from './testing';
import { followReadModels } from './testing';

/*
 * Every reader of stored events decodes them through the domain's codec, so
 * an event an older version stored (schema version 1: who acted as free
 * text) reaches each of them upcast: the queue index (its cancel listeners
 * get the request), the audit-gap saga (it states the decision late, from
 * the run's upcast history) and the read models.
 */

jest.setTimeout(60_000);

const SECOND = 1000;

/** An event as an older version appended it: schema version 1 in its metadata, or no metadata at all. */
function v1(type: string, data: Record<string, unknown>, metadata: 'stated' | 'none' = 'stated') {
  return { id: crypto.randomUUID(), type, data, ...(metadata === 'none' ? {} : { metadata: { schemaVersion: 1 } }) };
}

async function append(store: EventStore, stream: string, events: ReturnType<typeof v1>[]): Promise<void> {
  await store.append(stream, events, { expectedRevision: ExpectedRevision.ANY });
}

describe.each(['sqlite', 'eventstoredb'] as const)('readers of schema version 1 events on %s', (kind) => {
  let rt: RuntimeHarness;
  let readModels: FollowedReadModels;
  let T: number;
  const cancelRequests: Array<CancelRequested['data']> = [];

  beforeAll(async () => {
    rt = await startRuntime({ store: kind, agents: [{ name: 'writer', script: [{ final: 'done' }] }], execution: { auditGapSaga: { gracePeriodMs: 30 * SECOND } } });
    T = rt.clock.now();

    // A run waiting for input, answered by "dave" in version 1; its statement is not in the audit chain.
    await seedRun(rt.runStore, 'asked', decisionHistories.waitingForInput('asked', 'writer', T));
    await eventually(() => (rt.index.counts().waiting === 1 ? true : undefined), 10_000, 'the queue index to see the run waiting');
    await append(rt.runStore, runStreamName('asked'), [v1('InputSubmitted', { runId: 'asked', stepId: 'asked/r0/t0', input: 'T-7', submittedBy: 'dave', submittedAt: T })]);

    // A queued run cancelled by a caller that wrote "key:ops" in version 1 (no metadata at all): a name nobody checked.
    await append(rt.runStore, runStreamName('cancelled'), [v1('RunRequested', { runId: 'cancelled', agent: 'writer', input: 'x', mode: 'queued', maxIterations: 3, requestedAt: T }, 'none')]);
    await eventually(() => (rt.index.dueQueued(T).includes('cancelled') ? true : undefined), 10_000, 'the queue index to see the run queued');
    rt.index.onCancelRequested('cancelled', (request) => cancelRequests.push(request));
    await append(rt.runStore, runStreamName('cancelled'), [
      v1('CancelRequested', { runId: 'cancelled', requestedBy: 'key:ops', reason: null, requestedAt: T }, 'none'),
      v1('RunCancelled', { runId: 'cancelled', reason: 'CANCELLED', requestedBy: 'key:ops', inFlightWrite: null, cancelledAt: T }, 'none'),
    ]);

    readModels = await followReadModels(rt);
    await readModels.caughtUp();
  });

  afterAll(async () => {
    await readModels?.close();
    await rt?.close();
  });

  it('the queue index: hands the cancel listener an unverified principal, requeues the answered run and drops the cancelled one', async () => {
    await eventually(() => (cancelRequests.length > 0 ? true : undefined), 10_000, 'the cancel listener to be called');
    expect(cancelRequests).toEqual([{ runId: 'cancelled', requestedBy: { kind: 'unverified', name: 'key:ops' }, reason: null, requestedAt: T }]);
    await eventually(() => (rt.index.dueQueued(T).includes('asked') ? true : undefined), 10_000, 'the answered run to be due');
    expect(rt.index.dueQueued(T)).toEqual(['asked']);
    expect(rt.index.counts()).toEqual({ queued: 1, running: 0, waiting: 0 });
  });

  it('the audit-gap saga: watches the version 1 answer and the starts, and states them late, upcast', async () => {
    // The answer, and the two runs' starts (appended here without their statements).
    await eventually(() => (rt.saga.pendingStatementCount() === 3 ? true : undefined), 10_000, 'the saga to watch the answer and the starts');
    rt.clock.advance(31 * SECOND);
    expect((await rt.saga.checkDeadlines()).statements.sort()).toEqual(['asked input:asked/r0/t0', 'asked start', 'cancelled start']);
    const audit = (await rt.auditEvents('asked')).filter((e) => e.type === 'InputAnswerRecorded');
    expect(audit).toHaveLength(1);
    expect(audit[0]?.data).toMatchObject({ runId: 'asked', stepId: 'asked/r0/t0', answeredBy: { kind: 'unverified', name: 'dave' }, answeredAt: T });
    // A version 1 RunRequested recorded nobody: its start is stated as such, never as someone.
    expect((await rt.auditStore.readStream(auditStreamName('cancelled'))).events.map((e) => [e.type, (e.data as { requestedBy?: unknown }).requestedBy])).toEqual([
      ['RunStartRecorded', { kind: 'unverified', name: '(not recorded)' }],
    ]);
  });

  it('the read models: the run status and who asked for the cancel, as unverified principals', () => {
    expect(readModels.queries.getRun('cancelled')).toMatchObject({ status: 'CANCELLED', cancelRequested: true, cancelRequestedBy: 'unverified:key:ops', startedBy: 'unverified:(not recorded)' });
    expect(readModels.queries.getRun('asked')).toMatchObject({ status: 'QUEUED', waitingSince: null, inputStepId: null });
  });
});
