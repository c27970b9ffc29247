import { AgentLedgerError } from './agent-ledger-error';

/**
 * A command, an option or a declaration has a field with a bad value. The
 * message names the field; nothing was written.
 */
export class InvalidFieldError extends AgentLedgerError {
  readonly code = 'INVALID_FIELD' as const;
  readonly failureClass = 'clientError' as const;

  constructor(
    /** The field's path, e.g. `data.round` or `leaseSeconds`. */
    readonly field: string,
    /** What is wrong with it, e.g. `must be a non-negative integer`. */
    readonly problem: string,
  ) {
    super(`${field} ${problem}`);
  }
}
