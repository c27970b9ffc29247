import { AgentLedgerError } from './agent-ledger-error';

/**
 * An event stream gave up reconnecting: `attempts` connections in a row
 * failed (or were dropped) without delivering an event. `cause` is the last
 * failure (an {@link AgentLedgerConnectionError}, an
 * {@link AgentLedgerApiError} of a 5xx, or the stream's `event: error`).
 * `lastEventId` is the id of the last event delivered: a new iteration with
 * `lastEventId` set to it resumes without loss.
 */
export class AgentLedgerStreamError extends AgentLedgerError {
  constructor(
    readonly attempts: number,
    readonly lastEventId: string | null,
    options: { readonly cause: unknown },
  ) {
    super(`The event stream could not be resumed after ${attempts} attempts (last event id: ${lastEventId ?? 'none'}): ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`, options);
  }
}
