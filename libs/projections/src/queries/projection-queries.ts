import type { EventStore, Position } from '@agent-ledger/event-store';
import { comparePositions, Direction } from '@agent-ledger/event-store';
import type { ApprovalCall } from '@agent-ledger/domain';
import { APPROVAL_STATES, APPROVALS_TABLE } from '../approvals/approval-rows';
import type { AuditInterruptionRow, AuditRunRow } from '../audit-review/audit-review-rows';
import { AUDIT_INTERRUPTIONS_TABLE, AUDIT_RUNS_TABLE, AUDIT_WRITES_TABLE } from '../audit-review/audit-review-rows';
import type { Row, TableSpec } from '../core/table-spec';
import { InvalidQueryError } from '../errors/invalid-query.error';
import type { RunStatusRow } from '../run-status/run-status-row';
import { RUNS_TABLE } from '../run-status/run-status-row';
import type { ProjectionSource } from '../runner/projection-source';
import { PROJECTED_EVENTS_FILTER } from '../runner/projection-source';
import type { StepRow } from '../steps/step-row';
import { STEPS_TABLE } from '../steps/step-row';
import type { ProjectionStore } from '../store/projection-store';
import { fromSqlRecord } from '../store/sql-table';
import type { AuditReviewQuery, AuditReviewReport, AuditReviewTotals, AuditWriteView } from './audit-review-report';
import type { ApprovalPage, ApprovalRow, ListApprovalsQuery } from './approval-list-query';
import type { ProjectionStatusEntry } from './projection-status';
import type { PageCursor, PagedList } from './page-cursor';
import { decodePageCursor, encodePageCursor } from './page-cursor';
import type { ListRunsQuery, RunPage } from './run-list-query';

/** A SQL condition with its `?` values. */
type SqlFilter = readonly [sql: string, ...values: Array<string | number>];

const WRITE_VIEW_SQL = `
  SELECT w.*, CASE
    WHEN r.reason = 'AUDIT_PERSISTENCE_FAILED' AND w.executed_at IS NOT NULL AND w.audited = 0 THEN r.reason
    WHEN r.reason = 'AUDIT_MISSING' AND w.gap_detected_at IS NOT NULL AND w.gap_run_already_settled = 0 THEN r.reason
    WHEN r.reason = 'WRITE_INTERRUPTED' AND r.in_flight_step_id = w.step_id THEN r.reason
    ELSE NULL END AS failed_run_reason, s.started_by AS run_started_by
  FROM audit_writes w LEFT JOIN audit_runs r ON r.run_id = w.run_id LEFT JOIN audit_run_starts s ON s.run_id = w.run_id`;

/** A write audited late: its `AuditRecorded` came from a later attempt than its `ToolExecuted`. */
function auditedLateSql(table = ''): string {
  return `${table}audited = 1 AND ${table}executed_attempt IS NOT NULL AND ${table}audit_attempt > ${table}executed_attempt`;
}

/**
 * The read side of the projections: typed rows from the live tables. Reads
 * never wait for a runner or a rebuild; during a rebuild they answer from the
 * live tables until the swap.
 */
export class ProjectionQueries {
  constructor(
    private readonly store: ProjectionStore,
    private readonly sources: readonly ProjectionSource[] = [],
  ) {}

  /** One run's status row, or null if its `RunRequested` was not projected. */
  getRun(runId: string): RunStatusRow | null {
    const record = this.db.prepare('SELECT * FROM runs WHERE run_id = ?').get(runId) as Record<string, unknown> | undefined;
    return record === undefined ? null : fromSqlRecord(RUNS_TABLE, record);
  }

  /**
   * Runs, newest first (`requestedAt` descending, then run id), filtered, a page at a time.
   * @throws InvalidQueryError for a bad limit or cursor
   */
  listRuns(query: ListRunsQuery = {}): RunPage {
    const filters: SqlFilter[] = [];
    if (query.status !== undefined) filters.push(['status = ?', query.status]);
    if (query.reason !== undefined) filters.push(['reason = ?', query.reason]);
    if (query.agent !== undefined) filters.push(['agent = ?', query.agent]);
    const page = this.newestFirst({ list: 'listRuns', table: 'runs', idColumn: 'run_id' }, filters, query);
    const runs = page.records.map((r) => fromSqlRecord(RUNS_TABLE, r));
    return { runs, nextCursor: page.cursorAfter(runs.at(-1), (run) => ({ requestedAt: run.requestedAt, id: run.runId })) };
  }

  /**
   * Requests for approval, newest first (`requestedAt` descending, then
   * `approvalId`), filtered, a page at a time. `{ state: 'pending' }` lists
   * the runs waiting for a decision now.
   * @throws InvalidQueryError for a bad state, time, limit or cursor
   */
  listApprovals(query: ListApprovalsQuery = {}): ApprovalPage {
    const filters: SqlFilter[] = [];
    if (query.state !== undefined) {
      if (!(APPROVAL_STATES as readonly unknown[]).includes(query.state)) throw new InvalidQueryError('state', `expected one of ${APPROVAL_STATES.join(', ')}`);
      filters.push(['state = ?', query.state]);
    }
    if (query.agent !== undefined) filters.push(['agent = ?', query.agent]);
    if (query.runId !== undefined) filters.push(['run_id = ?', query.runId]);
    const page = this.newestFirst({ list: 'listApprovals', table: 'approvals', idColumn: 'approval_id' }, filters, query);
    const approvals = page.records.map(toApprovalRow);
    return { approvals, nextCursor: page.cursorAfter(approvals.at(-1), (row) => ({ requestedAt: row.requestedAt, id: row.approvalId })) };
  }

