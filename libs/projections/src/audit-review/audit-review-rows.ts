import type { FailureClass, RunStatus, TerminationReason, ToolEffect } from '@agent-ledger/domain';
import type { TableSpec } from '../core/table-spec';
import { ColumnType } from '../core/table-spec';

/**
 * One write step (`IDEMPOTENT_WRITE` or `NON_IDEMPOTENT_WRITE`) and its audit
 * state (table `audit_writes`). Created by whichever of its events is
 * projected first; run-side fields win over the audit event's.
 */
export type AuditWriteRow = {
  readonly stepId: string;
  readonly runId: string;
  readonly toolName: string | null;
  readonly effect: ToolEffect | null;
  readonly idempotencyKey: string | null;
  /** Times the write was started (the fence); more than one after a retried idempotent write. */
  readonly starts: number;
  readonly firstStartedAt: number | null;
  /** When its `ToolExecuted` was recorded; null if it never was (interrupted, or still running). */
  readonly executedAt: number | null;
  readonly outcome: 'succeeded' | 'failed' | null;
  /** The attempt that executed it (`ToolExecuted.attempt`); null if not executed, or projected by an earlier version. */
  readonly executedAttempt: number | null;
  readonly audited: boolean;
  /** The attempt that recorded its `AuditRecorded`: later than `executedAttempt` when it was audited late. */
  readonly auditAttempt: number | null;
  readonly auditSequence: number | null;
  readonly auditRecordedAt: number | null;
  readonly gapDetectedAt: number | null;
  readonly gapDetectedBy: string | null;
  /** Whether the run was already settled when the gap was detected (so it did not fail because of it). */
  readonly gapRunAlreadySettled: boolean | null;
};

/** The writes table. */
export const AUDIT_WRITES_TABLE: TableSpec<AuditWriteRow> = {
  name: 'audit_writes',
  key: 'stepId',
  columns: {
    stepId: ColumnType.TEXT,
    runId: ColumnType.TEXT,
    toolName: ColumnType.TEXT,
    effect: ColumnType.TEXT,
    idempotencyKey: ColumnType.TEXT,
    starts: ColumnType.INTEGER,
    firstStartedAt: ColumnType.INTEGER,
    executedAt: ColumnType.INTEGER,
    outcome: ColumnType.TEXT,
    executedAttempt: ColumnType.INTEGER,
    audited: ColumnType.BOOLEAN,
    auditAttempt: ColumnType.INTEGER,
    auditSequence: ColumnType.INTEGER,
    auditRecordedAt: ColumnType.INTEGER,
    gapDetectedAt: ColumnType.INTEGER,
    gapDetectedBy: ColumnType.TEXT,
    gapRunAlreadySettled: ColumnType.BOOLEAN,
  },
  indexes: [['runId']],
};

/** How a run ended, for the audit review (table `audit_runs`, one row per settled run). */
export type AuditRunRow = {
  readonly runId: string;
  readonly status: RunStatus;
  readonly reason: TerminationReason;
  readonly failureClass: FailureClass | null;
  readonly failureMessage: string | null;
  readonly deadLettered: boolean;
  readonly settledAt: number;
  /** The write in flight at the settlement (`inFlightWrite`), if any. */
  readonly inFlightStepId: string | null;
};

/** The settled runs table. */
export const AUDIT_RUNS_TABLE: TableSpec<AuditRunRow> = {
  name: 'audit_runs',
  key: 'runId',
  columns: {
    runId: ColumnType.TEXT,
    status: ColumnType.TEXT,
    reason: ColumnType.TEXT,
    failureClass: ColumnType.TEXT,
    failureMessage: ColumnType.TEXT,
    deadLettered: ColumnType.BOOLEAN,
    settledAt: ColumnType.INTEGER,
    inFlightStepId: ColumnType.TEXT,
  },
  indexes: [['reason']],
};

/**
 * A write that was in flight when its run was requeued (reaped or failed),
 * failed or cancelled: `RunRequeued` / `RunFailed` / `RunCancelled` with an
 * `inFlightWrite` (table `audit_interruptions`). Its outcome is unknown.
 */
