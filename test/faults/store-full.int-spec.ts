import { busPrincipal } from '@agent-ledger/domain';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ExpectedRevision, StoreFullError } from '@agent-ledger/event-store';
import type { RuntimeHarness, TestAgent } from '@agent-ledger/runtime/testing';
import { eventually, startRuntime } from '@agent-ledger/runtime/testing';
import type { PageCap } from './support/sqlite-faults';
import { capStore, inspectSqliteFile } from './support/sqlite-faults';
import type { SmallFileSystem } from './support/small-file-system';
import { canMountSmallFileSystem, mountSmallFileSystem } from './support/small-file-system';
import type { CapturedLogs, LiveProjections, RunOutcome } from './support/runtime';
import {
  parkRunsInToolCalls,
  expectFailClosedDecisionsAccountedFor,
  captureLogs,
  expectAuditRefused,
  expectRunInvariants,
  expectSameAsRebuild,
  FAULT_AGENTS,
  outcomeOf,
  reportFigures,
  runQueued,
  settleEverything,
  startProjections,
  tally,
} from './support/runtime';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

/** An agent whose one model answer (400 KB) is larger than the room a full store has left. */
const VERBOSE: TestAgent = { name: 'verbose', script: [{ final: 'x'.repeat(400_000) }] };
const AGENTS = [...FAULT_AGENTS, VERBOSE];

const lastType = (outcome: RunOutcome) => outcome.events.at(-1)?.type;

const TMPFS = canMountSmallFileSystem();
const itWithSmallFileSystem = TMPFS.available ? it : it.skip;
if (!TMPFS.available) console.warn(`test/faults: the real full file system test is skipped: ${TMPFS.reason}`);

/**
 * The store is full: the embedded store's file may not grow (`PRAGMA
 * max_page_count` on the runtime's own connection, as a full disk or a quota
 * would stop it), while reads go on. A full store is a `StoreFullError`
 * (`STORE_FULL`, not retryable); what becomes of a run follows the failure
 * rules: a failure that cannot be recorded abandons the segment (the reaper
 * takes the run back once space returns and its lease expired), a failure
 * that can be recorded dead-letters the run (`NOT_RETRYABLE`, class
 * `unknown`, code `STORE_FULL`), and an operator requeues it.
 */
