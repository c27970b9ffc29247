import { randomUUID } from 'node:crypto';
import type { EventData, EventSubscription, RecordedEvent } from '@agent-ledger/event-store';
import { ExpectedRevision, PostgresEventStore, positionToParts, StoreUnavailableError, StoreUnavailableReason } from '@agent-ledger/event-store';
import type { RuntimeHarness } from '@agent-ledger/runtime/testing';
import { eventually } from '@agent-ledger/runtime/testing';
import type { PostgresTestServer } from '../support/postgres';
import { startPostgresTestServer } from '../support/postgres';
import { scaled } from '../support/time-scale';
import type { PostgresStores } from './support/postgres-faults';
import { APPEND_EXPECTED_STATEMENT } from '../../libs/event-store/src/postgres/postgres-event-store';
import { FreezableProxy } from './support/freezable-proxy';
import { AUDIT_STORE_APP, cutConnections, named, RUN_STORE_APP, sql, startPostgresStores, WriteLockHolder } from './support/postgres-faults';
import type { CapturedLogs, LiveProjections, RunOutcome } from './support/runtime';
import {
  captureLogs,
  expectFailClosedDecisionsAccountedFor,
  expectRunInvariants,
  expectSagaCaughtUp,
  expectSameAsRebuild,
  FAULT_AGENTS,
  outcomeOf,
  parkRunsInToolCalls,
  reportFigures,
  runQueued,
  settleAfterOutage,
  settleEverything,
  startProjections,
  startRuntimeOn,
  tally,
  waitUntilStoreAnswers,
} from './support/runtime';

jest.setTimeout(scaled(Number(process.env.FAULT_TIMEOUT_MS ?? 180_000)));

const sequence = (position: RecordedEvent['position']): number => Number(positionToParts(position).commit);

let server: PostgresTestServer;

beforeAll(async () => {
  server = await startPostgresTestServer();
}, scaled(60_000));

afterAll(async () => {
  await server?.stop();
});

// --- the adapter ----------------------------------------------------------------------------

/** One append of the workload: its events, and what became of each attempt. */
interface Attempted {
  readonly stream: string;
  readonly events: readonly EventData[];
  /** The position of its last event, once acknowledged. */
  position?: number;
  /** The errors of the attempts that were refused before it was acknowledged. */
  readonly refusals: unknown[];
  /** Found stored after a refusal, before it was repeated: the refused attempt had committed (an ambiguous outcome). */
  committedThoughRefused?: boolean;
}

/** The fault a test injects while the appenders run. */
type AdapterFault = 'connections cut' | 'server restart' | 'server down for a while' | 'network frozen (a partition, no reset)';

/**
 * Appenders on their own streams, 1 to 3 events an append, half of them at
 * the stream's exact revision, half with `any`. A refused append is repeated
 * with the same event ids and the same expected revision until it is
 * acknowledged: an append whose connection was lost while its COMMIT was in
 * flight may have been written, and its repetition must then be idempotent.
 */
function startAppenders(store: PostgresEventStore, count: number): { attempts: Attempted[]; acknowledged(): number; refused(): number; stop(): Promise<void> } {
  const attempts: Attempted[] = [];
  let stopping = false;
  const writers = Array.from({ length: count }, async (_, w) => {
    const stream = `faultcut-${w}${randomUUID().slice(0, 8)}`;
    let next = 0n;
    for (let i = 0; !stopping; i++) {
      const events = Array.from({ length: 1 + (i % 3) }, (_, n) => ({ id: randomUUID(), type: 'Appended', data: { w, i, n } }));
      const attempt: Attempted = { stream, events, refusals: [] };
      attempts.push(attempt);
      const expectedRevision = w % 2 === 0 ? (next === 0n ? ExpectedRevision.NO_STREAM : next - 1n) : ExpectedRevision.ANY;
      for (;;) {
        try {
          const result = await store.append(stream, events, { expectedRevision });
          attempt.position = sequence(result.position);
          next = result.nextExpectedRevision + 1n;
          break;
        } catch (error) {
          attempt.refusals.push(error);
          if (!(error instanceof StoreUnavailableError)) return;
          // A back-off while the server is down, not a synchronisation: the next attempt's outcome is checked either way.
          await new Promise((resolve) => setTimeout(resolve, 10));
          try {
            if ((await store.readStream(stream)).events.some((e) => e.id === events[0]!.id)) attempt.committedThoughRefused = true;
          } catch (readError) {
            if (!(readError instanceof StoreUnavailableError)) throw readError; // still unreachable: the repetition tells
          }
        }
      }
    }
  });
  return {
    attempts,
    acknowledged: () => attempts.filter((a) => a.position !== undefined).length,
    refused: () => attempts.reduce((n, a) => n + a.refusals.length, 0),
    stop: async () => {
      stopping = true;
      await Promise.all(writers);
    },
  };
}

