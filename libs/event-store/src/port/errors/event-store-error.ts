/**
 * Every code an {@link EventStoreError} can carry. A literal per error class, so
 * `switch (error.code)` narrows without `instanceof`.
 */
export const EventStoreErrorCode = {
  /** The stream was not at the revision the append (or delete) expected. */
  WRONG_EXPECTED_REVISION: 'WRONG_EXPECTED_REVISION',
  /** The stream name is empty or does not follow `<category>-<id>`. */
  INVALID_STREAM_NAME: 'INVALID_STREAM_NAME',
  /** An event (id, type, data, metadata) is not acceptable; nothing was written. */
  INVALID_EVENT: 'INVALID_EVENT',
  /** An event, or the whole append, is over the size limit; nothing was written. */
  EVENT_TOO_LARGE: 'EVENT_TOO_LARGE',
  /** An option passed to the store (expected revision, max count, filter...) is invalid. */
  INVALID_OPTION: 'INVALID_OPTION',
  /** A position token could not be parsed. */
  INVALID_POSITION: 'INVALID_POSITION',
  /** The stream was tombstoned (hard-deleted): it can neither be read nor written again. */
  STREAM_DELETED: 'STREAM_DELETED',
  /** The store cannot be reached or locked right now (busy, read-only, cannot open). */
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
  /** The storage is full (disk full, or a size cap was reached). */
  STORE_FULL: 'STORE_FULL',
  /** The store was closed by this process. */
  STORE_CLOSED: 'STORE_CLOSED',
  /** Any other failure of the underlying storage (corruption, unexpected driver error). */
  STORE_FAILURE: 'STORE_FAILURE',
} as const;

/** Union of the literal codes in {@link EventStoreErrorCode}. */
export type EventStoreErrorCode = (typeof EventStoreErrorCode)[keyof typeof EventStoreErrorCode];

/** Options common to every {@link EventStoreError}. */
export interface EventStoreErrorOptions {
  /** The driver error (or other error) this one translates. Kept for diagnosis, never for control flow. */
  readonly cause?: unknown;
}

/**
 * Base class of every error an event store adapter throws. No driver error type
 * (better-sqlite3, @eventstore/db-client, gRPC) escapes an adapter: each is
 * translated into a subclass of this one at the adapter's edge, with the driver
 * error kept as `cause`.
 *
 * `retryable` is a hint for the failure classifier: `true` only when the very
 * same call may succeed later without any change (the store was busy). A
 * {@link WrongExpectedRevisionError} is not retryable as such: the caller must
 * re-read the stream and decide again.
 */
export abstract class EventStoreError extends Error {
  /** The literal code of this error class. */
  abstract readonly code: EventStoreErrorCode;
  /**
   * Whether repeating the same call unchanged may succeed.
   * @default false
   */
  readonly retryable: boolean = false;

  protected constructor(message: string, options: EventStoreErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/**
 * Whether `error` is an {@link EventStoreError}, optionally with the given code.
 *
 * @example
 * if (isEventStoreError(e, EventStoreErrorCode.WRONG_EXPECTED_REVISION)) { ...re-read and decide again... }
 */
export function isEventStoreError(error: unknown, code?: EventStoreErrorCode): error is EventStoreError {
  return error instanceof EventStoreError && (code === undefined || error.code === code);
}
