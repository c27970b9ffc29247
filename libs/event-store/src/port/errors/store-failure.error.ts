import type { EventStoreErrorOptions } from './event-store-error';
import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/**
 * Any other failure of the underlying storage: corruption, an unexpected
 * driver error. `driverCode` names the driver's code (e.g. `SQLITE_CORRUPT`)
 * for diagnosis; the driver error itself is the `cause`.
 */
export class StoreFailureError extends EventStoreError {
  override readonly code = EventStoreErrorCode.STORE_FAILURE;

  constructor(
    /** The driver's own error code, when it has one. */
    readonly driverCode: string | undefined,
    message: string,
    options?: EventStoreErrorOptions,
  ) {
    super(`Event store failure${driverCode ? ` (${driverCode})` : ''}: ${message}`, options);
  }
}