/** Collects a subscription's events until closed. */
function collect(subscription: EventSubscription): { received: RecordedEvent[]; failure: () => unknown; done: Promise<void> } {
  const received: RecordedEvent[] = [];
  let failure: unknown;
  const done = (async () => {
    try {
      for await (const event of subscription) received.push(event);
    } catch (error) {
      failure = error;
    }
  })();
  return { received, failure: () => failure, done };
}

describe('PostgreSQL adapter: appends in flight when the connections are cut or the server goes away', () => {
  const opened: PostgresEventStore[] = [];
  let proxy: FreezableProxy | undefined;
  afterEach(async () => {
    proxy?.thaw();
    await server.startServer();
    for (const store of opened.splice(0)) await store.close();
    await proxy?.close();
    proxy = undefined;
  });

  it.each<AdapterFault>(['connections cut', 'server restart', 'server down for a while', 'network frozen (a partition, no reset)'])(
    '%s: each append is acknowledged or refused with StoreUnavailableError(connectionLost); repeated with the same ids it lands once; nothing acknowledged is lost or doubled; a live $all subscription gets every position once, in order',
    async (fault) => {
      const schema = `adapter_${fault.replace(/\W+/g, '_')}`;
      const frozen = fault.startsWith('network frozen');
      const connectionTimeoutMs = frozen ? 1_000 : 5_000;
      proxy = frozen ? await FreezableProxy.start(server.port) : undefined;
      const connectionString = named(server, RUN_STORE_APP, proxy?.port);
      const store = await PostgresEventStore.open({ connectionString, schema, poolSize: 8, connectionTimeoutMs, queryTimeoutMs: 1_000, reconnectTimeoutMs: scaled(30_000) });
      opened.push(store);
      const live = collect(store.subscribeToAll());
      const appenders = startAppenders(store, 16);
      const faultStarted = Date.now();
      const figures: Record<string, unknown> = {};

      await eventually(() => (appenders.acknowledged() >= 100 ? true : undefined), 30_000, '100 appends before the fault');
      if (fault === 'connections cut') {
        const cut: number[] = [];
        for (let round = 0; round < 3; round++) {
          const before = appenders.acknowledged();
          cut.push(await cutConnections(server));
          await eventually(() => (appenders.acknowledged() >= before + 50 ? true : undefined), 30_000, 'appends after a cut');
        }
        // Each cut found a connection of the store's. The first found the pool's and the listening one; a later one may come
        // before the listener has connected again (it backs off) while one pool connection carries every batch (group commit).
        for (const n of cut) expect(n).toBeGreaterThanOrEqual(1);
        expect(cut[0]).toBeGreaterThan(1);
        figures.serverProcessesCut = cut;
      } else if (fault === 'server restart') {
        await server.restart();
      } else if (proxy !== undefined) {
        const refusalsOf = (stream: string) => appenders.attempts.filter((a) => a.stream === stream).reduce((n, a) => n + a.refusals.length, 0);
        const streams = [...new Set(appenders.attempts.map((a) => a.stream))];
        const before = new Map(streams.map((stream) => [stream, refusalsOf(stream)]));
        proxy.freeze();
        // No answer: every appender's call fails while the network stays frozen, a call on a pooled connection after
        // queryTimeoutMs (without it, for ever), a call waiting for a connection after connectionTimeoutMs.
        await eventually(() => (streams.every((stream) => refusalsOf(stream) > (before.get(stream) ?? 0)) ? true : undefined), 60_000, 'every appender refused while the network is frozen');
        figures.frozenMs = Date.now() - faultStarted;
        proxy.thaw();
      } else {
        await server.stopServer();
        const refusedBefore = appenders.refused();
        // While it is down, appends fail fast (the connection is refused, not waited for).
        const probeStarted = Date.now();
        const probe = await store.append('faultcut-probe', [{ id: randomUUID(), type: 'Probe', data: {} }], { expectedRevision: ExpectedRevision.ANY }).then(
          () => undefined,
          (error: unknown) => error,
        );
        const probeMs = Date.now() - probeStarted;
        expect(probe).toBeInstanceOf(StoreUnavailableError);
        expect(probe).toMatchObject({ reason: StoreUnavailableReason.CONNECTION_LOST, retryable: true });
        expect(probeMs).toBeLessThan(connectionTimeoutMs);
        await eventually(() => (appenders.refused() >= refusedBefore + 100 ? true : undefined), 30_000, 'appends refused while the server is down');
        figures.probeRefusedInMs = probeMs;
        figures.downMs = Date.now() - faultStarted;
        await server.startServer();
      }
      const afterFault = appenders.acknowledged();
      await eventually(() => (appenders.acknowledged() >= afterFault + 100 ? true : undefined), 30_000, '100 appends after the fault');
      await appenders.stop();

      // Every refusal is a retryable loss of connection; the fault did refuse some.
      const refusals = appenders.attempts.flatMap((a) => a.refusals);
      expect(refusals.length).toBeGreaterThan(0);
      for (const error of refusals) {
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(error).toMatchObject({ reason: StoreUnavailableReason.CONNECTION_LOST, retryable: true });
      }

      // Every append was acknowledged in the end (the refused ones when repeated), and is in $all once, at its position.
      const all: RecordedEvent[] = [];
      for await (const event of store.readAll()) all.push(event);
      const positions = all.map((e) => sequence(e.position));
      expect(positions).toEqual(Array.from({ length: all.length }, (_, i) => i + 1)); // dense, in order
      const byId = new Map<string, RecordedEvent[]>();
      for (const event of all) byId.set(event.id, [...(byId.get(event.id) ?? []), event]);
      let events = 0;
      for (const attempt of appenders.attempts) {
        expect(attempt.position).toBeDefined();
        const last = attempt.position as number;
        attempt.events.forEach((event, n) => {
          const stored = byId.get(event.id) ?? [];
          expect([event.id, stored.length]).toEqual([event.id, 1]);
          expect([event.id, sequence(stored[0]!.position), stored[0]!.streamName]).toEqual([event.id, last - attempt.events.length + 1 + n, attempt.stream]);
        });
        events += attempt.events.length;
      }
      expect(all.filter((e) => e.type === 'Appended')).toHaveLength(events);

      // The live subscription bridged the fault: every position once, in order.
      await eventually(() => ((live.received.at(-1) && sequence(live.received.at(-1)!.position) >= all.length) || live.failure() !== undefined ? true : undefined), 30_000, 'the subscription to reach the head');
      expect(live.failure()).toBeUndefined();
      expect(live.received.map((e) => sequence(e.position))).toEqual(positions);

      reportFigures(`PostgreSQL adapter, ${fault}, 16 appenders`, {
        ...figures,
        appends: appenders.attempts.length,
        events,
        refusals: refusals.length,
        appendsRefusedAtLeastOnce: appenders.attempts.filter((a) => a.refusals.length > 0).length,
        committedThoughRefused: appenders.attempts.filter((a) => a.committedThoughRefused === true).length,
        subscriptionDelivered: live.received.length,
      });
    },
  );

  it.each([
    { path: 'in one statement', watched: APPEND_EXPECTED_STATEMENT, expectedRevision: 0n as ExpectedRevision },
    { path: 'decided after a read', watched: 'COMMIT', expectedRevision: ExpectedRevision.ANY as ExpectedRevision },
  ])(
    'an append ($path) whose commit reached the server but whose answer never came back: refused with StoreUnavailableError(connectionLost) after queryTimeoutMs, yet written; repeated with the same ids it is idempotent, at its first position',
    async ({ watched, expectedRevision }) => {
      proxy = await FreezableProxy.start(server.port);
      const connectionString = server.connectionString.replace(`:${server.port}/`, `:${proxy.port}/`);
      const store = await PostgresEventStore.open({ connectionString, schema: 'adapter_lost_commit_answer', poolSize: 2, connectionTimeoutMs: 1_000, queryTimeoutMs: 1_000 });
      opened.push(store);
      const stream = `faultcommit-${randomUUID().slice(0, 8)}`;
      await store.append(stream, [{ id: randomUUID(), type: 'First', data: {} }], { expectedRevision: ExpectedRevision.NO_STREAM });
      const events = [0, 1].map((n) => ({ id: randomUUID(), type: 'Ambiguous', data: { n } }));

      // The client's last message of the write that commits (the statement's execution, or the COMMIT) passes; its answer is held.
      proxy.freezeAfter(watched);
      const refused = await store.append(stream, events, { expectedRevision }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StoreUnavailableError);
      expect(refused).toMatchObject({ reason: StoreUnavailableReason.CONNECTION_LOST, retryable: true });
      proxy.thaw();

      // It was committed all the same.
      const stored = await store.readStream(stream);
      expect(stored.events.map((e) => e.id)).toEqual([stored.events[0]!.id, ...events.map((e) => e.id)]);
      const position = stored.events.at(-1)!.position;
      // Repeated as it was (same ids, same expected revision), and with `any`: acknowledged at the first position, nothing added.
      for (const again of [0n, ExpectedRevision.ANY] as const) {
        const repeated = await store.append(stream, events, { expectedRevision: again });
        expect([repeated.nextExpectedRevision, repeated.position]).toEqual([2n, position]);
      }
      expect((await store.readStream(stream)).events.map((e) => e.type)).toEqual(['First', 'Ambiguous', 'Ambiguous']);
    },
  );
});

