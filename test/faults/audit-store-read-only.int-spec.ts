import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ExpectedRevision } from '@agent-ledger/event-store';
import type { RuntimeHarness } from '@agent-ledger/runtime/testing';
import { startRuntime } from '@agent-ledger/runtime/testing';
import { findReadOnlyMechanism } from './support/read-only-file';
import { inspectSqliteFile, setQueryOnly } from './support/sqlite-faults';
import type { CapturedLogs, LiveProjections } from './support/runtime';
import {
  captureLogs,
  expectAuditRefused,
  expectRunInvariants,
  expectSameAsRebuild,
  FAULT_AGENTS,
  outcomeOf,
  reportFigures,
  runQueued,
  startProjections,
  tally,
} from './support/runtime';
import { scaled } from '../support/time-scale';

jest.setTimeout(scaled(120_000));

const READ_ONLY = findReadOnlyMechanism();
const itWithReadOnlyFile = READ_ONLY.mechanism === null ? it.skip : it;
if (READ_ONLY.mechanism === null) {
  console.warn(`test/faults: the read-only audit file test is skipped: ${READ_ONLY.reason}`);
}

const probe = (rt: RuntimeHarness) =>
  rt.auditStore.append(`faultprobe-${randomUUID()}`, [{ id: randomUUID(), type: 'Probe', data: {} }], { expectedRevision: ExpectedRevision.ANY });

/**
 * The audit store refuses appends because it is read-only, while the run
 * store works. A file made read-only under an open SQLite connection changes
 * nothing (permissions and the immutable flag are checked when a file is
 * opened; SQLite keeps its descriptors), so the file-level test restarts the
 * runtime on a read-only audit file, which SQLite then opens read-only. The
 * mid-run variant turns the runtime's own audit connection read-only
 * (`PRAGMA query_only`), which SQLite answers with the same `SQLITE_READONLY`.
 */
describe('the audit store read-only (embedded stores, audit in a file of its own)', () => {
  let dir: string;
  let logs: CapturedLogs | undefined;
  const harnesses: RuntimeHarness[] = [];
  let projections: LiveProjections | undefined;
  let protectedFile: string | null = null;

  const start = async () => {
    const rt = await startRuntime({ agents: FAULT_AGENTS, storeDir: dir, execution: { workers: { concurrency: 0 } } });
    harnesses.push(rt);
    logs?.restore();
    logs = captureLogs();
    return rt;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-faults-read-only-'));
  });

  afterEach(async () => {
    if (protectedFile !== null) READ_ONLY.mechanism?.unprotect(protectedFile);
    protectedFile = null;
    await projections?.close();
    projections = undefined;
    for (const rt of harnesses.splice(0)) await rt.close();
    logs?.restore();
    logs = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  itWithReadOnlyFile(`a runtime started on a read-only audit file (${READ_ONLY.reason}): writes fail closed, reads go on; once the file is writable, a restart records audits again`, async () => {
    const mechanism = READ_ONLY.mechanism;
    if (mechanism === null) return;
    const first = await start();
    const baseline = (await first.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'before', runId: 'baseline' })).runId;
    await first.close();
    harnesses.splice(0);

    const auditFile = join(dir, 'audit.sqlite');
    mechanism.protect(auditFile);
    protectedFile = auditFile;
    const rt = await start();
    projections = await startProjections(rt.runStore, rt.auditStore);
    await expect(probe(rt)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'readOnly', retryable: false });
    const refused = await expectAuditRefused(rt, 'ro', { runId: baseline, audits: 5 });
    await projections.caughtUp();
    expect(projections.queries.getRun('ro-put')).toMatchObject({ status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', deadLettered: true });
    expect(projections.queries.auditReview({ runId: baseline }).totals).toMatchObject({ writesAudited: 1 });

    // The file is writable again, but the running store opened it read-only: it stays so until reopened.
    mechanism.unprotect(auditFile);
    protectedFile = null;
    await expect(probe(rt)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'readOnly' });
    const outcomes = await Promise.all([baseline, ...refused].map((id) => outcomeOf(rt, id)));
    const failClosed = rt.metrics.get('auditFailClosed');
    await projections.close();
    projections = undefined;
    await rt.close();
    harnesses.splice(0);

    // A restart (the store reopened) records audits again; the failed runs stay failed.
    const restarted = await start();
    const after = (await restarted.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'after', runId: 'after-restart' })).runId;
    expect(await outcomeOf(restarted, after)).toMatchObject({ status: 'COMPLETED', terminalEvents: 1 });
    expect((await restarted.auditEvents(after)).length).toBe(5); // the start statement and four steps
    expect(await outcomeOf(restarted, 'ro-append')).toMatchObject({ status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', terminalEvents: 1 });
    for (const file of ['agent-ledger.sqlite', 'audit.sqlite']) {
      expect(inspectSqliteFile(join(dir, file))).toMatchObject({ integrity: ['ok'], problems: [] });
    }
    reportFigures(`audit file read-only at start (${mechanism.name})`, {
      runs: outcomes.length + 1,
      whileReadOnly: tally(outcomes.filter((o) => o.runId !== baseline)),
      afterRestart: tally([await outcomeOf(restarted, after)]),
      auditFailClosed: failClosed,
    });
  });

  it("the runtime's audit connection turned read-only mid-run (PRAGMA query_only): a write in progress fails closed, reads go on; turned back, new runs record audits at once", async () => {
    const rt = await start();
    projections = await startProjections(rt.runStore, rt.auditStore);
    const baseline = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'before', runId: 'baseline' })).runId;

    // A queued run is parked inside its write, its read already audited; the audit store turns read-only under it.
    const gate = rt.behaviour.blockNext('test.put');
    const parked = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'parked', runId: 'parked-put' });
    const segment = runQueued(rt, parked);
    await gate.reached;
    expect((await rt.auditEvents(parked)).length).toBe(3); // the start statement, model round and read, before the fault
    setQueryOnly(rt.auditStore, true);
    gate.release();
    await segment;
    expect(await outcomeOf(rt, parked)).toMatchObject({ status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', deadLettered: true, terminalEvents: 1 });
    expect((await rt.auditEvents(parked)).length).toBe(3);

    await expect(probe(rt)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'readOnly', retryable: false });
    const refused = await expectAuditRefused(rt, 'qo', { runId: baseline, audits: 5 });
    await projections.caughtUp();
    expect(projections.queries.auditReview().totals).toMatchObject({ runsFailedClosed: 3 });

    setQueryOnly(rt.auditStore, false);
    const after = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'after', runId: 'after' })).runId;
    expect(await outcomeOf(rt, after)).toMatchObject({ status: 'COMPLETED', terminalEvents: 1 });
    expect((await rt.auditEvents(after)).length).toBe(5); // the start statement and four steps

    const all = [baseline, parked, ...refused, after];
    await expectRunInvariants(rt, all);
    await projections.caughtUp();
    const comparison = await projections.compareWithRebuild();
    expectSameAsRebuild(comparison);
    expect(logs?.has(/readOnly/)).toBe(true);
    const outcomes = await Promise.all(all.map((id) => outcomeOf(rt, id)));
    reportFigures('audit connection read-only mid-run (query_only)', {
      runs: all.length,
      outcomes: tally(outcomes),
      auditFailClosed: rt.metrics.get('auditFailClosed'),
      auditFailSoft: rt.metrics.get('auditFailSoft'),
    });
  });
});
