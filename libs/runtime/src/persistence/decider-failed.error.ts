import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A decider threw instead of answering a decision: a bug, since a decider
 * answers a refused command with a `rejected` decision. Nothing was appended.
 * Never retried (`unknown`): a run whose command met it fails closed.
 */
export class DeciderFailedError extends AgentLedgerError {
  readonly code = 'DECIDER_FAILED' as const;
  readonly failureClass = 'unknown' as const;

  constructor(
    /** The stream the command was decided for. */
    readonly stream: string,
    /** The command's `type`. */
    readonly commandType: string,
    cause: unknown,
  ) {
    super(`The decider threw on ${commandType} for ${stream}, a bug (a refused command is a rejected decision); nothing was appended: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}
