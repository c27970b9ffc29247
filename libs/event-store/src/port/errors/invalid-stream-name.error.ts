import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/**
 * The stream name is not acceptable: empty, not a string, or not of the form
 * `<category>-<id>` (see `streamName()`). Nothing was written.
 */
export class InvalidStreamNameError extends EventStoreError {
  override readonly code = EventStoreErrorCode.INVALID_STREAM_NAME;

  constructor(
    /** The rejected name, as given (converted to a string for display). */
    readonly streamName: string,
    /** Why it was rejected, in words. */
    readonly reason: string,
  ) {
    super(`Invalid stream name ${JSON.stringify(streamName)}: ${reason}`);
  }
}
