import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { EventStore, ReadAllOptions, RecordedEvent } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { writeExecutedWithoutAudit } from '../testing/crash-points';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime } from '../testing/runtime-harness';
import type { AuditVerdictStores } from './audit-store-reviewer';
import type { AuditStoreVerdict } from './audit-store-verdict';
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

    it('reads only the events appended since, after checking the audit heads', async () => {
      const second = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' })).runId;
      const verdict = await reviewer.review();
      // The first run's head, re-read by the rotation (the second run had none in the checkpoint).
      expect(verdict.verification).toMatchObject({ mode: 'incremental', fullBecause: null, headsChecked: 1, headRounds: 1, checkpoint: 'memory' });
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

    it('answers the verdict it computed last when nothing is new, with fresh verification figures', async () => {
      const second = await reviewer.review();
      const third = await reviewer.review();
      expect(third.verification).toMatchObject({ mode: 'incremental', eventsRead: 0, headsChecked: 1, headRounds: 2 });
      expect(third.totals).toBe(second.totals);
      expect(third.verification).not.toBe(second.verification);
      // Another list limit is another verdict, computed.
      expect((await reviewer.review({ limit: 5 })).totals).not.toBe(second.totals);
    });

    it('re-reads a bounded number of heads per review, taking turns, and so finds an edited head within as many reviews as runs', async () => {
      const rotating = new AuditStoreReviewer(rt, { headsPerReview: 1 });
      await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' });
      const third = (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' })).runId;
      expect((await rotating.review()).verification.mode).toBe('full');
      // Nothing new touches the third run: only the rotation re-reads its head, in its turn (the runs' order: first, second, third).
      expect(editAuditFile("UPDATE events SET data = replace(data, '\"responded\"', '\"failed\"') WHERE stream_name = ? AND revision = 3", `audit-${third}`)).toBe(1);
      const turns = [];
      for (let i = 0; i < 3; i++) turns.push((await rotating.review()).verification);
      expect(turns).toEqual([
        expect.objectContaining({ mode: 'incremental', headsChecked: 1, headRounds: 0 }),
        expect.objectContaining({ mode: 'incremental', headsChecked: 1, headRounds: 0 }),
        expect.objectContaining({ mode: 'full', fullBecause: `the audit head of run ${third} (record #3) changed` }),
      ]);
    });

    it('re-reads the head of each run the new events touch before applying them, whatever the rotation', async () => {
      const touching = new AuditStoreReviewer(rt, { headsPerReview: 0 });
      const { runId } = await writeExecutedWithoutAudit(rt, { agent: 'putter', tool: PUT });
      expect((await touching.review()).verification.mode).toBe('full');
      // The head of the run, edited while the run waits for its audit: its content no longer gives its hash.
      const head = editAuditFile(
        'UPDATE events SET data = json_set(data, \'$.edited\', 1) WHERE stream_name = ? AND revision = (SELECT max(revision) FROM events WHERE stream_name = ?)',
        `audit-${runId}`,
        `audit-${runId}`,
      );
      expect(head).toBe(1);
      expect((await touching.review()).verification).toMatchObject({ mode: 'incremental', headsChecked: 0 });
      // The run goes on: its new events touch it, and its head is re-read before they are applied.
      rt.clock.advance(3600_000);
      expect((await rt.reaper.reapOnce()).requeued).toEqual([runId]);
      expect(await rt.workers.runOnce()).toBe(runId);
      const verdict = await touching.review();
      expect(verdict.verification).toMatchObject({ mode: 'full', fullBecause: expect.stringMatching(new RegExp(`^the audit head of run ${runId} \\(record #\\d+\\) changed$`)) });
      expect(verdict.brokenRuns).toEqual([runId]);
    });

    it('does not see an edit behind the head until a full pass, which does', async () => {
      expect(editAuditFile("UPDATE events SET data = replace(data, '\"succeeded\"', '\"failed\"') WHERE stream_name = ? AND revision = 2", `audit-${first}`)).toBe(1);
      expect(await reviewer.review()).toMatchObject({ findings: false, verification: { mode: 'incremental' } });
      const full = await reviewer.review({ full: true });
      expect(full).toMatchObject({ findings: true, brokenRuns: [first], verification: { mode: 'full', fullBecause: 'a full verification was asked' } });
    });
  });
});

