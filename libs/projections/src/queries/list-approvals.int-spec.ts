import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { TableSlot } from '../store/sql-table';
import { ProjectionStore } from '../store/projection-store';
import { APPEND, everyFlow, T0, untilRoundZeroAnswered } from '../testing/approval-flows';
import { EventLog } from '../testing/event-builders';
import { runEvents } from '../testing/run-event-fixtures';
import { ProjectionQueries } from './projection-queries';

/** Projects a log into a fresh read-model file, as one source. */
function project(store: ProjectionStore, log: EventLog): void {
  const outcome = store.applyBatch({ slot: TableSlot.LIVE, source: 'runs', projections: store.projections, events: log.recorded(), after: null });
  expect(outcome.kind).toBe('applied');
}

describe('listApprovals and the approval totals, on SQLite', () => {
  let dir: string;
  let store: ProjectionStore;
  let queries: ProjectionQueries;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-approvals-'));
    store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
    queries = new ProjectionQueries(store);
    const log = everyFlow();
    // Five waiting runs, requested one second apart, of two agents (the fixtures' runs are all agent "putter").
    for (let i = 0; i < 5; i++) {
      const e = untilRoundZeroAnswered(log, `wait-${i}`);
      log.run(e.approvalRequested(0, [APPEND], 'endRun', T0 + 100_000 + i * 1000));
    }
    project(store, log);
  });

  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists every request newest first, then by id, with its calls parsed', () => {
    const { approvals, nextCursor } = queries.listApprovals();
    expect(nextCursor).toBeNull();
    expect(approvals.map((a) => a.approvalId)).toEqual(['wait-4/r0', 'wait-3/r0', 'wait-2/r0', 'wait-1/r0', 'wait-0/r0', 'told/r0', 'ended/r0', 'cancelled/r0', 'approved/r0']);
    expect(approvals[0]).toEqual({
      approvalId: 'wait-4/r0',
      runId: 'wait-4',
      agent: 'putter',
      round: 0,
      calls: [{ stepId: 'wait-4/r0/t1', callIndex: 1, toolName: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', arguments: { value: 'v1' }, requirement: 'write' }],
      onDenial: 'endRun',
      requestedAt: T0 + 104_000,
      state: 'pending',
      decidedBy: null,
      reason: null,
      decidedAt: null,
    });
  });

  it('filters by state, agent, run and time', () => {
    const ids = (query: Parameters<ProjectionQueries['listApprovals']>[0]) => queries.listApprovals(query).approvals.map((a) => a.approvalId);
    expect(ids({ state: 'pending' })).toEqual(['wait-4/r0', 'wait-3/r0', 'wait-2/r0', 'wait-1/r0', 'wait-0/r0']);
    expect(ids({ state: 'approved' })).toEqual(['approved/r0']);
    expect(ids({ state: 'denied' })).toEqual(['told/r0', 'ended/r0']);
    expect(ids({ state: 'cancelled' })).toEqual(['cancelled/r0']);
    expect(ids({ agent: 'putter', runId: 'told' })).toEqual(['told/r0']);
    expect(ids({ agent: 'nobody' })).toEqual([]);
    expect(ids({ since: T0 + 102_000, until: T0 + 104_000 })).toEqual(['wait-3/r0', 'wait-2/r0']);
    expect(ids({ state: 'pending', until: T0 + 101_000 })).toEqual(['wait-0/r0']);
  });

  it('pages with a cursor, ties broken by id, to the same list', () => {
    const all = queries.listApprovals({ limit: 1000 }).approvals.map((a) => a.approvalId);
    for (const limit of [1, 2, 4]) {
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = queries.listApprovals({ limit, cursor });
        expect(page.approvals.length).toBeLessThanOrEqual(limit);
        paged.push(...page.approvals.map((a) => a.approvalId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(paged).toEqual(all);
    }
    const first = queries.listApprovals({ state: 'pending', limit: 2 });
    expect(queries.listApprovals({ state: 'pending', limit: 2, cursor: first.nextCursor ?? undefined }).approvals.map((a) => a.approvalId)).toEqual(['wait-2/r0', 'wait-1/r0']);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ limit: 0 }, 'limit'],
    [{ limit: 1001 }, 'limit'],
    [{ limit: 1.5 }, 'limit'],
    [{ since: '2026-01-01' }, 'since'],
    [{ until: Number.MAX_VALUE }, 'until'],
    [{ state: 'open' }, 'state'],
    [{ cursor: 'not-a-cursor' }, 'cursor'],
    [{ cursor: Buffer.from('[1,"x"]').toString('base64url') }, 'cursor'],
  ])('refuses %j with InvalidQueryError naming %s', (query, option) => {
    expect(() => queries.listApprovals(query as never)).toThrow(expect.objectContaining({ code: 'INVALID_QUERY', option }));
  });

  it('refuses a cursor of listRuns, and listRuns one of listApprovals', () => {
    const runsCursor = queries.listRuns({ limit: 1 }).nextCursor as string;
    const approvalsCursor = queries.listApprovals({ limit: 1 }).nextCursor as string;
    expect(() => queries.listApprovals({ cursor: runsCursor })).toThrow(expect.objectContaining({ option: 'cursor' }));
    expect(() => queries.listRuns({ cursor: approvalsCursor })).toThrow(expect.objectContaining({ option: 'cursor' }));
  });

  it('lists the runs waiting for approval by status, with their wait', () => {
    const waiting = queries.listRuns({ status: 'WAITING_FOR_APPROVAL' }).runs;
    expect(waiting.map((r) => r.runId).sort()).toEqual(['wait-0', 'wait-1', 'wait-2', 'wait-3', 'wait-4']);
    expect(waiting.find((r) => r.runId === 'wait-2')).toMatchObject({ waitingSince: T0 + 102_000, approvalRound: 0, inputStepId: null, leaseOwner: null });
    expect(queries.listRuns({ status: 'WAITING_FOR_INPUT' }).runs).toEqual([]);
    expect(queries.getRun('ended')).toMatchObject({ status: 'FAILED', reason: 'APPROVAL_DENIED' });
  });

  it('counts approval decisions in the audit review totals, for all runs and for one', () => {
    expect(queries.auditReview().totals).toMatchObject({ approvalsGranted: 1, approvalsDenied: 2 });
    expect(queries.auditReview({ runId: 'told' }).totals).toMatchObject({ approvalsGranted: 0, approvalsDenied: 1 });
    expect(queries.auditReview({ runId: 'wait-0' }).totals).toMatchObject({ approvalsGranted: 0, approvalsDenied: 0 });
  });

  it('shows a denied call among the steps of its run', () => {
    expect(queries.getSteps('told').map((s) => [s.stepId, s.status, s.outcome, s.approval, s.auditState])).toEqual([
      ['told/r0/llm', 'completed', 'responded', null, 'recorded'],
      ['told/r0/t0', 'completed', 'succeeded', null, 'recorded'],
      ['told/r0/t1', 'completed', 'denied', 'denied', 'recorded'],
      ['told/r1/llm', 'completed', 'responded', null, 'recorded'],
    ]);
  });
});

