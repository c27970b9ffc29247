import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/**
 * An event, or the sum of the events of one append, is larger than the limit
 * (1 MiB by default, EventStoreDB's default maximum append size). Size is the
 * UTF-8 byte length of the serialised `data` + `metadata` + `type`. Nothing was
 * written.
 */
export class EventTooLargeError extends EventStoreError {
  override readonly code = EventStoreErrorCode.EVENT_TOO_LARGE;

  constructor(
    /** Measured size in bytes. */
    readonly size: number,
    /** The limit in bytes. */
    readonly limit: number,
    /** Index of the event over the limit, or `undefined` when the whole append is. */
    readonly eventIndex: number | undefined,
  ) {
    super(
      eventIndex === undefined
        ? `Append too large: ${size} bytes in total, limit ${limit}`
        : `Event #${eventIndex} too large: ${size} bytes, limit ${limit}`,
    );
  }
}
