import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/**
 * The stream was tombstoned (hard-deleted, `tombstoneStream`): it can never be
 * read or appended to again, whatever the expected revision.
 */
export class StreamDeletedError extends EventStoreError {
  override readonly code = EventStoreErrorCode.STREAM_DELETED;

  constructor(
    /** The tombstoned stream. */
    readonly streamName: string,
  ) {
    super(`Stream '${streamName}' is deleted (tombstoned)`);
  }
}
