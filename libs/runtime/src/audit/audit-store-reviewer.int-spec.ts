import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeExecutedWithoutAudit } from '../testing/crash-points';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime } from '../testing/runtime-harness';
import { AuditStoreReviewer, reviewAuditStores, reviewRunAudit } from './audit-store-reviewer';

const AGENTS: TestAgent[] = [
  { name: 'putter', script: [{ toolCalls: [{ tool: 'test.put', arguments: { value: 'x' } }] }, { final: 'ok' }] },
  { name: 'reader', script: [{ toolCalls: [{ tool: 'test.read', arguments: { value: 'x' } }] }, { final: 'ok' }] },
];
const PUT = { name: 'test.put', effect: 'IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 } as const;

describe('the audit verdict from the stores (embedded stores, run and audit apart)', () => {
  let dir: string;
  let rt: RuntimeHarness;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-verdict-'));
    rt = await startRuntime({ agents: AGENTS, storeDir: dir, execution: { workers: { concurrency: 0 } } });
  });

  afterEach(async () => {
    await rt.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `sql` on the audit store's file, as someone with access to it would. */
  function editAuditFile(sql: string, ...params: unknown[]): number {
    const db = new Database(join(dir, 'audit.sqlite'));
    try {
      return db.prepare(sql).run(...params).changes;
    } finally {
      db.close();
    }
  }

  it('matches every executed write to its audit: none missing, none late, no finding', async () => {
    const a = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' });
    await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'go' });
    const verdict = await reviewAuditStores(rt);
    expect(verdict).toMatchObject({ findings: false, problems: [], runs: 2, records: 8, brokenRuns: [], writesWithoutAudit: [], auditedLate: [] });
    expect(verdict.totals).toEqual({
      writesExecuted: 1,
      writesAudited: 1,
      auditedLate: 0,
      writesWithoutAudit: 0,
      writesWithoutAuditNotAllowed: 0,
      writesAwaitingAudit: 0,
      runsWithoutAuditStream: 0,
      auditedRunsUnknownToRunStore: 0,
    });
    expect((await reviewRunAudit(rt, a.runId)).totals).toMatchObject({ writesExecuted: 1, writesAudited: 1 });
  });

  it('counts and lists a write audited late, by the attempt that resumed the run after its segment died before the audit', async () => {
    const { runId, stepId } = await writeExecutedWithoutAudit(rt, { agent: 'putter', tool: PUT });
    const before = await reviewAuditStores(rt);
    // The run is not settled: its write awaits its audit, which is not a finding.
    expect(before).toMatchObject({ findings: false, totals: { writesExecuted: 1, writesAwaitingAudit: 1 }, writesAwaitingAudit: [expect.objectContaining({ runId, stepId, auditAttempt: null })] });

    rt.clock.advance(3600_000);
    expect((await rt.reaper.reapOnce()).requeued).toEqual([runId]);
    expect(await rt.workers.runOnce()).toBe(runId);
    expect((await rt.runEvents(runId)).at(-1)?.type).toBe('RunCompleted');

    const verdict = await reviewAuditStores(rt);
    expect(verdict.findings).toBe(false);
    expect(verdict.totals).toMatchObject({ writesExecuted: 1, writesAudited: 1, auditedLate: 1, writesAwaitingAudit: 0 });
    expect(verdict.auditedLate).toEqual([expect.objectContaining({ runId, stepId, toolName: 'test.put', executedAttempt: 1, auditAttempt: 2 })]);
  });

  it('lists a write whose run failed closed without its audit, which the contract allows: no finding', async () => {
    const undo = rt.breakAuditStore();
    const { runId } = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' });
    undo();
    const verdict = await reviewAuditStores(rt);
    expect(verdict.findings).toBe(false);
    expect(verdict.totals).toMatchObject({ writesWithoutAudit: 1, writesWithoutAuditNotAllowed: 0, runsWithoutAuditStream: 0 });
    expect(verdict.writesWithoutAudit).toEqual([expect.objectContaining({ runId, runEnd: 'AUDIT_PERSISTENCE_FAILED', allowedBy: 'failedClosed' })]);
    expect(verdict.problems).toEqual([]);
  });

  describe('incremental, from a verified checkpoint', () => {
    let reviewer: AuditStoreReviewer;
    let first: string;

    beforeEach(async () => {
      reviewer = new AuditStoreReviewer(rt);
      first = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' })).runId;
      expect((await reviewer.review()).verification).toMatchObject({ mode: 'full', fullBecause: 'no verified checkpoint in this process yet' });
    });

    it('reads only the events appended since, after checking every audit head', async () => {
      const second = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' })).runId;
      const verdict = await reviewer.review();
      expect(verdict.verification).toMatchObject({ mode: 'incremental', fullBecause: null, headsChecked: 1 });
      // The second run's events only: its verdict events in the run store and its four audit records.
      const full = await reviewAuditStores(rt);
      expect(verdict.verification.eventsRead).toBe(full.verification.eventsRead / 2);
      expect({ ...verdict, verification: null }).toEqual({ ...full, verification: null });
      expect(verdict.totals).toMatchObject({ writesExecuted: 2, writesAudited: 2 });
      expect([first, second].every((id) => !verdict.brokenRuns.includes(id))).toBe(true);
    });

    it('runs a full pass and names the write when the tail of an audit stream was deleted behind the checkpoint', async () => {
      // The chain: the start statement (#0), the model round (#1), the write (#2), the final round (#3).
      expect(editAuditFile('DELETE FROM events WHERE stream_name = ? AND revision >= 2', `audit-${first}`)).toBe(2);
      const verdict = await reviewer.review();
      expect(verdict.verification).toMatchObject({ mode: 'full', fullBecause: `the audit head of run ${first} (record #3) is gone` });
      expect(verdict.findings).toBe(true);
      expect(verdict.writesWithoutAudit).toEqual([expect.objectContaining({ runId: first, stepId: `${first}/r0/t0`, runEnd: 'COMPLETED', allowedBy: null })]);
    });

    it('runs a full pass when the head record was edited', async () => {
      expect(editAuditFile("UPDATE events SET data = replace(data, '\"responded\"', '\"failed\"') WHERE stream_name = ? AND revision = 3", `audit-${first}`)).toBe(1);
      // The id and the hash field are untouched: the head's content no longer gives its hash.
      const verdict = await reviewer.review();
      expect(verdict.verification).toMatchObject({ mode: 'full', fullBecause: `the audit head of run ${first} (record #3) changed` });
      expect(verdict.findings).toBe(true);
      expect(verdict.breaks).toEqual([expect.objectContaining({ runId: first, index: 3, problem: 'hashMismatch' })]);
    });

    it('coalesces the requests that arrive before a queued review starts into that review, and starts a new one after', async () => {
      // A review with another list limit goes first; the next two requests share the one review queued behind it.
      const first = reviewer.review({ limit: 5 });
      const second = reviewer.review();
      const third = reviewer.review();
      expect(second).toBe(third);
      const [a, b] = await Promise.all([first, second]);
      expect(a).not.toBe(b);
      expect(await reviewer.review()).not.toBe(b);
    });

    it('does not see an edit behind the head until a full pass, which does', async () => {
      expect(editAuditFile("UPDATE events SET data = replace(data, '\"succeeded\"', '\"failed\"') WHERE stream_name = ? AND revision = 2", `audit-${first}`)).toBe(1);
      expect(await reviewer.review()).toMatchObject({ findings: false, verification: { mode: 'incremental' } });
      const full = await reviewer.review({ full: true });
      expect(full).toMatchObject({ findings: true, brokenRuns: [first], verification: { mode: 'full', fullBecause: 'a full verification was asked' } });
    });
  });
});

