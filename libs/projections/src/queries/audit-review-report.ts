import type { TerminationReason } from '@agent-ledger/domain';
import type { AuditInterruptionRow, AuditRunRow, AuditWriteRow } from '../audit-review/audit-review-rows';

/** A write with what the review derives for it. */
export type AuditWriteView = AuditWriteRow & {
  /**
   * Whether its run failed because of it, and how: `AUDIT_PERSISTENCE_FAILED`
   * (executed, its audit not stored, the run failed closed), `AUDIT_MISSING`
   * (the gap saga found it before the run settled), `WRITE_INTERRUPTED` (in
   * flight when the run was interrupted); null otherwise.
   */
  readonly failedRunReason: TerminationReason | null;
  /** Who started the write's run (the label of its principal); null while its start is not projected yet. */
  readonly runStartedBy: string | null;
};

/** Counts of the audit review. */
export interface AuditReviewTotals {
  /** Write steps started or recorded. */
  readonly writes: number;
  /** Writes with a `ToolExecuted`. */
  readonly writesExecuted: number;
  /** Writes with their `AuditRecorded`. */
  readonly writesAudited: number;
  /** Audited writes whose `AuditRecorded` came from a later attempt than their `ToolExecuted` (the executing segment could not store it). */
  readonly auditedLate: number;
  /** Executed writes without `AuditRecorded`. */
  readonly writesWithoutAudit: number;
  /** Writes whose gap was detected (`AuditGapDetected`). */
  readonly gapsDetected: number;
  /** Runs failed `AUDIT_PERSISTENCE_FAILED`. */
  readonly runsFailedClosed: number;
  /** Runs failed `AUDIT_MISSING`. */
  readonly runsFailedAuditMissing: number;
  /** Runs failed `WRITE_INTERRUPTED`. */
  readonly runsWriteInterrupted: number;
  /** `RunRequeued` / `RunFailed` / `RunCancelled` events that carried an in-flight write. */
  readonly interruptedWrites: number;
  /** Approval decisions recorded in the audit trail (`ApprovalDecisionRecorded`) that approved the calls. */
  readonly approvalsGranted: number;
  /** Approval decisions recorded in the audit trail that denied the calls. */
  readonly approvalsDenied: number;
  /** Runs whose start is known (`RunRequested`, or its statement `RunStartRecorded`). */
  readonly runsStarted: number;
  /** Of those, the runs whose audit chain states who started them (`RunStartRecorded`). */
  readonly runStartsStated: number;
}

/** The audit review: every write and its audit state, and the runs and writes that need a look. */
export interface AuditReviewReport {
  readonly totals: AuditReviewTotals;
  /** Every write (up to the limit), by run then step. */
  readonly writes: readonly AuditWriteView[];
  /** Executed writes without their audit event. */
  readonly writesWithoutAudit: readonly AuditWriteView[];
  /** Writes whose gap was detected. */
  readonly gaps: readonly AuditWriteView[];
  /** Writes audited late: by a later attempt than the one that executed them. */
  readonly auditedLate: readonly AuditWriteView[];
  readonly runsFailedClosed: readonly AuditRunRow[];
  readonly runsFailedAuditMissing: readonly AuditRunRow[];
  /** Writes in flight when their run was requeued (reaped or failed), failed or cancelled. */
  readonly interruptedWrites: readonly AuditInterruptionRow[];
}

/** Options of {@link ProjectionQueries.auditReview}. */
export interface AuditReviewQuery {
  /** Only this run. @default every run */
  readonly runId?: string;
  /**
   * Most rows in each list (totals are always complete), 1 to 100000.
   * @default 1000
   */
  readonly limit?: number;
}
