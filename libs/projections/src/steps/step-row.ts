import type { FailureClass, StepKind, ToolEffect } from '@agent-ledger/domain';
import type { TableSpec } from '../core/table-spec';
import { ColumnType } from '../core/table-spec';

/** Where a step's audit event stands. */
export const StepAuditState = {
  /** Its `AuditRecorded` is stored. */
  RECORDED: 'recorded',
  /** No audit event, and the audit-gap saga recorded the gap (`AuditGapDetected`). */
  MISSING: 'missing',
  /** No audit event (yet): the step is running, its audit is on its way, or it was fail-soft and lost. */
  PENDING: 'pending',
} as const;

/** One of the {@link StepAuditState} values. */
export type StepAuditState = (typeof StepAuditState)[keyof typeof StepAuditState];

/**
 * One step of a run (table `steps`). A row may be created by its audit event
 * before its run events are projected (a separate audit store): the run-side
 * fields are then null until they arrive, and the run side's values win.
 */
export type StepRow = {
  readonly stepId: string;
  readonly runId: string;
  readonly round: number | null;
  /** The tool call's position in the round; null for a model call. */
  readonly callIndex: number | null;
  readonly kind: StepKind | null;
  readonly toolName: string | null;
  readonly effect: ToolEffect | null;
  readonly idempotencyKey: string | null;
  /** `started` until `ModelResponded` / `ToolExecuted`; null if only its audit event is known. */
  readonly status: 'started' | 'completed' | null;
  /** `succeeded` / `failed` for a tool, `responded` for a model call; null until completed. */
  readonly outcome: 'succeeded' | 'failed' | 'responded' | null;
  /** How many times it was started (more than once after a retry of an in-flight write). */
  readonly starts: number;
  /** The attempt (claim) of its last start. */
  readonly attempt: number | null;
  readonly firstStartedAt: number | null;
  readonly lastStartedAt: number | null;
  readonly completedAt: number | null;
  readonly errorClass: FailureClass | null;
  readonly errorMessage: string | null;
  /** Derived from the three facts below, whatever the order they arrived in. */
  readonly auditState: StepAuditState;
  readonly auditSequence: number | null;
  readonly auditOutcome: 'succeeded' | 'failed' | 'responded' | null;
  readonly auditRecordedAt: number | null;
  readonly gapDetectedAt: number | null;
};

/** The steps table. */
export const STEPS_TABLE: TableSpec<StepRow> = {
  name: 'steps',
  key: 'stepId',
  columns: {
    stepId: ColumnType.TEXT,
    runId: ColumnType.TEXT,
    round: ColumnType.INTEGER,
    callIndex: ColumnType.INTEGER,
    kind: ColumnType.TEXT,
    toolName: ColumnType.TEXT,
    effect: ColumnType.TEXT,
    idempotencyKey: ColumnType.TEXT,
    status: ColumnType.TEXT,
    outcome: ColumnType.TEXT,
    starts: ColumnType.INTEGER,
    attempt: ColumnType.INTEGER,
    firstStartedAt: ColumnType.INTEGER,
    lastStartedAt: ColumnType.INTEGER,
    completedAt: ColumnType.INTEGER,
    errorClass: ColumnType.TEXT,
    errorMessage: ColumnType.TEXT,
    auditState: ColumnType.TEXT,
    auditSequence: ColumnType.INTEGER,
    auditOutcome: ColumnType.TEXT,
    auditRecordedAt: ColumnType.INTEGER,
    gapDetectedAt: ColumnType.INTEGER,
  },
  indexes: [['runId', 'round', 'callIndex']],
};