describe('a read-model file written before the approval columns existed', () => {
  it('gets the new columns added (null in its old rows) and goes on projecting', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-approvals-old-'));
    const path = join(dir, 'read-models.sqlite');
    try {
      const log = new EventLog();
      untilRoundZeroAnswered(log, 'old');
      const first = ProjectionStore.open({ path });
      first.applyBatch({ slot: TableSlot.LIVE, source: 'runs', projections: first.projections, events: log.recorded(), after: null });
      first.close();
      // As an earlier version left it: without the new columns.
      const db = new Database(path);
      for (const column of ['waiting_since', 'approval_round', 'input_step_id']) db.exec(`ALTER TABLE runs DROP COLUMN ${column}`);
      db.exec('ALTER TABLE steps DROP COLUMN approval');
      db.close();

      const store = ProjectionStore.open({ path });
      try {
        const queries = new ProjectionQueries(store);
        expect(queries.getRun('old')).toMatchObject({ status: 'RUNNING', waitingSince: null, approvalRound: null, inputStepId: null });
        const before = log.recorded();
        const e = runEvents('old');
        log.run(e.approvalRequested(0, [APPEND], 'tellModel'), e.denied(0, [1], 'tellModel'));
        const fresh = log.recorded().slice(before.length);
        const after = before[before.length - 1]?.position ?? null;
        expect(store.applyBatch({ slot: TableSlot.LIVE, source: 'runs', projections: store.projections, events: fresh, after }).kind).toBe('applied');
        expect(queries.getRun('old')).toMatchObject({ status: 'QUEUED' });
        expect(queries.getSteps('old').find((s) => s.stepId === 'old/r0/t1')).toMatchObject({ outcome: 'denied', approval: 'denied' });
        expect(queries.listApprovals({ runId: 'old' }).approvals).toEqual([expect.objectContaining({ state: 'denied' })]);
      } finally {
        store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
