import type { TerminationReason } from '../run/termination-reason';
import type { ToolEffect } from '../tool-effect/tool-effect';
import type { AuditChainBreak } from './audit-chain';

/** A break in one run's audit chain. */
export interface RunChainBreak extends AuditChainBreak {
  readonly runId: string;
}

/** What verifying every audit chain of a store found (the chains' part of a verdict). */
export interface AuditStoreVerification {
  /** Runs with at least one audit record. */
  readonly runs: number;
  /** Audit records checked. */
  readonly records: number;
  /** Runs whose chain has at least one break. */
  readonly brokenRuns: readonly string[];
  readonly breaks: readonly RunChainBreak[];
}

/** A write (`ToolExecuted` of either write effect) read from the run store, with its audit as the audit store holds it. */
export interface StoreWrite {
  readonly runId: string;
  readonly stepId: string;
  readonly toolName: string;
  readonly effect: ToolEffect;
  /** The attempt (segment) that executed it (`ToolExecuted.attempt`). */
  readonly executedAttempt: number;
  readonly executedAt: number;
  /** The attempt that recorded its `AuditRecorded`; null when the audit store holds none. */
  readonly auditAttempt: number | null;
}

/** Why a write without its audit is still allowed by the contract (invariant 3), or null when nothing allows it. */
export type UnauditedWriteAllowance =
  /** Its run failed as not retryable (`RunFailed` with a dead-letter reason: `AUDIT_PERSISTENCE_FAILED`, `AUDIT_MISSING`, ...). */
  | 'failedClosed'
  /** Its run was cancelled naming it as the write in flight. */
  | 'cancelledInFlight';

/** An executed write of a settled run whose `AuditRecorded` is not in the audit store. */
export interface StoreWriteWithoutAudit extends StoreWrite {
  /** How its run ended (`RunCompleted` is `COMPLETED`, `RunCancelled` is `CANCELLED`, `RunFailed` its reason). */
  readonly runEnd: TerminationReason;
  /** What allows it under invariant 3; null: nothing does, the audit is missing (deleted, or in another store). */
  readonly allowedBy: UnauditedWriteAllowance | null;
}

/** The counts of an {@link AuditStoreVerdict} (always complete, whatever the lists' limit). */
export interface AuditVerdictTotals {
  /** Writes with a `ToolExecuted` in the run store. */
  readonly writesExecuted: number;
  /** Of those, writes whose `AuditRecorded` is in the audit store. */
  readonly writesAudited: number;
  /** Of the audited, writes audited late: by a later attempt than the one that executed them. */
  readonly auditedLate: number;
  /** Executed writes of settled runs without their `AuditRecorded` in the audit store (listed; a finding only when nothing allows it). */
  readonly writesWithoutAudit: number;
  /** Of those, writes that nothing in the contract allows (invariant 3 is broken): a finding. */
  readonly writesWithoutAuditNotAllowed: number;
  /** Executed writes of runs not settled yet whose audit is not stored yet (not a finding: the audit-gap saga watches them). */
  readonly writesAwaitingAudit: number;
  /** Settled runs with an executed write that nothing allows to be unaudited, and no audit record at all in the audit store (the mark of another audit store). */
  readonly runsWithoutAuditStream: number;
  /** Runs with audit records that the run store does not know (a finding: the two stores do not belong together). */
  readonly auditedRunsUnknownToRunStore: number;
}

/**
 * The integrity verdict of the audit, read from the stores (never from a read
 * model): every audit chain verified end to end (the fields of
 * {@link AuditStoreVerification}), and every executed write of the run store
 * matched to its `AuditRecorded` in the audit store.
 */
export interface AuditStoreVerdict extends AuditStoreVerification {
  /**
   * Whether the audit's integrity is in doubt: a broken chain, an executed
   * write without its audit in the store that the contract does not allow
   * (its run neither failed closed nor was cancelled naming it), audits of
   * runs the run store does not know.
   */
  readonly findings: boolean;
  /** One sentence per kind of finding (empty when there is none). */
  readonly problems: readonly string[];
  readonly totals: AuditVerdictTotals;
  /** Executed writes of settled runs without their audit, by run then step, allowed or not (at most the limit). */
  readonly writesWithoutAudit: readonly StoreWriteWithoutAudit[];
  /** Writes audited by a later attempt than the one that executed them (at most the limit). */
  readonly auditedLate: readonly StoreWrite[];
  /** Executed writes of runs not settled yet, whose audit is not stored yet (at most the limit). */
  readonly writesAwaitingAudit: readonly StoreWrite[];
  /** Runs with audit records that the run store does not know (at most the limit). */
  readonly auditedRunsUnknownToRunStore: readonly string[];
  /** How this verdict was reached. */
  readonly verification: AuditVerificationInfo;
}

/** How a verdict was reached: a full pass over both stores, or from a verified checkpoint. */
export interface AuditVerificationInfo {
  /** `full`: both stores read from their first event; `incremental`: from the checkpoint, after checking audit heads (see `headsChecked`). */
  readonly mode: 'full' | 'incremental';
  /** Why a full pass ran instead of an incremental one (null for an incremental one). */
  readonly fullBecause: string | null;
  /** Events read from the run store and the audit store by this verification. */
  readonly eventsRead: number;
  /**
   * Audit heads re-read and re-hashed to check the checkpoint: a bounded
   * number per review, rotating over every run's head from one review to the
   * next, and the head of each run the new events touch (0 for a full pass).
   */
  readonly headsChecked: number;
  /**
   * Rounds of the rotating head check completed since the last full pass
   * (each round re-read every audit head of the checkpoint once; 0 for a full
   * pass, and until the first round is done).
   */
  readonly headRounds: number;
  /**
   * Where the checkpoint an incremental review continued from was kept: this
   * process's memory, or the checkpoint file beside the read models (the
   * first review of a process); null for a full pass.
   */
  readonly checkpoint: 'memory' | 'file' | null;
  readonly durationMs: number;
}