describe('the store is full (embedded stores: a page cap, and a real full file system where the test may mount one)', () => {
  let dir: string;
  let rt: RuntimeHarness;
  let projections: LiveProjections;
  let logs: CapturedLogs;
  let cap: PageCap | null = null;
  let fileSystem: SmallFileSystem | null = null;

  const start = async (concurrency = 0, storeDir = dir) => {
    rt = await startRuntime({ agents: AGENTS, storeDir, execution: { workers: { concurrency } } });
    logs = captureLogs();
    projections = await startProjections(rt.runStore, rt.auditStore);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-faults-full-'));
  });

  afterEach(async () => {
    cap?.lift();
    cap = null;
    await projections?.close();
    await rt?.close();
    logs?.restore();
    fileSystem?.free();
    fileSystem?.unmount();
    fileSystem = null;
    rmSync(dir, { recursive: true, force: true });
  });

  const expectSoundFiles = (storeDir = dir) => {
    for (const file of ['agent-ledger.sqlite', 'audit.sqlite']) {
      const inspection = inspectSqliteFile(join(storeDir, file));
      expect([file, inspection.integrity, inspection.problems]).toEqual([file, ['ok'], []]);
    }
  };

  it('run store full for every append: StoreFullError to callers, nothing half-written, runs in flight stop where they are; when space returns the workers and the reaper finish them by the failure rules', async () => {
    await start();
    const baseline = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'before', runId: 'baseline' })).runId;

    // Three queued runs parked inside a tool call (a read; an idempotent write and a non-idempotent one, each after its fence).
    const parked = await parkRunsInToolCalls(rt);
    const waiting = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'not claimed yet', runId: 'waiting' });
    const before = Object.fromEntries(await Promise.all(['parked-reader', 'parked-putter', 'parked-appender', 'waiting'].map(async (id) => [id, (await rt.runEvents(id)).length] as const)));

    cap = await capStore(rt.runStore, { fill: true });
    const injected = { capPages: cap.pages, pageSize: cap.pageSize, fillerEvents: cap.fillerEvents };

    // Writers get the typed error; nothing is recorded.
    const refusedEnqueue = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'while full', runId: 'refused-queued' }).catch((e: unknown) => e);
    expect(refusedEnqueue).toBeInstanceOf(StoreFullError);
    expect(refusedEnqueue).toMatchObject({ code: 'STORE_FULL', retryable: false, cause: expect.objectContaining({ code: 'SQLITE_FULL' }) });
    await expect(rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'while full', runId: 'refused-interactive' })).rejects.toMatchObject({ code: 'STORE_FULL' });
    await expect(rt.workers.runOnce()).rejects.toMatchObject({ code: 'STORE_FULL' }); // the claim of `waiting`
    expect((await rt.runs.get('refused-queued')).status).toBeNull();

    // The parked tools return; recording their results fails, and so does recording the failure: the segments are abandoned.
    await parked.release();
    for (const [runId, count] of Object.entries(before)) {
      const outcome = await outcomeOf(rt, runId);
      expect([runId, outcome.events.length]).toEqual([runId, count]);
    }
    for (const runId of ['parked-reader', 'parked-putter', 'parked-appender']) {
      const outcome = await outcomeOf(rt, runId);
      expect([runId, outcome.status, lastType(outcome)]).toEqual([runId, 'RUNNING', 'StepStarted']);
    }
    expect(logs.errors.filter((m) => /could not be recorded; its lease will expire/.test(m))).toHaveLength(3);

    // Reads go on, and the file is sound while full.
    expect((await rt.runs.get(baseline)).status).toBe('COMPLETED');
    expect((await rt.runStore.readStream('run-waiting')).events.map((e) => e.type)).toEqual(['RunRequested']);
    await projections.caughtUp();
    expect(projections.queries.getRun('parked-putter')).toMatchObject({ status: 'RUNNING' });
    expect(projections.queries.getRun('waiting')).toMatchObject({ status: 'QUEUED' });
    expectSoundFiles();

    // Space returns.
    cap.lift();
    cap = null;
    await runQueued(rt, waiting); // the worker picks up what was left in the queue
    expect(await outcomeOf(rt, waiting)).toMatchObject({ status: 'COMPLETED', attempts: 1 });
    await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'again', runId: 'refused-queued' }); // the caller retries the same request
    await runQueued(rt, 'refused-queued');
    expect((await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'again', runId: 'refused-interactive' })).state.status).toBe('COMPLETED');
    const settled = await settleEverything(rt, { byHand: true }); // the reaper takes back the abandoned runs once their leases expire

    expect(await outcomeOf(rt, 'parked-reader')).toMatchObject({ status: 'COMPLETED', attempts: 2, requeues: 1, terminalEvents: 1 });
    expect(await outcomeOf(rt, 'parked-putter')).toMatchObject({ status: 'COMPLETED', attempts: 2, requeues: 1, terminalEvents: 1 });
    const puts = rt.behaviour.executions.filter((e) => e.runId === 'parked-putter' && e.tool === 'test.put');
    expect(puts.map((e) => [e.idempotencyKey, e.attempt])).toEqual([
      ['agent-ledger:parked-putter/r0/t1', 1],
      ['agent-ledger:parked-putter/r0/t1', 2],
    ]);
    expect(await outcomeOf(rt, 'parked-appender')).toMatchObject({ status: 'FAILED', reason: 'WRITE_INTERRUPTED', deadLettered: true, terminalEvents: 1 });
    expect(rt.behaviour.count('test.append')).toBe(1);

    const all = [baseline, 'parked-reader', 'parked-putter', 'parked-appender', waiting, 'refused-queued', 'refused-interactive'];
    await expectRunInvariants(rt, all);
    expectSoundFiles();
    for (const runId of all) expect((await rt.runStore.readStream(`run-${runId}`)).streamExists).toBe(true);
    await projections.caughtUp();
    const comparison = await projections.compareWithRebuild();
    expectSameAsRebuild(comparison);
    reportFigures('run store full for every append', {
      ...injected,
      refusedCalls: 3,
      abandonedSegments: 3,
      reaped: settled.reaped,
      outcomes: tally(await Promise.all(all.map((id) => outcomeOf(rt, id)))),
      readModelRuns: comparison.rows['runs'],
    });
  });

  it('full with room for small events only: a 400 KB model answer fails with StoreFullError, the recorded failure dead-letters the run (NOT_RETRYABLE, class unknown, code STORE_FULL); once space returns an operator requeue completes it', async () => {
    await start();
    cap = await capStore(rt.runStore, { roomPages: 16 });
    const queued = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'verbose', input: 'say a lot', runId: 'verbose-queued' });
    await runQueued(rt, queued);
    const interactive = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'verbose', input: 'say a lot', runId: 'verbose-interactive' });
    expect(interactive.state.settlement).toMatchObject({ status: 'FAILED', reason: 'NOT_RETRYABLE', deadLettered: false });
    expect(await outcomeOf(rt, queued)).toMatchObject({ status: 'FAILED', reason: 'NOT_RETRYABLE', deadLettered: true, failureClass: 'unknown', failureCode: 'STORE_FULL', terminalEvents: 1 });
    expect(await outcomeOf(rt, interactive.runId)).toMatchObject({ failureClass: 'unknown', failureCode: 'STORE_FULL' });
    expect((await outcomeOf(rt, queued)).events.map((e) => e.type)).toEqual(['RunRequested', 'RunClaimed', 'StepStarted', 'RunFailed']);
    // Not retried while full: nothing is due, nothing to reap.
    rt.clock.advance(1_000_000);
    expect(await rt.workers.runOnce()).toBeNull();
    expectSoundFiles();

    cap.lift();
    cap = null;
    const { continuationRunId } = await rt.runs.requeue(queued, { requestedBy: busPrincipal('operator'), reason: 'disk space freed' });
    await runQueued(rt, continuationRunId);
    const continued = await outcomeOf(rt, continuationRunId);
    expect(continued).toMatchObject({ status: 'COMPLETED', terminalEvents: 1 });
    await expectRunInvariants(rt, [queued, interactive.runId, continuationRunId]);
    expectSoundFiles();
    await projections.caughtUp();
    expectSameAsRebuild(await projections.compareWithRebuild());
    reportFigures('run store full for large events', { outcomes: tally([await outcomeOf(rt, queued), await outcomeOf(rt, interactive.runId), continued]), operatorRequeues: 1 });
  });

  it("audit store full: a write's audit fails its run closed, a read's is fail-soft, reads go on; when space returns audits are recorded again", async () => {
    await start();
    const baseline = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'before', runId: 'baseline' })).runId;
    cap = await capStore(rt.auditStore, { fill: true });
    await expect(
      rt.auditStore.append(`faultprobe-${randomUUID()}`, [{ id: randomUUID(), type: 'Probe', data: {} }], { expectedRevision: ExpectedRevision.ANY }),
    ).rejects.toMatchObject({ code: 'STORE_FULL' });
    const refused = await expectAuditRefused(rt, 'afull', { runId: baseline, audits: 5 });
    expect(logs.has(/Event store full/)).toBe(true);
    cap.lift();
    cap = null;
    const after = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'after', runId: 'after' })).runId;
    expect(await outcomeOf(rt, after)).toMatchObject({ status: 'COMPLETED' });
    expect((await rt.auditEvents(after)).length).toBe(5); // the start statement and four steps
    await expectRunInvariants(rt, [baseline, ...refused, after]);
    expectSoundFiles();
    await projections.caughtUp();
    expectSameAsRebuild(await projections.compareWithRebuild());
    reportFigures('audit store full', { outcomes: tally(await Promise.all([baseline, ...refused, after].map((id) => outcomeOf(rt, id)))), auditFailClosed: rt.metrics.get('auditFailClosed') });
  });

  it('workers at full speed, the run store filling up at an arbitrary moment and space returning later: every run ends by the failure rules, none is lost, the file stays sound', async () => {
    await start(3);
    const agents = ['reader', 'putter', 'appender', 'two-rounds'];
    const requested: string[] = [];
    const refused: string[] = [];
    const request = async (n: number) => {
      const runId = `free-${n}`;
      try {
        await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: agents[n % agents.length] as string, input: `run ${n}`, runId });
        requested.push(runId);
      } catch (error) {
        if (!(error instanceof StoreFullError)) throw error;
        refused.push(runId);
      }
    };
    const runs = Number(process.env.FAULT_RUNS ?? 48);
    for (let n = 0; n < runs / 2; n++) await request(n);
    // The fault lands wherever the workers are once a few runs are done.
    await eventually(async () => ((await Promise.all(requested.map((id) => outcomeOf(rt, id)))).filter((o) => o.terminalEvents > 0).length >= 4 ? true : undefined), 20_000, 'a few runs to settle');
    cap = await capStore(rt.runStore);
    for (let n = runs / 2; n < runs; n++) await request(n);
    // The fault lasts until the workers met it a number of times (claims, steps, results, failures refused).
    await eventually(() => (logs.errors.filter((m) => /Event store full/.test(m)).length >= 40 ? true : undefined), 20_000, 'the workers to meet the full store');
    expectSoundFiles();
    const fullErrors = logs.errors.filter((m) => /Event store full/.test(m)).length;
    cap.lift();
    cap = null;
    for (const runId of refused) {
      // The client retries what the full store refused, with the same run id.
      await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: agents[Number(runId.split('-')[1]) % agents.length] as string, input: 'retried', runId });
    }
    const all = [...requested, ...refused];
    const settled = await settleEverything(rt);

    // Runs the full store dead-lettered (a failure that still fit) are requeued by an operator.
    const outcomes = await Promise.all(all.map((id) => outcomeOf(rt, id)));
    const continuations: string[] = [];
    for (const outcome of outcomes.filter((o) => o.reason === 'NOT_RETRYABLE')) {
      expect(outcome).toMatchObject({ failureCode: 'STORE_FULL', failureClass: 'unknown', deadLettered: true });
      continuations.push((await rt.runs.requeue(outcome.runId, { requestedBy: busPrincipal('operator'), reason: 'disk space freed' })).continuationRunId);
    }
    await settleEverything(rt);

    for (const outcome of outcomes) {
      const allowed =
        outcome.reason === 'COMPLETED' ||
        outcome.reason === 'NOT_RETRYABLE' ||
        (outcome.reason === 'WRITE_INTERRUPTED' && outcome.events.some((e) => e.type === 'RunFailed' && e.data.inFlightWrite?.effect === 'NON_IDEMPOTENT_WRITE'));
      expect([outcome.runId, outcome.status, outcome.reason, allowed]).toEqual([outcome.runId, outcome.status, outcome.reason, true]);
    }
    const continued = await Promise.all(continuations.map((id) => outcomeOf(rt, id)));
    expect(continued.every((o) => o.status === 'COMPLETED')).toBe(true);
    await expectRunInvariants(rt, [...all, ...continuations]);
    expect(rt.index.counts()).toEqual({ queued: 0, running: 0, waiting: 0 });
    expectSoundFiles();
    await projections.caughtUp();
    const comparison = await projections.compareWithRebuild();
    expectSameAsRebuild(comparison);
    reportFigures('run store full at an arbitrary moment, 3 workers', {
      runs: all.length,
      enqueuesRefused: refused.length,
      fullErrorsLogged: fullErrors,
      reaped: settled.reaped,
      outcomes: tally(outcomes),
      operatorRequeues: continuations.length,
      continuations: tally(continued),
      readModelRuns: comparison.rows['runs'],
    });
  });

  itWithSmallFileSystem(`a real full file system (${TMPFS.reason}; 16 MiB, both stores on it), filled while workers run and freed later: typed errors, every run ends by the failure rules, the files stay sound`, async () => {
    fileSystem = mountSmallFileSystem(16);
    const disk = fileSystem;
    await start(3, disk.dir);
    const agents = ['reader', 'putter', 'appender', 'two-rounds'];
    const requested: string[] = [];
    const refused: string[] = [];
    const request = async (n: number) => {
      const runId = `disk-${n}`;
      try {
        await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: agents[n % agents.length] as string, input: `run ${n}`, runId });
        requested.push(runId);
      } catch (error) {
        if (!(error instanceof StoreFullError)) throw error;
        refused.push(runId);
      }
    };
    let n = 0;
    for (; n < 24; n++) await request(n);
    await eventually(async () => ((await Promise.all(requested.map((id) => outcomeOf(rt, id)))).filter((o) => o.terminalEvents > 0).length >= 4 ? true : undefined), 20_000, 'a few runs to settle');
    const ballastBytes = disk.fill();
    // SQLite reuses its WAL's space: the stores meet the full disk only when a file must grow. Keep the work coming until they do.
    const fullErrors = () => [...logs.errors, ...logs.warnings].filter((m) => /Event store full/.test(m)).length;
    await eventually(
      async () => {
        if (fullErrors() >= 40) return true;
        if (n < 400) await request(n++);
        return undefined;
      },
      60_000,
      'the stores to meet the full disk',
    );
    expectSoundFiles(disk.dir);
    const errorsWhileFull = fullErrors();
    const otherStoreErrors = [...logs.errors, ...logs.warnings].filter((m) => /Event store (unavailable|failure)/.test(m));
    disk.free();
    for (const runId of refused) {
      await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: agents[Number(runId.split('-')[1]) % agents.length] as string, input: 'retried', runId });
    }
    const all = [...requested, ...refused];
    const settled = await settleEverything(rt);
    const outcomes = await Promise.all(all.map((id) => outcomeOf(rt, id)));
    const continuations: string[] = [];
    for (const outcome of outcomes.filter((o) => o.reason === 'NOT_RETRYABLE')) {
      expect(outcome).toMatchObject({ failureCode: 'STORE_FULL', failureClass: 'unknown', deadLettered: true });
      continuations.push((await rt.runs.requeue(outcome.runId, { requestedBy: busPrincipal('operator'), reason: 'disk space freed' })).continuationRunId);
    }
    await settleEverything(rt);
    const failClosed = outcomes.filter((o) => o.reason === 'AUDIT_PERSISTENCE_FAILED');
    for (const outcome of outcomes) {
      const allowed =
        outcome.reason === 'COMPLETED' ||
        outcome.reason === 'NOT_RETRYABLE' ||
        outcome.reason === 'AUDIT_PERSISTENCE_FAILED' || // the audit file is on the full disk too: a write's audit refused fails closed
        (outcome.reason === 'WRITE_INTERRUPTED' && outcome.events.some((e) => e.type === 'RunFailed' && e.data.inFlightWrite?.effect === 'NON_IDEMPOTENT_WRITE'));
      expect([outcome.runId, outcome.reason, allowed]).toEqual([outcome.runId, outcome.reason, true]);
    }
    await expectFailClosedDecisionsAccountedFor(rt, logs, outcomes);
    const continued = await Promise.all(continuations.map((id) => outcomeOf(rt, id)));
    expect(continued.every((o) => o.status === 'COMPLETED')).toBe(true);
    await expectRunInvariants(rt, [...all, ...continuations]);
    expect(rt.index.counts()).toEqual({ queued: 0, running: 0, waiting: 0 });
    expectSoundFiles(disk.dir);
    await projections.caughtUp();
    const comparison = await projections.compareWithRebuild();
    expectSameAsRebuild(comparison);
    reportFigures('real full file system (tmpfs 16 MiB), 3 workers', {
      runs: all.length,
      ballastBytes,
      enqueuesRefused: refused.length,
      fullErrorsLogged: errorsWhileFull,
      otherStoreErrors: otherStoreErrors.length,
      reaped: settled.reaped,
      outcomes: tally(outcomes),
      operatorRequeues: continuations.length,
      continuations: tally(continued),
      auditFailClosed: failClosed.length,
      auditFailSoft: rt.metrics.get('auditFailSoft'),
    });
  });
});
