import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * An operator's requeue took effect on the run (`RunRequeuedByOperator`
 * names the continuation), but its statement about the write that was in
 * flight could not be stored in the run's audit chain, so the continuation
 * was not started: nothing the requeue allows happens before its statement is
 * stored. Repeat the requeue when the audit store is back: it stores the
 * statement (once) and starts the continuation.
 */
export class AuditStatementNotStoredError extends AgentLedgerError {
  readonly code = 'AUDIT_STATEMENT_NOT_STORED' as const;
  readonly failureClass = 'connection' as const;

  constructor(
    readonly runId: string,
    readonly stepId: string,
    readonly continuationRunId: string,
  ) {
    super(
      `Run ${runId} is requeued as ${continuationRunId}, but the resolution of write step ${stepId} could not be stored in the audit trail; ` +
        'the continuation is not started: repeat the requeue to complete it',
    );
  }
}
