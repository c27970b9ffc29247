import type { RuntimeHarness } from '@agent-ledger/runtime/testing';
import { eventually } from '@agent-ledger/runtime/testing';
import type { CapturedLogs, EsdbStores, LiveProjections, RunOutcome } from './support/runtime';
import {
  parkRunsInToolCalls,
  captureLogs,
  expectRunInvariants,
  expectSagaCaughtUp,
  expectSameAsRebuild,
  FAULT_AGENTS,
  outcomeOf,
  reportFigures,
  runQueued,
  settleAfterOutage,
  settleEverything,
  startEsdbStores,
  startProjections,
  startRuntimeOn,
  tally,
  waitUntilStoreAnswers,
} from './support/runtime';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(Number(process.env.FAULT_TIMEOUT_MS ?? 180_000)));

const lastType = (outcome: RunOutcome) => outcome.events.at(-1)?.type;

/**
 * The store is briefly unreachable: the runtime, its queue index, its
 * audit-gap saga and the projections run on the EventStoreDB adapter against
 * the protocol-level server (test/support/esdb-server), runs and audits in
 * one server as the service keeps them, and the test stops the server
 * mid-workload and starts it again (same port, same data).
 */
describe('EventStoreDB briefly unreachable (protocol-level servers stopped and restarted)', () => {
  let stores: EsdbStores;
  let rt: RuntimeHarness;
  let projections: LiveProjections;
  let logs: CapturedLogs;

  afterEach(async () => {
    await stores?.server.start();
    await projections?.close();
    await rt?.close();
    await stores?.close();
    logs?.restore();
  });

  it('a short outage, bridged by the adapter: calls fail with StoreUnavailableError, segments in flight are abandoned; after the restart the queue, the reaper, the saga and the projections carry on without loss or duplicate', async () => {
    stores = await startEsdbStores({ timeoutMs: 30_000, initialDelayMs: 20, maxDelayMs: 200 });
    rt = await startRuntimeOn(stores.fixture, { agents: FAULT_AGENTS, execution: { workers: { concurrency: 0 } } });
    logs = captureLogs();
    projections = await startProjections(rt.runStore, rt.auditStore);
    const baseline = [
      (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'before', runId: 'baseline-put' })).runId,
      (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'before', runId: 'baseline-two' })).runId,
    ];

    const parked = await parkRunsInToolCalls(rt);
    const waiting = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'not claimed yet', runId: 'waiting' });
    await projections.caughtUp();

    const stoppedAt = Date.now();
    await stores.server.stop();
    const unavailable = { code: 'STORE_UNAVAILABLE' };
    await expect(rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'during', runId: 'refused-queued' })).rejects.toMatchObject(unavailable);
    await expect(rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'during', runId: 'refused-interactive' })).rejects.toMatchObject(unavailable);
    await expect(rt.runs.get(waiting)).rejects.toMatchObject(unavailable);
    await expect(rt.workers.runOnce()).rejects.toMatchObject(unavailable);
    await parked.release();
    expect(logs.errors.filter((m) => /could not be recorded; its lease will expire/.test(m))).toHaveLength(3);
    await stores.server.start();
    const outageMs = Date.now() - stoppedAt;
    const reconnectMs = await waitUntilStoreAnswers(rt.runStore);

    for (const runId of ['parked-reader', 'parked-putter', 'parked-appender']) {
      const outcome = await outcomeOf(rt, runId);
      expect([runId, outcome.status, lastType(outcome)]).toEqual([runId, 'RUNNING', 'StepStarted']);
    }
    expect((await rt.runs.get('refused-queued')).status).toBeNull();
    // The queue index follows again: runs requested after the restart reach it and the workers.
    await runQueued(rt, waiting);
    await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'again', runId: 'refused-queued' });
    await runQueued(rt, 'refused-queued');
    expect((await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'again', runId: 'refused-interactive' })).state.status).toBe('COMPLETED');
    const settled = await settleEverything(rt, { byHand: true });

    expect(await outcomeOf(rt, 'parked-reader')).toMatchObject({ status: 'COMPLETED', attempts: 2, requeues: 1 });
    expect(await outcomeOf(rt, 'parked-putter')).toMatchObject({ status: 'COMPLETED', attempts: 2, requeues: 1 });
    expect(rt.behaviour.executions.filter((e) => e.runId === 'parked-putter' && e.tool === 'test.put').map((e) => [e.idempotencyKey, e.attempt])).toEqual([
      ['agent-ledger:parked-putter/r0/t1', 1],
      ['agent-ledger:parked-putter/r0/t1', 2],
    ]);
    expect(await outcomeOf(rt, 'parked-appender')).toMatchObject({ status: 'FAILED', reason: 'WRITE_INTERRUPTED', deadLettered: true });
    expect(rt.behaviour.count('test.append')).toBe(1);
    for (const runId of [waiting, 'refused-queued', 'refused-interactive']) expect(await outcomeOf(rt, runId)).toMatchObject({ status: 'COMPLETED' });

    const all = [...baseline, 'parked-reader', 'parked-putter', 'parked-appender', waiting, 'refused-queued', 'refused-interactive'];
    await expectRunInvariants(rt, all);
    expect(rt.index.counts()).toEqual({ queued: 0, running: 0, waiting: 0 });
    await expectSagaCaughtUp(rt, []);
    await projections.caughtUp();
    const comparison = await projections.compareWithRebuild();
    expectSameAsRebuild(comparison);
    reportFigures('EventStoreDB, short outage (the adapter bridges the subscriptions)', {
      outageMs,
      reconnectMs,
      refusedCalls: 4,
      abandonedSegments: 3,
      reaped: settled.reaped,
      outcomes: tally(await Promise.all(all.map((id) => outcomeOf(rt, id)))),
      runnerFailures: comparison.runnerFailures,
      sourceEvents: comparison.sourceEvents,
      eventsRead: comparison.eventsRead,
    });
  });

  it('an outage longer than the adapter retries, workers at full speed: subscriptions end and are resumed from their checkpoints; every run ends by the failure rules; read models equal a rebuild, each event applied once', async () => {
    stores = await startEsdbStores({ timeoutMs: 300, initialDelayMs: 20, maxDelayMs: 100 });
    rt = await startRuntimeOn(stores.fixture, { agents: FAULT_AGENTS, execution: { workers: { concurrency: 3 } } });
    logs = captureLogs();
    projections = await startProjections(rt.runStore, rt.auditStore);
    const agents = FAULT_AGENTS.map((a) => a.name);
    const runs = Number(process.env.FAULT_RUNS ?? 48);
    const requested: string[] = [];
    const refused: string[] = [];
    const request = async (n: number) => {
      const runId = `esdb-${n}`;
      try {
        await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: agents[n % agents.length] as string, input: `run ${n}`, runId });
        requested.push(runId);
      } catch (error) {
        expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
        refused.push(runId);
      }
    };
    for (let n = 0; n < runs * 0.75; n++) await request(n);
    await eventually(async () => ((await Promise.all(requested.map((id) => outcomeOf(rt, id)))).filter((o) => o.terminalEvents > 0).length >= 6 ? true : undefined), 30_000, 'a few runs to settle');

    const stoppedAt = Date.now();
    await stores.server.stop();
    for (let n = Math.ceil(runs * 0.75); n < runs; n++) await request(n);
    // Down long enough that the adapter gives up: every consumer's subscription ends and is opened again from its checkpoint.
    const runner = (name: string) => projections.runners.find((r) => r.source.name === name);
    await eventually(
      () =>
        (runner('runs')?.stats().failures ?? 0) >= 1 &&
        // The queue index and the saga's four subscriptions are processors of one runner per store.
        logs.has(/The processors of the runs store failed; reading again from their checkpoints/) &&
        (rt.auditStore === rt.runStore || logs.has(/The processors of the audit store failed; reading again from their checkpoints/))
          ? true
          : undefined,
      30_000,
      'the subscriptions to end',
    );
    await stores.server.start();
    const outageMs = Date.now() - stoppedAt;
    const reconnectMs = await waitUntilStoreAnswers(rt.runStore);
    for (const runId of refused) {
      await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: agents[Number(runId.split('-')[1]) % agents.length] as string, input: 'retried', runId });
    }
    const all = [...requested, ...refused];
    const { settled, outcomes, continuations, failClosed, gaps } = await settleAfterOutage(rt, logs, all);
    await expectSagaCaughtUp(rt, gaps);
    await projections.caughtUp(30_000);
    const comparison = await projections.compareWithRebuild();
    expectSameAsRebuild(comparison);
    expect(comparison.runnerFailures['runs']).toBeGreaterThanOrEqual(1);
    reportFigures('EventStoreDB outage past the reconnect timeout, 3 workers', {
      runs: all.length,
      outageMs,
      reconnectMs,
      enqueuesRefused: refused.length,
      reaped: settled.reaped,
      outcomes: tally(outcomes),
      operatorRequeues: continuations.length,
      auditFailClosed: failClosed.length,
      runnerFailures: comparison.runnerFailures,
      sourceEvents: comparison.sourceEvents,
      eventsRead: comparison.eventsRead,
      storeErrorsLogged: logs.errors.length,
    });
  });
});
