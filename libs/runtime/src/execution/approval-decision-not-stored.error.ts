import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A person's approval decision could not be stored in the run's audit trail,
 * so it was not made: the run still waits. Retry when the audit store is back.
 */
export class ApprovalDecisionNotStoredError extends AgentLedgerError {
  readonly code = 'APPROVAL_DECISION_NOT_STORED' as const;
  readonly failureClass = 'connection' as const;

  constructor(
    readonly runId: string,
    readonly round: number,
  ) {
    super(`The approval decision on round ${round} of run ${runId} could not be stored in the audit trail; nothing was decided`);
  }
}
