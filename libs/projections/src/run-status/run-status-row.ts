import type { FailureClass, RunMode, RunStatus, TerminationReason } from '@agent-ledger/domain';
import type { TableSpec } from '../core/table-spec';
import { ColumnType } from '../core/table-spec';

/** One run, as the run-status read model shows it (table `runs`). Times are ms since the epoch, from the events. */
export type RunStatusRow = {
  readonly runId: string;
  readonly agent: string;
  readonly mode: RunMode;
  /** As the domain's fold: `QUEUED`, `RUNNING`, `WAITING_FOR_APPROVAL`, `WAITING_FOR_INPUT`, `COMPLETED`, `FAILED`, `CANCELLED`. */
  readonly status: RunStatus;
  /** The termination reason once settled; null before. */
  readonly reason: TerminationReason | null;
  /** The class of the last recorded failure (a requeue or the final failure); null if none. */
  readonly failureClass: FailureClass | null;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  /** For a settled run: whether it was dead-lettered; null before settlement. */
  readonly deadLettered: boolean | null;
  /** Claims so far (the current or last segment's attempt). */
  readonly attempts: number;
  /** Requeues so far (failure retries and stale reclaims). */
  readonly requeues: number;
  /** The lease owner while `RUNNING`; null otherwise. */
  readonly leaseOwner: string | null;
  readonly leaseExpiresAt: number | null;
  /** The step started and not yet completed, if any. */
  readonly currentStepId: string | null;
  /**
   * A write step started and not completed (the write fence). After a requeue
   * or a settlement: the write that was in flight then (its outcome unknown).
   */
  readonly inFlightStepId: string | null;
  readonly cancelRequested: boolean;
  readonly cancelRequestedBy: string | null;
  /**
   * Who started the run: the label of the principal its request records
   * (`key:<id>`, `bus:<id>`, `development`; `unverified:(not recorded)` for a
   * run requested before starts were recorded). Null only in a row an older
   * version wrote, until the read model is rebuilt.
   */
  readonly startedBy: string | null;
  readonly requestedAt: number;
  readonly lastClaimedAt: number | null;
  readonly settledAt: number | null;
  /** The time of the latest event applied (from its payload). */
  readonly updatedAt: number;
  /** Distinct steps, whatever their kind. */
  readonly stepsTotal: number;
  readonly llmSteps: number;
  readonly readOnlySteps: number;
  readonly idempotentWriteSteps: number;
  readonly nonIdempotentWriteSteps: number;
  /** Steps whose missing audit event was detected (`AuditGapDetected`). */
  readonly auditGaps: number;
  /** The last revision of `run-<runId>` applied (diagnostics). */
  readonly streamRevision: number;
  /**
   * While `WAITING_FOR_APPROVAL` or `WAITING_FOR_INPUT`: when the run started
   * to wait (the request's time). Null otherwise.
   */
  readonly waitingSince: number | null;
  /** While `WAITING_FOR_APPROVAL`: the model round whose calls wait for a decision. Null otherwise. */
  readonly approvalRound: number | null;
  /** While `WAITING_FOR_INPUT`: the step of the tool that asked for input. Null otherwise. */
  readonly inputStepId: string | null;
  /** The model's final answer, once `COMPLETED`; null otherwise. */
  readonly finalAnswer: string | null;
  /** For a continuation run: the dead-lettered run it continues (an operator's requeue). Null otherwise. */
  readonly continuationOf: string | null;
  /** Once an operator requeued this dead-lettered run: the continuation run that takes it over. Null otherwise. */
  readonly continuedAs: string | null;
};

/** The run-status table. */
export const RUNS_TABLE: TableSpec<RunStatusRow> = {
  name: 'runs',
  key: 'runId',
  columns: {
    runId: ColumnType.TEXT,
    agent: ColumnType.TEXT,
    mode: ColumnType.TEXT,
    status: ColumnType.TEXT,
    reason: ColumnType.TEXT,
    failureClass: ColumnType.TEXT,
    failureCode: ColumnType.TEXT,
    failureMessage: ColumnType.TEXT,
    deadLettered: ColumnType.BOOLEAN,
    attempts: ColumnType.INTEGER,
    requeues: ColumnType.INTEGER,
    leaseOwner: ColumnType.TEXT,
    leaseExpiresAt: ColumnType.INTEGER,
    currentStepId: ColumnType.TEXT,
    inFlightStepId: ColumnType.TEXT,
    cancelRequested: ColumnType.BOOLEAN,
    cancelRequestedBy: ColumnType.TEXT,
    startedBy: ColumnType.TEXT,
    requestedAt: ColumnType.INTEGER,
    lastClaimedAt: ColumnType.INTEGER,
    settledAt: ColumnType.INTEGER,
    updatedAt: ColumnType.INTEGER,
    stepsTotal: ColumnType.INTEGER,
    llmSteps: ColumnType.INTEGER,
    readOnlySteps: ColumnType.INTEGER,
    idempotentWriteSteps: ColumnType.INTEGER,
    nonIdempotentWriteSteps: ColumnType.INTEGER,
    auditGaps: ColumnType.INTEGER,
    streamRevision: ColumnType.INTEGER,
    waitingSince: ColumnType.INTEGER,
    approvalRound: ColumnType.INTEGER,
    inputStepId: ColumnType.TEXT,
    finalAnswer: ColumnType.TEXT,
    continuationOf: ColumnType.TEXT,
    continuedAs: ColumnType.TEXT,
  },
  indexes: [['requestedAt', 'runId'], ['status', 'requestedAt'], ['agent', 'requestedAt']],
};

/** A step the run-status projection has counted (table `run_status_steps`), so a restarted step is counted once. */
export type CountedStepRow = {
  readonly stepId: string;
  readonly runId: string;
};

/** The steps counted per run. */
export const RUN_STATUS_STEPS_TABLE: TableSpec<CountedStepRow> = {
  name: 'run_status_steps',
  key: 'stepId',
  columns: { stepId: ColumnType.TEXT, runId: ColumnType.TEXT },
};
