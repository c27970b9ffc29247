import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/** A position token (a stored checkpoint, an SSE `Last-Event-ID`) could not be parsed. */
export class InvalidPositionError extends EventStoreError {
  override readonly code = EventStoreErrorCode.INVALID_POSITION;

  constructor(
    /** The rejected token. */
    readonly token: string,
  ) {
    super(`Invalid position token ${JSON.stringify(token)}`);
  }
}
