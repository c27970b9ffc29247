import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * An operator's statement about an in-flight write could not be stored in the
 * audit trail, so the requeue it belongs to was not made. Retry when the audit
 * store is back.
 */
export class AuditStatementNotStoredError extends AgentLedgerError {
  readonly code = 'AUDIT_STATEMENT_NOT_STORED' as const;
  readonly failureClass = 'connection' as const;

  constructor(
    readonly runId: string,
    readonly stepId: string,
  ) {
    super(`The resolution of write step ${stepId} of run ${runId} could not be stored in the audit trail; nothing was requeued`);
  }
}
