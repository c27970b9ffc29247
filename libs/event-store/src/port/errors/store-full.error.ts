import type { EventStoreErrorOptions } from './event-store-error';
import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/**
 * The storage is full (disk full, a quota, or a size cap). Nothing of the
 * failed append was written; reads go on.
 *
 * Not `retryable`: the same call succeeds again only once someone frees
 * space, like a read-only file and unlike a busy lock that clears by itself.
 * The runtime records a run whose step meets it as failed with class
 * `unknown` and code `STORE_FULL` (`NOT_RETRYABLE`; a queued run is
 * dead-lettered, for an operator to requeue once space is back) when that
 * failure still fits in the store; when not even the failure fits, the
 * segment is abandoned and the reaper requeues the run once its lease
 * expired and the store takes writes again. See docs/event-store.md ("Faults").
 */
export class StoreFullError extends EventStoreError {
  override readonly code = EventStoreErrorCode.STORE_FULL;

  constructor(message: string, options?: EventStoreErrorOptions) {
    super(`Event store full: ${message}`, options);
  }
}
