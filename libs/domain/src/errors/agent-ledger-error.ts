import type { FailureClass } from '../failure/failure-class';

/**
 * The base of every error the domain defines. Each subclass has a literal
 * `code` and typed fields; whether it is retryable is data on the error
 * (`failureClass`), read by the one failure classifier.
 */
export abstract class AgentLedgerError extends Error {
  /** A stable, literal identifier of the error kind (e.g. `AUDIT_PERSISTENCE_FAILED`). */
  abstract readonly code: string;

  /** How the failure classifier treats this error; `unknown` means never retried. */
  abstract readonly failureClass: FailureClass;

  protected constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
