import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/**
 * The store was closed by this process. Thrown by calls made after `close()`,
 * and by open subscriptions (their next `next()` rejects) when the store closes
 * under them.
 */
export class StoreClosedError extends EventStoreError {
  override readonly code = EventStoreErrorCode.STORE_CLOSED;

  constructor() {
    super('Event store is closed');
  }
}
