import type { OnDenial } from '@agent-ledger/domain';
import type { TableSpec } from '../core/table-spec';
import { ColumnType } from '../core/table-spec';

/** Where a request for approval stands. */
export const ApprovalState = {
  /** The run waits for a decision (`ApprovalRequested`). */
  PENDING: 'pending',
  /** A person approved the calls (`ApprovalGranted`). */
  APPROVED: 'approved',
  /** A person denied the calls (`ApprovalDenied`). */
  DENIED: 'denied',
  /** The run was settled while it waited (cancelled, or failed otherwise): nobody decided. */
  CANCELLED: 'cancelled',
} as const;

/** One of the {@link ApprovalState} values. */
export type ApprovalState = (typeof ApprovalState)[keyof typeof ApprovalState];

/** Every approval state, in a fixed order. */
export const APPROVAL_STATES: readonly ApprovalState[] = Object.freeze(Object.values(ApprovalState));

/**
 * One request for approval as stored (table `approvals`): a row per
 * `ApprovalRequested`, keyed by run and round. `calls` is JSON text here;
 * {@link ProjectionQueries.listApprovals} returns it parsed (`ApprovalRow`).
 */
export type StoredApprovalRow = {
  /** `<runId>/r<round>`. */
  readonly approvalId: string;
  readonly runId: string;
  readonly agent: string;
  readonly round: number;
  /** The calls that wait for the decision (`ApprovalCall[]` of the domain), as JSON. */
  readonly calls: string;
  readonly onDenial: OnDenial;
  readonly requestedAt: number;
  readonly state: ApprovalState;
  readonly decidedBy: string | null;
  readonly reason: string | null;
  readonly decidedAt: number | null;
};

/** The approvals table. */
export const APPROVALS_TABLE: TableSpec<StoredApprovalRow> = {
  name: 'approvals',
  key: 'approvalId',
  columns: {
    approvalId: ColumnType.TEXT,
    runId: ColumnType.TEXT,
    agent: ColumnType.TEXT,
    round: ColumnType.INTEGER,
    calls: ColumnType.TEXT,
    onDenial: ColumnType.TEXT,
    requestedAt: ColumnType.INTEGER,
    state: ColumnType.TEXT,
    decidedBy: ColumnType.TEXT,
    reason: ColumnType.TEXT,
    decidedAt: ColumnType.INTEGER,
  },
  indexes: [['requestedAt', 'approvalId'], ['state', 'requestedAt'], ['agent', 'requestedAt'], ['runId']],
};

/**
 * What the approvals model keeps of a run (table `approval_runs`): its agent,
 * from `RunRequested`, and the request that waits for a decision, so that the
 * run's settlement can close it.
 */
export type ApprovalRunRow = {
  readonly runId: string;
  readonly agent: string;
  /** The `approvalId` of the request still pending; null when none is. */
  readonly pendingApprovalId: string | null;
};

/** The runs the approvals model knows. */
export const APPROVAL_RUNS_TABLE: TableSpec<ApprovalRunRow> = {
  name: 'approval_runs',
  key: 'runId',
  columns: { runId: ColumnType.TEXT, agent: ColumnType.TEXT, pendingApprovalId: ColumnType.TEXT },
};

/** The key of a request for approval: `<runId>/r<round>`. */
export function approvalIdOf(runId: string, round: number): string {
  return `${runId}/r${round}`;
}
