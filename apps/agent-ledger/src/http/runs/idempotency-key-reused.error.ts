import { AgentLedgerError } from '@agent-ledger/domain';

/**
 * A client idempotency key came back with a different request (another
 * agent, mode or input) than the one that created its run. Nothing was
 * started; the API answers 409.
 */
export class IdempotencyKeyReusedError extends AgentLedgerError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED' as const;
  readonly failureClass = 'clientError' as const;

  constructor(
    /** The run the key already names. */
    readonly runId: string,
    /** The first field that differs: `agent`, `mode` or `input`. */
    readonly field: 'agent' | 'mode' | 'input',
  ) {
    super(`The idempotency key was already used for run ${runId} with a different ${field}`);
  }
}
