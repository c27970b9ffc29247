/**
 * Why a run ended: a second axis next to its status. The last three are this
 * product's own, so that a write's audit failure or an interrupted write can be
 * told apart from a provider failure when someone reads the record later.
 */
export const TerminationReason = {
  COMPLETED: 'COMPLETED',
  MAX_ITERATIONS: 'MAX_ITERATIONS',
  BUDGET_EXHAUSTED: 'BUDGET_EXHAUSTED',
  POLICY_DENIED: 'POLICY_DENIED',
  APPROVAL_DENIED: 'APPROVAL_DENIED',
  PROVIDER_FAILED: 'PROVIDER_FAILED',
  CANCELLED: 'CANCELLED',
  /** Dead-lettered: the retry budget is spent. */
  RETRIES_EXHAUSTED: 'RETRIES_EXHAUSTED',
  /** Dead-lettered: the failure's class is not retryable. */
  NOT_RETRYABLE: 'NOT_RETRYABLE',
  CONTEXT_TRUNCATED: 'CONTEXT_TRUNCATED',
  /** A write executed but its audit event could not be stored (a refinement of `NOT_RETRYABLE`). */
  AUDIT_PERSISTENCE_FAILED: 'AUDIT_PERSISTENCE_FAILED',
  /** A `NON_IDEMPOTENT_WRITE` was in flight when the run was interrupted (a refinement of `NOT_RETRYABLE`). */
  WRITE_INTERRUPTED: 'WRITE_INTERRUPTED',
  /** The audit-gap saga found a write without its audit event (a refinement of `NOT_RETRYABLE`). */
  AUDIT_MISSING: 'AUDIT_MISSING',
} as const;

/** One of the {@link TerminationReason} values. */
export type TerminationReason = (typeof TerminationReason)[keyof typeof TerminationReason];

/**
 * Reasons that mean "failed, and must not be retried because of what
 * happened": for a queued run, ending with one of these is dead-lettering.
 */
export const DEAD_LETTER_REASONS: ReadonlySet<TerminationReason> = new Set<TerminationReason>([
  TerminationReason.RETRIES_EXHAUSTED,
  TerminationReason.NOT_RETRYABLE,
  TerminationReason.AUDIT_PERSISTENCE_FAILED,
  TerminationReason.WRITE_INTERRUPTED,
  TerminationReason.AUDIT_MISSING,
]);

/**
 * Reasons a segment may give when it fails a run on purpose. They end the run
 * whatever retry budget is left; an error-driven failure gives no reason and
 * the decider chooses between a retry and a dead letter.
 */
export const DELIBERATE_FAILURE_REASONS: ReadonlySet<TerminationReason> = new Set<TerminationReason>([
  TerminationReason.MAX_ITERATIONS,
  TerminationReason.BUDGET_EXHAUSTED,
  TerminationReason.POLICY_DENIED,
  TerminationReason.APPROVAL_DENIED,
  TerminationReason.CONTEXT_TRUNCATED,
  TerminationReason.AUDIT_PERSISTENCE_FAILED,
]);
