import type { EventStoreErrorOptions } from './event-store-error';
import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/** The storage is full (disk full, or a configured size cap). Nothing of the failed append was written. */
export class StoreFullError extends EventStoreError {
  override readonly code = EventStoreErrorCode.STORE_FULL;

  constructor(message: string, options?: EventStoreErrorOptions) {
    super(`Event store full: ${message}`, options);
  }
}