  /**
   * One page of a table listed newest first (`requested_at` descending, then
   * its id column), with the filters, the time window and the cursor of
   * `query`; `limit` rows at most (1 to 1000, default 50).
   */
  private newestFirst(
    from: { readonly list: PagedList; readonly table: string; readonly idColumn: string },
    filters: readonly SqlFilter[],
    query: { readonly since?: number; readonly until?: number; readonly limit?: number; readonly cursor?: string },
  ): { records: Record<string, unknown>[]; cursorAfter<R>(last: R | undefined, keyOf: (row: R) => PageCursor): string | null } {
    const limit = query.limit ?? 50;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw new InvalidQueryError('limit', 'expected an integer from 1 to 1000');
    const all: SqlFilter[] = [...filters];
    if (query.since !== undefined) all.push(['requested_at >= ?', timeOption(query.since, 'since')]);
    if (query.until !== undefined) all.push(['requested_at < ?', timeOption(query.until, 'until')]);
    if (query.cursor !== undefined) {
      const cursor = decodePageCursor(from.list, query.cursor);
      all.push([`(requested_at < ? OR (requested_at = ? AND ${from.idColumn} < ?))`, cursor.requestedAt, cursor.requestedAt, cursor.id]);
    }
    const where = all.length > 0 ? `WHERE ${all.map(([sql]) => sql).join(' AND ')}` : '';
    const sql = `SELECT * FROM ${from.table} ${where} ORDER BY requested_at DESC, ${from.idColumn} DESC LIMIT ?`;
    const records = this.db.prepare(sql).all(...all.flatMap(([, ...values]) => values), limit + 1) as Record<string, unknown>[];
    const more = records.length > limit;
    return {
      records: records.slice(0, limit),
      cursorAfter: (last, keyOf) => (more && last !== undefined ? encodePageCursor(from.list, keyOf(last)) : null),
    };
  }

  /** The steps of a run, by round then call (the model call of a round first). */
  getSteps(runId: string): StepRow[] {
    const records = this.db.prepare('SELECT * FROM steps WHERE run_id = ? ORDER BY round, call_index, step_id').all(runId) as Record<string, unknown>[];
    return records.map((r) => fromSqlRecord(STEPS_TABLE, r));
  }

