import type { EventStoreErrorOptions } from './event-store-error';
import { EventStoreError, EventStoreErrorCode } from './event-store-error';

/** Why the store is unavailable. */
export const StoreUnavailableReason = {
  /** Another connection or process held the lock past the busy timeout. Retryable. */
  BUSY: 'busy',
  /** The store is read-only (file permissions, read-only mount, read-only mode). */
  READ_ONLY: 'readOnly',
  /** The store cannot be opened or reached (missing directory, permissions, network). */
  CANNOT_OPEN: 'cannotOpen',
  /** An I/O error occurred while reading or writing. */
  IO_ERROR: 'ioError',
  /**
   * The connection to a server was refused or lost (the server restarted, the
   * network cut). Retryable: an append whose connection was lost during its
   * commit may have been written; repeating it with the same event ids is
   * idempotent.
   */
  CONNECTION_LOST: 'connectionLost',
} as const;

/** Union of the values of {@link StoreUnavailableReason}. */
export type StoreUnavailableReason = (typeof StoreUnavailableReason)[keyof typeof StoreUnavailableReason];

/**
 * The store cannot serve the call right now. For an append, nothing was
 * written (the transaction was rolled back or never began), except with
 * reason `connectionLost`, when the connection may have been lost after the
 * server committed: repeat the append with the same ids (idempotent).
 */
export class StoreUnavailableError extends EventStoreError {
  override readonly code = EventStoreErrorCode.STORE_UNAVAILABLE;
  override readonly retryable: boolean;

  constructor(
    /** Why. */
    readonly reason: StoreUnavailableReason,
    message: string,
    options?: EventStoreErrorOptions,
  ) {
    super(`Event store unavailable (${reason}): ${message}`, options);
    this.retryable = reason === StoreUnavailableReason.BUSY || reason === StoreUnavailableReason.CONNECTION_LOST;
  }
}