// --- the runtime ----------------------------------------------------------------------------

const lastTypes = (outcome: RunOutcome, n: number) => outcome.events.slice(-n).map((e) => e.type);

describe('the runtime on PostgreSQL: connections cut and the server restarted while runs are in their steps', () => {
  let stores: PostgresStores | undefined;
  let rt: RuntimeHarness | undefined;
  let projections: LiveProjections | undefined;
  let logs: CapturedLogs | undefined;
  let lock: WriteLockHolder | undefined;

  /** Fresh schemas for each test: drops the previous test's. */
  async function start(layout: 'one store' | 'two schemas', options: { workers: number; reconnectTimeoutMs?: number; queryTimeoutMs?: number; port?: number; groupCommit?: boolean }): Promise<RuntimeHarness> {
    await sql(server, 'DROP SCHEMA IF EXISTS agent_ledger CASCADE; DROP SCHEMA IF EXISTS agent_ledger_audit CASCADE');
    stores = await startPostgresStores(server, layout, { ...options, poolSize: 8 });
    rt = await startRuntimeOn(stores.fixture, { agents: FAULT_AGENTS, execution: { workers: { concurrency: options.workers } } });
    logs = captureLogs();
    projections = await startProjections(rt.runStore, rt.auditStore);
    return rt;
  }

  let runtimeProxy: FreezableProxy | undefined;

  afterEach(async () => {
    await lock?.release().catch(() => undefined);
    lock = undefined;
    runtimeProxy?.thaw();
    await server.startServer();
    await projections?.close();
    await rt?.close();
    await stores?.close();
    await runtimeProxy?.close();
    runtimeProxy = undefined;
    logs?.restore();
    projections = undefined;
    rt = undefined;
    stores = undefined;
  });

  it('the run store\'s connections cut while three segments append their tool results (a read, an idempotent write, a non-idempotent write): nothing half-recorded; the read and the idempotent write (same key) run again and complete, the non-idempotent write is not repeated', async () => {
    // One transaction per append, so that each of the three is on the server, behind the lock, when the connections are
    // cut: with group commit the later ones could still wait in the store's queue, and commit after the cut.
    const rt = await start('two schemas', { workers: 0, groupCommit: false });
    const parked = await parkRunsInToolCalls(rt);
    lock = await WriteLockHolder.take(server, 'agent_ledger');
    const segments = parked.release();
    // The three ToolExecuted appends are on the server, queued behind the lock: cut them there.
    await lock.untilWaiting(RUN_STORE_APP, 3);
    const cut = await cutConnections(server, RUN_STORE_APP);
    await lock.release();
    lock = undefined;
    await segments;

    // Nothing of the cut appends was written: no result of the parked tools (a failure may have been recorded after them).
    for (const [runId, tool] of [
      ['parked-reader', 'test.read'],
      ['parked-putter', 'test.put'],
      ['parked-appender', 'test.append'],
    ] as const) {
      const outcome = await outcomeOf(rt, runId);
      expect([runId, outcome.events.filter((e) => e.type === 'ToolExecuted' && e.data.toolName === tool).length]).toEqual([runId, 0]);
    }
    const settled = await settleEverything(rt, { byHand: true });
    expect(await outcomeOf(rt, 'parked-reader')).toMatchObject({ status: 'COMPLETED', attempts: 2 });
    expect(await outcomeOf(rt, 'parked-putter')).toMatchObject({ status: 'COMPLETED', attempts: 2 });
    expect(rt.behaviour.executions.filter((e) => e.runId === 'parked-putter' && e.tool === 'test.put').map((e) => [e.idempotencyKey, e.attempt])).toEqual([
      ['agent-ledger:parked-putter/r0/t1', 1],
      ['agent-ledger:parked-putter/r0/t1', 2],
    ]);
    expect(await outcomeOf(rt, 'parked-appender')).toMatchObject({ status: 'FAILED', reason: 'WRITE_INTERRUPTED', deadLettered: true });
    expect(rt.behaviour.count('test.append')).toBe(1);
    // The read of the putter and of the appender completed before the park: not executed again.
    for (const runId of ['parked-putter', 'parked-appender']) {
      expect(rt.behaviour.executions.filter((e) => e.runId === runId && e.tool === 'test.read')).toHaveLength(1);
    }

    const after = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'after the cut', runId: 'after-cut' })).runId;
    expect(await outcomeOf(rt, after)).toMatchObject({ status: 'COMPLETED' });
    const all = ['parked-reader', 'parked-putter', 'parked-appender', after];
    await expectRunInvariants(rt, all);
    expect(rt.index.counts()).toEqual({ queued: 0, running: 0, waiting: 0 });
    await projections!.caughtUp();
    const comparison = await projections!.compareWithRebuild();
    expectSameAsRebuild(comparison);
    reportFigures('PostgreSQL, run store connections cut under three tool results', {
      serverProcessesCut: cut,
      reaped: settled.reaped,
      outcomes: tally(await Promise.all(all.map((id) => outcomeOf(rt, id)))),
      sourceEvents: comparison.sourceEvents,
      eventsRead: comparison.eventsRead,
    });
  });

  it('the audit store\'s connections cut while the audits of a read, an idempotent write and a non-idempotent write are in flight: both writes fail closed (AUDIT_PERSISTENCE_FAILED, dead-lettered, executed once), the read completes; the saga reports both gaps; new runs are audited again', async () => {
    const rt = await start('two schemas', { workers: 0, groupCommit: false }); // as above: each audit on the server when cut
    const parked = await parkRunsInToolCalls(rt);
    lock = await WriteLockHolder.take(server, 'agent_ledger_audit');
    const segments = parked.release();
    await lock.untilWaiting(AUDIT_STORE_APP, 3);
    const cut = await cutConnections(server, AUDIT_STORE_APP);
    await lock.release();
    lock = undefined;
    await segments;

    for (const runId of ['parked-putter', 'parked-appender']) {
      const outcome = await outcomeOf(rt, runId);
      expect(outcome).toMatchObject({ status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', failureClass: 'unknown', deadLettered: true, terminalEvents: 1, attempts: 1 });
      expect(lastTypes(outcome, 3)).toEqual(['StepStarted', 'ToolExecuted', 'RunFailed']);
      // The read's audit (stored before the park) is there; the write's is not.
      const audited = (await rt.auditEvents(runId)).filter((e) => e.type === 'AuditRecorded').map((e) => (e.data as { toolName: string | null }).toolName);
      expect(audited.filter((tool) => tool !== null)).toEqual(['test.read']);
    }
    await settleEverything(rt, { byHand: true });
    expect(await outcomeOf(rt, 'parked-reader')).toMatchObject({ status: 'COMPLETED', attempts: 1 });
    expect(await outcomeOf(rt, 'parked-putter')).toMatchObject({ status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED' });
    expect(rt.behaviour.count('test.put')).toBe(1);
    expect(rt.behaviour.count('test.append')).toBe(1);
    expect(rt.metrics.get('auditFailClosed')).toBe(2);

    const after = [
      (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'after the cut', runId: 'after-append' })).runId,
      (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'after the cut', runId: 'after-put' })).runId,
    ];
    for (const runId of after) {
      expect(await outcomeOf(rt, runId)).toMatchObject({ status: 'COMPLETED' });
      // The start statement, then two model steps, the read and the write: every step audited.
      expect(await rt.auditEvents(runId)).toHaveLength(5);
    }
    const all = ['parked-reader', 'parked-putter', 'parked-appender', ...after];
    await expectRunInvariants(rt, all);
    const gapsOf = async (runId: string) => {
      const outcome = await outcomeOf(rt, runId);
      const write = outcome.events.find((e) => e.type === 'ToolExecuted' && e.data.effect !== 'READ_ONLY');
      return write?.type === 'ToolExecuted' ? write.data.stepId : '?';
    };
    await expectSagaCaughtUp(rt, [await gapsOf('parked-putter'), await gapsOf('parked-appender')]);
    await projections!.caughtUp();
    const comparison = await projections!.compareWithRebuild();
    expectSameAsRebuild(comparison);
    reportFigures('PostgreSQL, audit store connections cut under three audits', {
      serverProcessesCut: cut,
      outcomes: tally(await Promise.all(all.map((id) => outcomeOf(rt, id)))),
      auditAppendFailures: rt.metrics.get('auditAppendFailures'),
      sourceEvents: comparison.sourceEvents,
    });
  });

  it('a short outage (server stopped, one store for runs and audits): calls fail with StoreUnavailableError, segments in flight are abandoned; after the start the queue, the reaper, the saga and the projections carry on without loss or duplicate', async () => {
    const rt = await start('one store', { workers: 0 });
    const baseline = [(await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'before', runId: 'baseline-put' })).runId];
    const parked = await parkRunsInToolCalls(rt);
    const waiting = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'not claimed yet', runId: 'waiting' });
    await projections!.caughtUp();

    const stoppedAt = Date.now();
    await server.stopServer();
    const unavailable = { code: 'STORE_UNAVAILABLE', reason: 'connectionLost' };
    await expect(rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'during', runId: 'refused-queued' })).rejects.toMatchObject(unavailable);
    await expect(rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'during', runId: 'refused-interactive' })).rejects.toMatchObject(unavailable);
    await expect(rt.runs.get(waiting)).rejects.toMatchObject(unavailable);
    await expect(rt.workers.runOnce()).rejects.toMatchObject(unavailable);
    await parked.release();
    expect(logs!.errors.filter((m) => /could not be recorded; its lease will expire/.test(m))).toHaveLength(3);
    await server.startServer();
    const outageMs = Date.now() - stoppedAt;
    const reconnectMs = await waitUntilStoreAnswers(rt.runStore);

    // The writes' fences were stored before their tools ran; the read's start waited for its result (one commit, never made).
    for (const [runId, last] of [['parked-reader', 'ModelResponded'], ['parked-putter', 'StepStarted'], ['parked-appender', 'StepStarted']]) {
      const outcome = await outcomeOf(rt, runId as string);
      expect([runId, outcome.status, outcome.events.at(-1)?.type]).toEqual([runId, 'RUNNING', last]);
    }
    await runQueued(rt, waiting);
    await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'again', runId: 'refused-queued' });
    await runQueued(rt, 'refused-queued');
    expect((await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'again', runId: 'refused-interactive' })).state.status).toBe('COMPLETED');
    const settled = await settleEverything(rt, { byHand: true });

    expect(await outcomeOf(rt, 'parked-reader')).toMatchObject({ status: 'COMPLETED', attempts: 2, requeues: 1 });
    expect(await outcomeOf(rt, 'parked-putter')).toMatchObject({ status: 'COMPLETED', attempts: 2, requeues: 1 });
    expect(rt.behaviour.executions.filter((e) => e.runId === 'parked-putter' && e.tool === 'test.put').map((e) => e.attempt)).toEqual([1, 2]);
    expect(await outcomeOf(rt, 'parked-appender')).toMatchObject({ status: 'FAILED', reason: 'WRITE_INTERRUPTED', deadLettered: true });
    expect(rt.behaviour.count('test.append')).toBe(1);
    const all = [...baseline, 'parked-reader', 'parked-putter', 'parked-appender', waiting, 'refused-queued', 'refused-interactive'];
    for (const runId of [waiting, 'refused-queued', 'refused-interactive']) expect(await outcomeOf(rt, runId)).toMatchObject({ status: 'COMPLETED' });
    await expectRunInvariants(rt, all);
    expect(rt.index.counts()).toEqual({ queued: 0, running: 0, waiting: 0 });
    await expectSagaCaughtUp(rt, []);
    await projections!.caughtUp();
    const comparison = await projections!.compareWithRebuild();
    expectSameAsRebuild(comparison);
    reportFigures('PostgreSQL, short outage (server stopped and started)', {
      outageMs,
      reconnectMs,
      refusedCalls: 4,
      abandonedSegments: 3,
      reaped: settled.reaped,
      outcomes: tally(await Promise.all(all.map((id) => outcomeOf(rt, id)))),
      sourceEvents: comparison.sourceEvents,
      eventsRead: comparison.eventsRead,
    });
  });

  it('the network frozen (no answer, no reset) while three segments are in their tools, one store: every segment ends while it is still frozen (nothing waits for ever); after the thaw every run ends by the failure rules, no write repeated, nothing lost', async () => {
    runtimeProxy = await FreezableProxy.start(server.port);
    const rt = await start('one store', { workers: 0, queryTimeoutMs: 1_000, port: runtimeProxy.port });
    const parked = await parkRunsInToolCalls(rt);
    await projections!.caughtUp();
    const frozenAt = Date.now();
    runtimeProxy.freeze();
    // Without a bound on each statement, these segments (and close()) would wait for ever.
    await parked.release();
    const segmentsEndedMs = Date.now() - frozenAt;
    await expect(rt.runs.get('parked-reader')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'connectionLost' });
    runtimeProxy.thaw();
    const reconnectMs = await waitUntilStoreAnswers(rt.runStore);
    const all = ['parked-reader', 'parked-putter', 'parked-appender'];
    const settled = await settleEverything(rt, { byHand: true });

    // A statement held by the partition reaches the server at the thaw: a result may have been stored after its segment gave up.
    const outcomes = await Promise.all(all.map((id) => outcomeOf(rt, id)));
    expect(outcomes.find((o) => o.runId === 'parked-reader')).toMatchObject({ status: 'COMPLETED' });
    expect(outcomes.find((o) => o.runId === 'parked-putter')).toMatchObject({ status: 'COMPLETED' });
    expect(['WRITE_INTERRUPTED', 'COMPLETED', 'AUDIT_PERSISTENCE_FAILED']).toContain(outcomes.find((o) => o.runId === 'parked-appender')?.reason);
    expect(rt.behaviour.count('test.append')).toBe(1);
    expect(new Set(rt.behaviour.executions.filter((e) => e.tool === 'test.put').map((e) => e.idempotencyKey))).toEqual(new Set(['agent-ledger:parked-putter/r0/t1']));
    await expectFailClosedDecisionsAccountedFor(rt, logs!, outcomes);
    await expectRunInvariants(rt, all);
    expect(rt.index.counts()).toEqual({ queued: 0, running: 0, waiting: 0 });
    await projections!.caughtUp(30_000);
    const comparison = await projections!.compareWithRebuild();
    expectSameAsRebuild(comparison);
    reportFigures('PostgreSQL, network frozen under three segments, one store', {
      segmentsEndedMs,
      reconnectMs,
      reaped: settled.reaped,
      outcomes: tally(outcomes),
      putExecutions: rt.behaviour.count('test.put'),
      sourceEvents: comparison.sourceEvents,
      eventsRead: comparison.eventsRead,
    });
  });

  it.each<{ layout: 'one store' | 'two schemas'; reconnectTimeoutMs: number }>([
    { layout: 'two schemas', reconnectTimeoutMs: 30_000 },
    { layout: 'one store', reconnectTimeoutMs: 300 },
  ])(
    'workers at full speed ($layout, subscriptions bridge for $reconnectTimeoutMs ms): connections cut twice, then the server restarted and then down for a while; every run ends by the failure rules, none lost, no write repeated; read models equal a rebuild, each event applied once',
    async ({ layout, reconnectTimeoutMs }) => {
      const rt = await start(layout, { workers: 3, reconnectTimeoutMs });
      const agents = FAULT_AGENTS.map((a) => a.name);
      const runs = Number(process.env.FAULT_RUNS ?? 48);
      const requested: string[] = [];
      const refused: string[] = [];
      const agentOf = (n: number) => agents[n % agents.length] as string;
      const request = async (n: number) => {
        const runId = `pg-${n}`;
        try {
          await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: agentOf(n), input: `run ${n}`, runId });
          requested.push(runId);
        } catch (error) {
          expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
          refused.push(runId);
        }
      };
      const settledCount = async () => (await Promise.all(requested.map((id) => outcomeOf(rt, id)))).filter((o) => o.terminalEvents > 0).length;
      const quarter = Math.ceil(runs / 4);
      let n = 0;
      for (; n < quarter * 2; n++) await request(n);
      const cuts: number[] = [];
      for (const goal of [4, 10]) {
        await eventually(async () => ((await settledCount()) >= goal ? true : undefined), 30_000, `${goal} runs to settle`);
        cuts.push(await cutConnections(server));
      }
      for (; n < quarter * 3; n++) await request(n);
      await eventually(async () => ((await settledCount()) >= 16 ? true : undefined), 30_000, '16 runs to settle');
      const restartedAt = Date.now();
      await server.restart();
      const restartMs = Date.now() - restartedAt;

      await eventually(async () => ((await settledCount()) >= 20 ? true : undefined), 30_000, '20 runs to settle');
      const stoppedAt = Date.now();
      await server.stopServer();
      for (; n < runs; n++) await request(n);
      if (reconnectTimeoutMs < 1_000) {
        // Down longer than the adapter bridges: the subscriptions end and each consumer opens them again from its checkpoint.
        await eventually(
          () =>
            (projections!.runners.find((r) => r.source.name === 'runs')?.stats().failures ?? 0) >= 1 &&
            logs!.has(/The processors of the runs store failed; reading again from their checkpoints/)
              ? true
              : undefined,
          30_000,
          'the subscriptions to end',
        );
      } else {
        await eventually(() => (refused.length > 0 && logs!.errors.length > 0 ? true : undefined), 30_000, 'the outage to be met');
      }
      await server.startServer();
      const outageMs = Date.now() - stoppedAt;
      const reconnectMs = await waitUntilStoreAnswers(rt.runStore);
      for (const runId of refused) await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: agentOf(Number(runId.split('-')[1])), input: 'retried', runId });
      const all = [...requested, ...refused];
      const { settled, outcomes, continuations, failClosed, gaps } = await settleAfterOutage(rt, logs!, all);
      await expectSagaCaughtUp(rt, gaps);
      await projections!.caughtUp(30_000);
      const comparison = await projections!.compareWithRebuild();
      expectSameAsRebuild(comparison);
      if (reconnectTimeoutMs < 1_000) expect(comparison.runnerFailures['runs']).toBeGreaterThanOrEqual(1);
      reportFigures(`PostgreSQL, ${layout}, cuts + restart + outage, 3 workers`, {
        runs: all.length,
        serverProcessesCut: cuts,
        restartMs,
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
        storeErrorsLogged: logs!.errors.length,
      });
    },
  );
});