  /**
   * The audit review: totals, every write with its audit state and whether
   * its run failed because of it, runs failed closed (`AUDIT_PERSISTENCE_FAILED`)
   * or `AUDIT_MISSING`, detected gaps, and writes in flight when a run was
   * requeued, failed or cancelled.
   */
  auditReview(query: AuditReviewQuery = {}): AuditReviewReport {
    const limit = query.limit ?? 1000;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100_000) throw new InvalidQueryError('limit', 'expected an integer from 1 to 100000');
    const runFilter = query.runId === undefined ? '' : 'run_id = ?';
    const runParams = query.runId === undefined ? [] : [query.runId];
    const writes = (condition: string): AuditWriteView[] => {
      const conditions = [condition, runFilter.replace('run_id', 'w.run_id')].filter((c) => c.length > 0);
      const sql = `${WRITE_VIEW_SQL} ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY w.run_id, w.step_id LIMIT ?`;
      return (this.db.prepare(sql).all(...runParams, limit) as Record<string, unknown>[]).map(toWriteView);
    };
    const runs = (reason: string): AuditRunRow[] => {
      const sql = `SELECT * FROM audit_runs WHERE reason = ? ${runFilter.length > 0 ? `AND ${runFilter}` : ''} ORDER BY settled_at, run_id LIMIT ?`;
      return rowsOf(AUDIT_RUNS_TABLE, this.db.prepare(sql).all(reason, ...runParams, limit) as Record<string, unknown>[]);
    };
    const interruptions = rowsOf(
      AUDIT_INTERRUPTIONS_TABLE,
      this.db
        .prepare(`SELECT * FROM audit_interruptions ${runFilter.length > 0 ? `WHERE ${runFilter}` : ''} ORDER BY at, interruption_id LIMIT ?`)
        .all(...runParams, limit) as Record<string, unknown>[],
    ) as AuditInterruptionRow[];
    return {
      totals: this.auditTotals(runFilter, runParams),
      writes: writes(''),
      writesWithoutAudit: writes('w.executed_at IS NOT NULL AND w.audited = 0'),
      gaps: writes('w.gap_detected_at IS NOT NULL'),
      auditedLate: writes(auditedLateSql('w.')),
      runsFailedClosed: runs('AUDIT_PERSISTENCE_FAILED'),
      runsFailedAuditMissing: runs('AUDIT_MISSING'),
      interruptedWrites: interruptions,
    };
  }

  /**
   * Every projection's checkpoint in every source, and how it stands against
   * the source's head (one backwards read of one event per source).
   */
  async projectionStatus(): Promise<ProjectionStatusEntry[]> {
    const heads = new Map<string, Position | null>();
    for (const source of this.sources) heads.set(source.name, await headPosition(source.store));
    const entries: ProjectionStatusEntry[] = [];
    const checkpoints = this.store.checkpoints();
    const sourceNames = [...new Set([...this.sources.map((s) => s.name), ...checkpoints.map((c) => c.source)])];
    for (const definition of this.store.projections) {
      const rebuilding = this.store.hasRebuildTables(definition.name);
      for (const source of sourceNames) {
        const checkpoint = checkpoints.find((c) => c.projection === definition.name && c.source === source);
        const position = checkpoint?.position ?? null;
        const known = heads.has(source);
        const head = heads.get(source) ?? null;
        entries.push({
          projection: definition.name,
          source,
          position,
          eventsApplied: checkpoint?.eventsApplied ?? 0,
          updatedAt: checkpoint?.updatedAt ?? null,
          headPosition: head,
          caughtUp: !known ? null : head === null ? true : position !== null && comparePositions(position, head) >= 0,
          rebuilding,
        });
      }
    }
    return entries;
  }

  private auditTotals(runFilter: string, runParams: readonly string[]): AuditReviewTotals {
    const where = runFilter.length > 0 ? `WHERE ${runFilter}` : '';
    const w = this.db
      .prepare(
        `SELECT count(*) AS writes,
           count(executed_at) AS writes_executed,
           coalesce(sum(audited), 0) AS writes_audited,
           coalesce(sum(CASE WHEN executed_at IS NOT NULL AND audited = 0 THEN 1 ELSE 0 END), 0) AS writes_without_audit,
           count(gap_detected_at) AS gaps_detected,
           coalesce(sum(CASE WHEN ${auditedLateSql()} THEN 1 ELSE 0 END), 0) AS audited_late
         FROM audit_writes ${where}`,
      )
      .get(...runParams) as Record<string, number>;
    const r = this.db
      .prepare(
        `SELECT coalesce(sum(reason = 'AUDIT_PERSISTENCE_FAILED'), 0) AS closed,
           coalesce(sum(reason = 'AUDIT_MISSING'), 0) AS missing,
           coalesce(sum(reason = 'WRITE_INTERRUPTED'), 0) AS interrupted
         FROM audit_runs ${where}`,
      )
      .get(...runParams) as Record<string, number>;
    const i = this.db.prepare(`SELECT count(*) AS n FROM audit_interruptions ${where}`).get(...runParams) as { n: number };
    const s = this.db.prepare(`SELECT count(*) AS started, coalesce(sum(stated), 0) AS stated FROM audit_run_starts ${where}`).get(...runParams) as Record<string, number>;
    const a = this.db
      .prepare(
        `SELECT coalesce(sum(decision = 'approved'), 0) AS granted,
           coalesce(sum(decision = 'denied'), 0) AS denied
         FROM audit_approval_decisions ${where}`,
      )
      .get(...runParams) as Record<string, number>;
    return {
      writes: w.writes ?? 0,
      writesExecuted: w.writes_executed ?? 0,
      writesAudited: w.writes_audited ?? 0,
      auditedLate: w.audited_late ?? 0,
      writesWithoutAudit: w.writes_without_audit ?? 0,
      gapsDetected: w.gaps_detected ?? 0,
      runsFailedClosed: r.closed ?? 0,
      runsFailedAuditMissing: r.missing ?? 0,
      runsWriteInterrupted: r.interrupted ?? 0,
      interruptedWrites: i.n,
      approvalsGranted: a.granted ?? 0,
      approvalsDenied: a.denied ?? 0,
      runsStarted: s.started ?? 0,
      runStartsStated: s.stated ?? 0,
    };
  }

  private get db() {
    return this.store.database;
  }
}

function toWriteView(record: Record<string, unknown>): AuditWriteView {
  return {
    ...fromSqlRecord(AUDIT_WRITES_TABLE, record),
    failedRunReason: (record.failed_run_reason ?? null) as AuditWriteView['failedRunReason'],
    runStartedBy: (record.run_started_by ?? null) as string | null,
  };
}

function toApprovalRow(record: Record<string, unknown>): ApprovalRow {
  const stored = fromSqlRecord(APPROVALS_TABLE, record);
  return { ...stored, calls: JSON.parse(stored.calls) as ApprovalCall[] };
}

function rowsOf<R extends Row>(table: TableSpec<R>, records: readonly Record<string, unknown>[]): R[] {
  return records.map((r) => fromSqlRecord(table, r));
}

function timeOption(value: unknown, option: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new InvalidQueryError(option, 'expected ms since the epoch (an integer)');
  return value;
}

async function headPosition(store: EventStore): Promise<Position | null> {
  for await (const event of store.readAll({ direction: Direction.BACKWARDS, fromPosition: 'end', maxCount: 1, filter: PROJECTED_EVENTS_FILTER })) {
    return event.position;
  }
  return null;
}