export type AuditInterruptionRow = {
  /** `<runId>@<revision of the run event>`. */
  readonly interruptionId: string;
  readonly runId: string;
  readonly stepId: string;
  readonly toolName: string;
  readonly effect: ToolEffect;
  readonly idempotencyKey: string;
  /** The attempt during which the write was in flight. */
  readonly attempt: number;
  readonly startedAt: number;
  readonly eventType: 'RunRequeued' | 'RunFailed' | 'RunCancelled';
  /** For a requeue: `leaseExpired` (reaped) or `failure`; null otherwise. */
  readonly cause: 'failure' | 'leaseExpired' | null;
  /** For a failure: its termination reason (`WRITE_INTERRUPTED`...); `CANCELLED` for a cancel; null for a requeue. */
  readonly reason: TerminationReason | null;
  readonly at: number;
};

/** The interrupted writes table. */
export const AUDIT_INTERRUPTIONS_TABLE: TableSpec<AuditInterruptionRow> = {
  name: 'audit_interruptions',
  key: 'interruptionId',
  columns: {
    interruptionId: ColumnType.TEXT,
    runId: ColumnType.TEXT,
    stepId: ColumnType.TEXT,
    toolName: ColumnType.TEXT,
    effect: ColumnType.TEXT,
    idempotencyKey: ColumnType.TEXT,
    attempt: ColumnType.INTEGER,
    startedAt: ColumnType.INTEGER,
    eventType: ColumnType.TEXT,
    cause: ColumnType.TEXT,
    reason: ColumnType.TEXT,
    at: ColumnType.INTEGER,
  },
  indexes: [['runId']],
};

/**
 * A person's decision on the calls a run waited to have approved, as its
 * audit record states it (`ApprovalDecisionRecorded`; table
 * `audit_approval_decisions`).
 */
export type AuditApprovalDecisionRow = {
  /** `<runId>@<sequence of the audit record>`. */
  readonly decisionId: string;
  readonly runId: string;
  readonly round: number;
  readonly decision: 'approved' | 'denied';
  /** How many calls the decision covered. */
  readonly calls: number;
  readonly decidedBy: string;
  readonly recordedAt: number;
};

/** The approval decisions table. */
export const AUDIT_APPROVAL_DECISIONS_TABLE: TableSpec<AuditApprovalDecisionRow> = {
  name: 'audit_approval_decisions',
  key: 'decisionId',
  columns: {
    decisionId: ColumnType.TEXT,
    runId: ColumnType.TEXT,
    round: ColumnType.INTEGER,
    decision: ColumnType.TEXT,
    calls: ColumnType.INTEGER,
    decidedBy: ColumnType.TEXT,
    recordedAt: ColumnType.INTEGER,
  },
  indexes: [['runId']],
};

/**
 * Who started a run, for the audit review (table `audit_run_starts`): from the
 * run's `RunRequested`, and whether the run's audit chain states it
 * (`RunStartRecorded`), whichever store is projected first.
 */
export type AuditRunStartRow = {
  readonly runId: string;
  /** The label of the principal that started it (`key:<id>`, `bus:<id>`, `development`, `unverified:<name>`). */
  readonly startedBy: string;
  readonly requestedAt: number;
  /** For a continuation: the dead-lettered run it continues; null otherwise. */
  readonly continuationOf: string | null;
  /** Whether the audit chain holds the statement of the start. */
  readonly stated: boolean;
};

/** The run starts table. */
export const AUDIT_RUN_STARTS_TABLE: TableSpec<AuditRunStartRow> = {
  name: 'audit_run_starts',
  key: 'runId',
  columns: {
    runId: ColumnType.TEXT,
    startedBy: ColumnType.TEXT,
    requestedAt: ColumnType.INTEGER,
    continuationOf: ColumnType.TEXT,
    stated: ColumnType.BOOLEAN,
  },
  indexes: [['startedBy']],
};
