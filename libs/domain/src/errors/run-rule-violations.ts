import type { RunStatus } from '../run/run-status';
import { AgentLedgerError } from './agent-ledger-error';

/**
 * A command that the run's lifecycle refuses. Nothing was appended. These are
 * the caller's mistakes or races it lost, never a reason to retry the same
 * command (`clientError`).
 */
export abstract class RunRuleViolation extends AgentLedgerError {
  readonly failureClass = 'clientError' as const;

  protected constructor(
    readonly runId: string,
    message: string,
  ) {
    super(message);
  }
}

/** No run with this id was requested. */
export class RunNotFoundError extends RunRuleViolation {
  readonly code = 'RUN_NOT_FOUND' as const;
  constructor(runId: string) {
    super(runId, `Run ${runId} does not exist`);
  }
}

/** A run with this id was already requested. */
export class RunAlreadyExistsError extends RunRuleViolation {
  readonly code = 'RUN_ALREADY_EXISTS' as const;
  constructor(runId: string) {
    super(runId, `Run ${runId} already exists`);
  }
}

/** Why a claim was refused. */
export type NotClaimableReason = 'notQueued' | 'notDue' | 'wrongSegmentKind';

/** The run cannot be claimed now: not queued, not due yet, or not by this kind of segment. */
export class RunNotClaimableError extends RunRuleViolation {
  readonly code = 'RUN_NOT_CLAIMABLE' as const;
  constructor(
    runId: string,
    readonly why: NotClaimableReason,
    readonly status: RunStatus,
    readonly notBefore: number | null,
  ) {
    super(runId, `Run ${runId} cannot be claimed (${why}; status ${status}${notBefore === null ? '' : `, due at ${notBefore}`})`);
  }
}

/** The run is settled; it takes no further command of this kind. */
export class RunAlreadySettledError extends RunRuleViolation {
  readonly code = 'RUN_ALREADY_SETTLED' as const;
  constructor(
    runId: string,
    readonly status: RunStatus,
  ) {
    super(runId, `Run ${runId} is already settled (${status})`);
  }
}

/** The reaper may only take back a running run whose lease has expired. */
export class RunNotReapableError extends RunRuleViolation {
  readonly code = 'RUN_NOT_REAPABLE' as const;
  constructor(
    runId: string,
    readonly status: RunStatus,
    readonly leaseExpiresAt: number | null,
  ) {
    super(runId, `Run ${runId} cannot be reaped (status ${status}${leaseExpiresAt === null ? '' : `, lease valid until ${leaseExpiresAt}`})`);
  }
}

/** The step already completed: a retry must reuse its recorded result, never execute it again. */
export class StepAlreadyCompletedError extends RunRuleViolation {
  readonly code = 'STEP_ALREADY_COMPLETED' as const;
  constructor(
    runId: string,
    readonly stepId: string,
  ) {
    super(runId, `Step ${stepId} already completed; its recorded result must be reused`);
  }
}

/** A result was reported for a step that was never started. */
export class StepNotStartedError extends RunRuleViolation {
  readonly code = 'STEP_NOT_STARTED' as const;
  constructor(
    runId: string,
    readonly stepId: string,
  ) {
    super(runId, `Step ${stepId} was not started`);
  }
}

/** A write is in flight; nothing else may start, and the run may not complete, until its result is recorded. */
export class WriteInFlightError extends RunRuleViolation {
  readonly code = 'WRITE_IN_FLIGHT' as const;
  constructor(
    runId: string,
    readonly inFlightStepId: string,
  ) {
    super(runId, `Write step ${inFlightStepId} of run ${runId} is still in flight`);
  }
}

/** A non-idempotent write step was started once already: it must never execute a second time. */
export class NonIdempotentWriteReplayError extends RunRuleViolation {
  readonly code = 'NON_IDEMPOTENT_WRITE_REPLAY' as const;
  constructor(
    runId: string,
    readonly stepId: string,
  ) {
    super(runId, `Non-idempotent write step ${stepId} was already attempted; it never runs twice`);
  }
}

/** Only a dead-lettered run (FAILED, `deadLettered`) can be requeued by an operator. */
export class RunNotDeadLetteredError extends RunRuleViolation {
  readonly code = 'RUN_NOT_DEAD_LETTERED' as const;
  constructor(
    runId: string,
    readonly status: RunStatus,
  ) {
    super(runId, `Run ${runId} is not dead-lettered (status ${status}); only a dead-lettered run can be requeued`);
  }
}

/** The run was requeued already; its continuation is `continuationRunId`. */
export class RunAlreadyRequeuedError extends RunRuleViolation {
  readonly code = 'RUN_ALREADY_REQUEUED' as const;
  constructor(
    runId: string,
    readonly continuationRunId: string,
  ) {
    super(runId, `Run ${runId} was already requeued as ${continuationRunId}`);
  }
}

/**
 * A `NON_IDEMPOTENT_WRITE` was in flight when the run was dead-lettered:
 * nobody knows whether it happened. A requeue must state how it was resolved.
 */
export class InFlightWriteUnresolvedError extends RunRuleViolation {
  readonly code = 'IN_FLIGHT_WRITE_UNRESOLVED' as const;
  constructor(
    runId: string,
    readonly stepId: string,
    readonly toolName: string,
  ) {
    super(
      runId,
      `Run ${runId} had a NON_IDEMPOTENT_WRITE in flight (${toolName}, step ${stepId}); a requeue must state in "resolution" whether it was executed`,
    );
  }
}

/** What a waiting run waits for. */
export type RunWait = 'approval' | 'input';

/**
 * The run does not wait for this: a decision on a run that is not waiting for
 * approval (a second decision included), or input for a run that asks none.
 */
export class RunNotWaitingError extends RunRuleViolation {
  readonly code: 'RUN_NOT_WAITING_FOR_APPROVAL' | 'RUN_NOT_WAITING_FOR_INPUT';
  constructor(
    runId: string,
    readonly waitingFor: RunWait,
    readonly status: RunStatus,
  ) {
    super(runId, `Run ${runId} is not waiting for ${waitingFor} (status ${status})`);
    this.code = waitingFor === 'approval' ? 'RUN_NOT_WAITING_FOR_APPROVAL' : 'RUN_NOT_WAITING_FOR_INPUT';
  }
}

/** A decision names another approval request than the one the run waits for. */
export class ApprovalRoundMismatchError extends RunRuleViolation {
  readonly code = 'APPROVAL_ROUND_MISMATCH' as const;
  constructor(
    runId: string,
    readonly expectedRound: number,
    readonly waitingRound: number,
  ) {
    super(runId, `Run ${runId} waits for approval of round ${waitingRound}, not of round ${expectedRound}`);
  }
}

/** A write step may start only once approved, by a person or by the agent's pre-approval. */
export class ApprovalRequiredError extends RunRuleViolation {
  readonly code = 'APPROVAL_REQUIRED' as const;
  constructor(
    runId: string,
    readonly stepId: string,
  ) {
    super(runId, `Step ${stepId} of run ${runId} is a write that was not approved`);
  }
}
