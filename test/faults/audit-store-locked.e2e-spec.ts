import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ExpectedRevision, SqliteEventStore } from '@agent-ledger/event-store';
import type { RuntimeHarness } from '@agent-ledger/runtime/testing';
import { startRuntime } from '@agent-ledger/runtime/testing';
import type { Child } from './support/child-process';
import { startChild } from './support/child-process';
import { inspectSqliteFile } from './support/sqlite-faults';
import type { CapturedLogs, LiveProjections, RunOutcome } from './support/runtime';
import {
  captureLogs,
  expectRunInvariants,
  expectSameAsRebuild,
  FAULT_AGENTS,
  outcomeOf,
  reportFigures,
  runQueued,
  SECOND,
  startProjections,
  tally,
} from './support/runtime';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

/**
 * The audit store refuses appends while the run store works: ANOTHER PROCESS
 * (test/faults/support/lock-holder.ts) holds the audit database's write lock
 * (`BEGIN EXCLUSIVE`) while the runtime executes runs on the embedded stores,
 * the audit streams in a file of their own (as `AUDIT_STORE_PATH` configures
 * the service). The audit store's busy timeout is the harness's 50 ms.
 */
describe('the audit store locked by another process (embedded stores, audit in a file of its own)', () => {
  let dir: string;
  let rt: RuntimeHarness;
  let projections: LiveProjections;
  let holder: Child;
  let logs: CapturedLogs;
  let baseline: string;
  const lockedRuns: string[] = [];
  const afterRuns: string[] = [];
  const probes = { busy: 0 };
  const figures: { stallMs?: number } = {};

  const probeAuditAppend = () =>
    rt.auditStore.append(`faultprobe-${randomUUID()}`, [{ id: randomUUID(), type: 'Probe', data: {} }], { expectedRevision: ExpectedRevision.ANY });

  const lock = async () => {
    const from = holder.lines.length;
    holder.send('lock');
    await holder.waitForLine(/^locked$/, { fromLine: from });
  };
  const release = async () => {
    const from = holder.lines.length;
    holder.send('release');
    await holder.waitForLine(/^released$/, { fromLine: from });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-faults-locked-'));
    rt = await startRuntime({ agents: FAULT_AGENTS, storeDir: dir, execution: { workers: { concurrency: 0 } } });
    logs = captureLogs(); // after compile(): the testing module installs its own logger
    projections = await startProjections(rt.runStore, rt.auditStore);
    baseline = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'before the lock', runId: 'baseline' })).runId;
    holder = startChild('lock-holder.ts', [join(dir, 'audit.sqlite')]);
    await holder.waitForLine(/^ready \d+$/);
  });

  afterAll(async () => {
    if (holder !== undefined) {
      holder.send('exit');
      await Promise.race([holder.exited, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      await holder.kill();
    }
    await projections?.close();
    await rt?.close();
    logs?.restore();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the lock is real and held by another process: an audit append fails with StoreUnavailableError(busy), nothing written; a run append works', async () => {
    await lock();
    expect(holder.pid).not.toBe(process.pid);
    await expect(probeAuditAppend()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'busy', retryable: true });
    probes.busy++;
    const runProbe = await rt.runStore.append(`faultprobe-${randomUUID()}`, [{ id: randomUUID(), type: 'Probe', data: {} }], { expectedRevision: ExpectedRevision.NO_STREAM });
    expect(runProbe.nextExpectedRevision).toBe(0n);
  });

  it('a write whose audit is refused fails its run closed (AUDIT_PERSISTENCE_FAILED, class unknown), never retried; the write ran once', async () => {
    const interactive = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'append while locked', runId: 'locked-append' });
    lockedRuns.push(interactive.runId);
    expect(interactive.state.status).toBe('FAILED');
    expect(interactive.state.settlement).toMatchObject({ reason: 'AUDIT_PERSISTENCE_FAILED', deadLettered: false });

    const queued = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'put while locked', runId: 'locked-put' });
    lockedRuns.push(queued);
    await runQueued(rt, queued);
    // Not retried: the clock moves past any backoff and lease, the reaper and the workers find nothing to do.
    rt.clock.advance(1_000 * SECOND);
    expect(await rt.reaper.reapOnce()).toMatchObject({ requeued: [], failed: [], cancelled: [] });
    expect(await rt.workers.runOnce()).toBeNull();

    for (const runId of [interactive.runId, queued]) {
      const outcome = await outcomeOf(rt, runId);
      expect(outcome).toMatchObject({ status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', failureClass: 'unknown', failureCode: 'AUDIT_PERSISTENCE_FAILED', terminalEvents: 1, requeues: 0, attempts: 1 });
      expect(outcome.events.map((e) => e.type)).not.toContain('RunRequeued');
      expect(outcome.events.slice(-3).map((e) => e.type)).toEqual(['StepStarted', 'ToolExecuted', 'RunFailed']);
      expect((await rt.auditEvents(runId)).length).toBe(0);
    }
    expect((await outcomeOf(rt, queued)).deadLettered).toBe(true);
    expect(rt.behaviour.executions.filter((e) => e.runId === interactive.runId).map((e) => e.tool)).toEqual(['test.read', 'test.append']);
    expect(rt.behaviour.executions.filter((e) => e.runId === queued).map((e) => e.tool)).toEqual(['test.read', 'test.put']);
    expect(rt.metrics.get('auditFailClosed')).toBe(2);
    expect(logs.errors.filter((m) => /was not stored; the run fails closed/.test(m))).toHaveLength(2);
  });

  it("a read-only step's audit failure is fail-soft: its run completes, interactive or queued", async () => {
    const softBefore = rt.metrics.get('auditFailSoft');
    const interactive = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'read while locked', runId: 'locked-read' });
    const queued = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'read while locked', runId: 'locked-read-queued' });
    await runQueued(rt, queued);
    lockedRuns.push(interactive.runId, queued);
    for (const runId of [interactive.runId, queued]) {
      expect(await outcomeOf(rt, runId)).toMatchObject({ status: 'COMPLETED', reason: 'COMPLETED', terminalEvents: 1 });
      expect((await rt.auditEvents(runId)).length).toBe(0);
    }
    // Each reader run has three steps (model, read, model): six audits not stored, none of them failing a run.
    expect(rt.metrics.get('auditFailSoft') - softBefore).toBe(6);
    // Every audit not stored so far was the locked store's refusal: none a refused command, none a decider's bug. Besides the steps' audits,
    // the statement of who started each run was refused too (each try counted `deferred`; the run went on).
    const statementsNotStored = rt.metrics
      .labelled('decisionStatements')
      .filter((m) => m.labels['outcome'] !== 'late')
      .reduce((sum, m) => sum + m.value, 0);
    expect(rt.metrics.labelled('decisionStatements').map((m) => m.labels)).toEqual([{ kind: 'start', outcome: 'deferred' }]);
    expect(rt.metrics.get('auditAppendFailures')).toBe(rt.metrics.get('auditFailClosed') + rt.metrics.get('auditFailSoft') + statementsNotStored);
    expect(rt.metrics.get('auditCommandsRejected')).toBe(0);
    expect(rt.metrics.get('deciderFailures')).toBe(0);
  });

  it('reads go on while the lock is held: run state, run streams, audit streams, projections of both stores', async () => {
    await expect(probeAuditAppend()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'busy' });
    probes.busy++;
    expect((await rt.runs.get(baseline)).status).toBe('COMPLETED');
    expect((await rt.runs.get('locked-append')).settlement?.reason).toBe('AUDIT_PERSISTENCE_FAILED');
    expect((await rt.runStore.readStream('run-locked-put')).events.length).toBeGreaterThan(5);
    // The audit file is locked for writers, not for readers (WAL).
    expect((await rt.auditEvents(baseline)).map((e) => e.type)).toEqual(['RunStartRecorded', 'AuditRecorded', 'AuditRecorded', 'AuditRecorded', 'AuditRecorded']);
    await projections.caughtUp();
    expect(projections.queries.getRun('locked-put')).toMatchObject({ status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', deadLettered: true });
    expect(projections.queries.getRun('locked-read')).toMatchObject({ status: 'COMPLETED' });
    expect(projections.queries.auditReview().totals).toMatchObject({ runsFailedClosed: 2, writesExecuted: 3, writesAudited: 1, writesWithoutAudit: 2 });
  });

  it("while a writer waits for the other process's lock, its whole event loop waits (better-sqlite3 is synchronous): each refused append stalls the process for the store's busy timeout", async () => {
    // A 1 ms interval ticks through the whole append; the longest gap between two ticks is how long the event loop
    // stood still. (A single 1 ms timer raced the store's deferred flush: it could fire before the blocking call began.)
    let last = Date.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = Date.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 1);
    try {
      await expect(probeAuditAppend()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'busy' });
    } finally {
      clearInterval(ticker);
    }
    longestGap = Math.max(longestGap, Date.now() - last);
    probes.busy++;
    // The harness's audit store waits 50 ms for the lock; the service's default is 5000 ms.
    expect(longestGap).toBeGreaterThanOrEqual(45);
    figures.stallMs = longestGap;
  });

  // A known limitation, reported: opening the embedded store takes the write lock (`migrate` runs `BEGIN IMMEDIATE`
  // even when the schema is current), so a process that starts while another one holds the lock cannot even open
  // the store to read it. When that changes, this test fails: then assert that the new process reads the stream.
  it('(known limitation) a process that starts while the other process holds the lock cannot open the audit store, not even to read: StoreUnavailableError(busy) after its busy timeout', async () => {
    expect(() => SqliteEventStore.open({ path: join(dir, 'audit.sqlite'), busyTimeoutMs: 100 })).toThrow(
      expect.objectContaining({ code: 'STORE_UNAVAILABLE', reason: 'busy', message: expect.stringContaining('open ') }),
    );
    // A read-only open takes no lock and reads.
    const reader = SqliteEventStore.open({ path: join(dir, 'audit.sqlite'), readOnly: true });
    try {
      expect((await reader.readStream(`audit-${baseline}`)).events).toHaveLength(5);
    } finally {
      await reader.close();
    }
  });

  it('after the other process releases the lock, new runs work and record every audit; the failed runs stay failed; the saga records the two gaps', async () => {
    await release();
    const appended = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'append after the lock', runId: 'after-append' });
    const queued = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'two-rounds', input: 'after the lock', runId: 'after-two-rounds' });
    await runQueued(rt, queued);
    afterRuns.push(appended.runId, queued);
    for (const runId of afterRuns) {
      expect(await outcomeOf(rt, runId)).toMatchObject({ status: 'COMPLETED', terminalEvents: 1 });
    }
    // Who started each run, then its steps.
    expect((await rt.auditEvents('after-append')).length).toBe(5);
    expect((await rt.auditEvents('after-two-rounds')).length).toBe(6);

    // The audit-gap saga reports the two writes whose audits never came; their runs were settled already.
    rt.clock.advance(3_600 * SECOND);
    const check = await rt.saga.checkDeadlines();
    expect(check.reported.sort()).toEqual(['locked-append/r0/t1', 'locked-put/r0/t1']);
    // And states, late, who started each run whose start the locked store refused.
    expect(check.statements.sort()).toEqual(lockedRuns.map((runId) => `${runId} start`).sort());
    for (const runId of ['locked-append', 'locked-put']) {
      const outcome = await outcomeOf(rt, runId);
      expect(outcome).toMatchObject({ status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', terminalEvents: 1 });
      expect(outcome.events.at(-1)).toMatchObject({ type: 'AuditGapDetected', data: { runAlreadySettled: true } });
    }

    const all = [baseline, ...lockedRuns, ...afterRuns];
    await expectRunInvariants(rt, all);
    for (const file of ['agent-ledger.sqlite', 'audit.sqlite']) {
      const inspection = inspectSqliteFile(join(dir, file));
      expect(inspection.integrity).toEqual(['ok']);
      expect(inspection.problems).toEqual([]);
    }
    await projections.caughtUp();
    const comparison = await projections.compareWithRebuild();
    expectSameAsRebuild(comparison);

    const outcomes: RunOutcome[] = await Promise.all(all.map((id) => outcomeOf(rt, id)));
    reportFigures('audit store locked by another process', {
      lockHolderPid: holder.pid,
      busyProbes: probes.busy,
      eventLoopStallMsPerRefusedAppend: figures.stallMs,
      runs: all.length,
      whileLocked: tally(outcomes.filter((o) => lockedRuns.includes(o.runId))),
      afterRelease: tally(outcomes.filter((o) => afterRuns.includes(o.runId))),
      auditFailClosed: rt.metrics.get('auditFailClosed'),
      auditFailSoft: rt.metrics.get('auditFailSoft'),
      auditAppendFailures: rt.metrics.get('auditAppendFailures'),
      gapsReported: check.reported.length,
      readModelRows: comparison.rows,
    });
  });
});
