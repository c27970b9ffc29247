import { AgentLedgerError } from './agent-ledger-error';

/**
 * A statement was sent for a decision that the run's audit chain already
 * states differently (another decision on the same round, step or
 * continuation). A run holds one decision under each key, so this is never a
 * retry: it is refused, and nothing is recorded.
 */
export class AuditStatementConflictError extends AgentLedgerError {
  readonly code = 'AUDIT_STATEMENT_CONFLICT' as const;
  readonly failureClass = 'unknown' as const;

  constructor(
    readonly runId: string,
    /** The decision, as `statementKey` names it (`approval:<round>`, `input:<stepId>`, `resolution:<stepId>:<continuationRunId>`). */
    readonly decision: string,
  ) {
    super(`The audit chain of run ${runId} already states ${decision} differently; a second, different statement is refused`);
  }
}