describe('the audit verdict from the stores (EventStoreDB, run and audit on two servers)', () => {
  let rt: RuntimeHarness;

  beforeEach(async () => {
    rt = await startRuntime({ store: 'eventstoredb', agents: AGENTS, execution: { workers: { concurrency: 0 } } });
  });

  afterEach(() => rt.close());

  it('matches every executed write to its audit, counts a write audited late, and continues incrementally', async () => {
    const reviewer = new AuditStoreReviewer(rt);
    const done = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' });
    expect(await reviewer.review()).toMatchObject({ findings: false, runs: 1, records: 4, totals: { writesExecuted: 1, writesAudited: 1 } });

    const { runId, stepId } = await writeExecutedWithoutAudit(rt, { agent: 'putter', tool: PUT });
    rt.clock.advance(3600_000);
    expect((await rt.reaper.reapOnce()).requeued).toEqual([runId]);
    // The queue index follows the store: the requeued run is claimable once it has seen the requeue.
    expect(await eventually(async () => (await rt.workers.runOnce()) ?? undefined, 10_000, 'the requeued run to be claimed')).toBe(runId);
    expect((await rt.runEvents(runId)).at(-1)?.type).toBe('RunCompleted');

    const verdict = await reviewer.review();
    expect(verdict.verification).toMatchObject({ mode: 'incremental', headsChecked: 1 });
    expect(verdict).toMatchObject({ findings: false, runs: 2, totals: { writesExecuted: 2, writesAudited: 2, auditedLate: 1 } });
    expect(verdict.auditedLate).toEqual([expect.objectContaining({ runId, stepId, executedAttempt: 1, auditAttempt: 2 })]);
    expect((await reviewRunAudit(rt, done.runId)).totals).toMatchObject({ writesExecuted: 1, writesAudited: 1, auditedLate: 0 });
  });
});
