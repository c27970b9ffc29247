import type { ToolEffect } from '../tool-effect/tool-effect';
import { AgentLedgerError } from './agent-ledger-error';

/**
 * A write tool executed, but its audit event could not be stored. The run fails
 * closed and is never re-run: the write already happened once.
 *
 * It carries no failure class of its own, so the classifier maps it to
 * `unknown`: deliberately not retryable, whatever the store error behind it.
 */
export class AuditPersistenceFailedException extends AgentLedgerError {
  readonly code = 'AUDIT_PERSISTENCE_FAILED' as const;
  readonly failureClass = 'unknown' as const;

  constructor(
    readonly runId: string,
    readonly stepId: string,
    readonly toolName: string,
    readonly effect: ToolEffect,
    options?: { cause?: unknown },
  ) {
    super(
      `The audit event of write step ${stepId} (tool ${toolName}, ${effect}) of run ${runId} was not stored; the run fails closed`,
      options,
    );
  }
}
