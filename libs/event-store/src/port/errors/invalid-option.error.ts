import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/** An option passed to a store call or to an adapter's constructor is invalid. */
export class InvalidOptionError extends EventStoreError {
  override readonly code = EventStoreErrorCode.INVALID_OPTION;

  constructor(
    /** Qualified option name, e.g. `expectedRevision`, `filter.streamNamePrefixes`, `sqlite.path`. */
    readonly option: string,
    /** Why, in words. */
    readonly reason: string,
  ) {
    super(`Invalid option ${option}: ${reason}`);
  }
}
