import { AgentLedgerError } from './agent-ledger-error';

/**
 * Why a request got no answer: `network` (the service could not be reached,
 * or the connection broke), `aborted` (the caller's signal), `timeout` (the
 * request's own `timeoutMs`).
 */
export type ConnectionFailure = 'network' | 'aborted' | 'timeout';

/** The service could not be reached, or the request was aborted or timed out: no answer was read. */
export class AgentLedgerConnectionError extends AgentLedgerError {
  constructor(
    readonly reason: ConnectionFailure,
    /** The request: `GET /runs/r1`. */
    readonly request: string,
    options?: { readonly cause?: unknown; readonly detail?: string },
  ) {
    super(`${request}: ${reason === 'network' ? 'the service could not be reached' : reason === 'aborted' ? 'aborted' : 'timed out'}${options?.detail === undefined ? '' : ` (${options.detail})`}`, options);
  }
}
