import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@agent-ledger/domain';
import type { ApprovalRow, ListApprovalsQuery } from '@agent-ledger/projections';
import { ProjectionQueries, ProjectionStore, TableSlot } from '@agent-ledger/projections';
import { EventLog } from '@agent-ledger/projections/testing';
import { runEvents } from '@agent-ledger/projections/testing';
import { listEntitledApprovals } from './entitled-runs';

const T0 = Date.UTC(2026, 0, 1);
const APPEND = { callIndex: 1, toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' as const };

describe('listEntitledApprovals: GET /approvals for a key limited to some agents (on SQLite)', () => {
  let dir: string;
  let store: ProjectionStore;
  let queries: ProjectionQueries;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-entitled-'));
    store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
    queries = new ProjectionQueries(store);
    const log = new EventLog();
    // Twelve requests of three agents, a second apart; two of them share an instant (the id breaks the tie).
    const agents = ['alpha', 'beta', 'gamma'];
    for (let i = 0; i < 12; i++) {
      const runId = `run-${String(i).padStart(2, '0')}`;
      const e = runEvents(runId);
      const requested = e.requested('queued', T0 + i * 1000) as Extract<RunEvent, { type: 'RunRequested' }>;
      const at = i === 7 ? T0 + 100_000 + 6 * 1000 : T0 + 100_000 + i * 1000;
      log.run({ ...requested, data: { ...requested.data, agent: agents[i % 3] as string } }, e.approvalRequested(0, [APPEND], 'endRun', at));
    }
    const outcome = store.applyBatch({ slot: TableSlot.LIVE, source: 'runs', projections: store.projections, events: log.recorded(), after: null });
    expect(outcome.kind).toBe('applied');
  });

  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every page of a listing, following its cursors. */
  function allPages(list: (query: ListApprovalsQuery) => { approvals: readonly ApprovalRow[]; nextCursor: string | null }, query: ListApprovalsQuery): ApprovalRow[][] {
    const pages: ApprovalRow[][] = [];
    let cursor: string | undefined;
    do {
      const page = list({ ...query, cursor });
      pages.push([...page.approvals]);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined && pages.length < 50);
    return pages;
  }

  it('lists the requests of its agents only, in the order and with the cursors of an unlimited listing', () => {
    const unlimited = allPages((q) => queries.listApprovals(q), { limit: 100 }).flat();
    expect(unlimited).toHaveLength(12);
    const expected = unlimited.filter((a) => a.agent === 'alpha' || a.agent === 'gamma').map((a) => a.approvalId);
    for (const limit of [1, 2, 3, 5, 50]) {
      const pages = allPages((q) => listEntitledApprovals(queries, q, ['alpha', 'gamma']), { limit });
      expect(pages.flat().map((a) => a.approvalId)).toEqual(expected);
      expect(pages.every((page) => page.length <= limit)).toBe(true);
    }
    // One agent: the read model's own filter.
    expect(allPages((q) => listEntitledApprovals(queries, q, ['beta']), { limit: 2 }).flat().map((a) => a.agent)).toEqual(['beta', 'beta', 'beta', 'beta']);
  });

  it('gives an empty page for a filter on another agent, and applies the other filters', () => {
    expect(listEntitledApprovals(queries, { agent: 'beta' }, ['alpha', 'gamma'])).toEqual({ approvals: [], nextCursor: null });
    expect(listEntitledApprovals(queries, { agent: 'alpha' }, ['alpha', 'gamma']).approvals.every((a) => a.agent === 'alpha')).toBe(true);
    expect(listEntitledApprovals(queries, { state: 'approved' }, ['alpha', 'gamma']).approvals).toEqual([]);
    expect(listEntitledApprovals(queries, { state: 'pending', since: T0 + 100_000 + 9000 }, ['alpha', 'gamma']).approvals.map((a) => a.runId)).toEqual(['run-11', 'run-09']);
  });

  it('makes cursors the read model accepts (an unlimited listing continues from them)', () => {
    const first = listEntitledApprovals(queries, { limit: 2 }, ['alpha', 'gamma']);
    expect(first.nextCursor).not.toBeNull();
    const next = queries.listApprovals({ cursor: first.nextCursor as string, limit: 1 });
    expect(next.approvals[0]?.requestedAt).toBeLessThanOrEqual(first.approvals[1]?.requestedAt as number);
  });
});