describe('the audit verdict\'s checkpoint file (embedded stores, run and audit apart)', () => {
  let dir: string;
  let rt: RuntimeHarness;
  let checkpointPath: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-verdict-file-'));
    checkpointPath = join(dir, 'read-models', 'audit-verdict.sqlite');
    rt = await startRuntime({ agents: AGENTS, storeDir: dir, execution: { workers: { concurrency: 0 } } });
  });

  afterEach(async () => {
    await rt.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The verdict of a new process of the service on the checkpoint file: its first review (or `reviews` of them), then it ends. */
  async function inNewProcess(options: { stores?: AuditVerdictStores; headsPerReview?: number; full?: boolean } = {}): Promise<AuditStoreVerdict> {
    const reviewer = new AuditStoreReviewer(options.stores ?? rt, { checkpointPath, ...(options.headsPerReview === undefined ? {} : { headsPerReview: options.headsPerReview }) });
    try {
      return await reviewer.review({ full: options.full === true });
    } finally {
      reviewer.close();
    }
  }

  const run = async (): Promise<string> => (await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'putter', input: 'go' })).runId;

  it('survives a restart: the first review of the next process continues from it, reading only the new events', async () => {
    await run();
    expect((await inNewProcess()).verification).toMatchObject({ mode: 'full', fullBecause: 'no checkpoint file yet', checkpoint: null });
    await run();
    const after = new AuditStoreReviewer(rt, { checkpointPath });
    try {
      const verdict = await after.review();
      const full = await reviewAuditStores(rt);
      expect(verdict.verification).toMatchObject({ mode: 'incremental', fullBecause: null, checkpoint: 'file', headsChecked: 1 });
      // The second run's events only.
      expect(verdict.verification.eventsRead).toBe(full.verification.eventsRead / 2);
      expect({ ...verdict, verification: null }).toEqual({ ...full, verification: null });
      // Then from its memory.
      expect((await after.review()).verification).toMatchObject({ mode: 'incremental', checkpoint: 'memory', eventsRead: 0 });
    } finally {
      after.close();
    }
  });

  it('keeps what the reviews found: a chain break is still in the verdict of the next process', async () => {
    const broken = await run();
    expect(editAuditStoreFile(dir, "UPDATE events SET data = replace(data, '\"succeeded\"', '\"failed\"') WHERE stream_name = ? AND revision = 2", `audit-${broken}`)).toBe(1);
    const first = await inNewProcess();
    expect(first).toMatchObject({ findings: true, brokenRuns: [broken], verification: { mode: 'full' } });
    await run();
    const next = await inNewProcess();
    expect(next.verification).toMatchObject({ mode: 'incremental', checkpoint: 'file' });
    expect({ ...next, verification: null }).toEqual({ ...(await reviewAuditStores(rt)), verification: null });
    expect(next.breaks).toEqual(first.breaks);
  });

  it('is not used when made from other stores: a full pass, which names them, and which the file then follows', async () => {
    await run();
    await inNewProcess();
    const other = SqliteEventStore.open({ path: join(dir, 'other.sqlite') });
    try {
      const stores = { runStore: other, auditStore: rt.auditStore };
      const [mine, theirs] = [(await rt.runStore.storeIdentity()).id, (await other.storeIdentity()).id];
      expect((await inNewProcess({ stores })).verification).toMatchObject({
        mode: 'full',
        fullBecause: `the checkpoint file was made from other stores (run store ${mine} there, ${theirs} here)`,
      });
      expect((await inNewProcess({ stores })).verification).toMatchObject({ mode: 'incremental', checkpoint: 'file' });
      expect((await inNewProcess()).verification).toMatchObject({ mode: 'full', fullBecause: `the checkpoint file was made from other stores (run store ${theirs} there, ${mine} here)` });
    } finally {
      await other.close();
    }
  });

  it('is not used when of another format, or unreadable: a full pass that says why, and a new file', async () => {
    await inNewProcess();
    const db = new Database(checkpointPath);
    db.prepare("UPDATE verdict_meta SET value = '99' WHERE key = 'format'").run();
    db.close();
    expect((await inNewProcess()).verification).toMatchObject({ mode: 'full', fullBecause: 'the checkpoint file is of format 99, this version reads format 1' });
    for (const suffix of ['-wal', '-shm']) rmSync(`${checkpointPath}${suffix}`, { force: true });
    writeFileSync(checkpointPath, 'not a database, '.repeat(500));
    expect((await inNewProcess()).verification).toMatchObject({ mode: 'full', fullBecause: expect.stringMatching(/^the checkpoint file could not be read \(.+\)$/) });
    expect((await inNewProcess()).verification).toMatchObject({ mode: 'incremental', checkpoint: 'file' });
  });

  it('is set aside when a head changed, so that a full pass that fails leaves no process continuing from it', async () => {
    const tampered = await run();
    await inNewProcess();
    expect(editAuditStoreFile(dir, 'DELETE FROM events WHERE stream_name = ? AND revision = 3', `audit-${tampered}`)).toBe(1);
    // Stores that fail a read from their first event: the full pass after the head check fails.
    const failFullReads = (store: EventStore): EventStore =>
      new Proxy(store, {
        get(target, property) {
          if (property === 'readAll') {
            return (options?: ReadAllOptions) => (options?.fromPosition === undefined ? failing() : target.readAll(options));
          }
          const value: unknown = Reflect.get(target, property);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    async function* failing(): AsyncIterable<RecordedEvent> {
      yield* [];
      throw new Error('the store failed');
    }
    await expect(inNewProcess({ stores: { runStore: failFullReads(rt.runStore), auditStore: failFullReads(rt.auditStore) } })).rejects.toThrow('the store failed');
    expect((await inNewProcess()).verification).toMatchObject({
      mode: 'full',
      fullBecause: `the checkpoint file was set aside by an earlier review: the audit head of run ${tampered} (record #3) is gone`,
    });
    expect((await inNewProcess()).verification).toMatchObject({ mode: 'incremental', checkpoint: 'file' });
  });

  it('notices a store that lost the last event it read (a store restored from an older copy): a full pass', async () => {
    await run();
    await inNewProcess();
    expect(editAuditStoreFile(dir, "DELETE FROM events WHERE position = (SELECT max(position) FROM events WHERE stream_name LIKE 'audit-%')")).toBe(1);
    // No head re-read: the missing event is found by the read that continues after it.
    expect((await inNewProcess({ headsPerReview: 0 })).verification).toMatchObject({
      mode: 'full',
      fullBecause: expect.stringMatching(/^the last event the checkpoint read from the audit store \(position \d+:\d+\) is no longer there$/),
    });
  });

  it('is not read by a full pass asked for (which sees what the checkpoint does not), and is renewed by it', async () => {
    const edited = await run();
    await inNewProcess();
    // An edit behind the head: an incremental review does not see it.
    expect(editAuditStoreFile(dir, "UPDATE events SET data = replace(data, '\"succeeded\"', '\"failed\"') WHERE stream_name = ? AND revision = 2", `audit-${edited}`)).toBe(1);
    expect(await inNewProcess()).toMatchObject({ findings: false, verification: { mode: 'incremental', checkpoint: 'file' } });
    expect(await inNewProcess({ full: true })).toMatchObject({ findings: true, brokenRuns: [edited], verification: { mode: 'full', fullBecause: 'a full verification was asked', checkpoint: null } });
    expect(await inNewProcess()).toMatchObject({ findings: true, brokenRuns: [edited], verification: { mode: 'incremental', checkpoint: 'file' } });
  });
});

/** Runs `sql` on the audit store's file in `dir`, as someone with access to it would. */
function editAuditStoreFile(dir: string, sql: string, ...params: unknown[]): number {
  const db = new Database(join(dir, 'audit.sqlite'));
  try {
    return db.prepare(sql).run(...params).changes;
  } finally {
    db.close();
  }
}

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
