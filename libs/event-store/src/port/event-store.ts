import type { EventData, RecordedEvent } from './event';
import type { ExpectedRevision } from './expected-revision';
import type { Position } from './position';
import type { ReadAllOptions, ReadStreamOptions, ReadStreamResult } from './read-options';
import type { StoreIdentity } from './store-identity';
import type { EventSubscription, SubscribeToAllOptions, SubscribeToStreamOptions } from './subscription';

/** Options of `EventStore.append`. */
export interface AppendOptions {
  /**
   * The stream state the append was decided on. Required: an append without a
   * concurrency check is a choice to write down (`ExpectedRevision.ANY`).
   */
  readonly expectedRevision: ExpectedRevision;
}

/** Result of a successful (or idempotent) append. */
export interface AppendResult {
  /**
   * Revision of the last event of this append in its stream: the expected
   * revision for the next append. For an idempotent re-append, the revision
   * the events already have.
   */
  readonly nextExpectedRevision: bigint;
  /** Position of the last event of this append in `$all`. */
  readonly position: Position;
}

/** Options of `EventStore.deleteStream` and `EventStore.tombstoneStream`. */
export interface DeleteStreamOptions {
  /**
   * The stream state the deletion was decided on.
   * @default ExpectedRevision.ANY
   */
  readonly expectedRevision?: ExpectedRevision;
}

/**
 * The event-store port: everything the product records goes through it. One
 * adapter per store (embedded SQLite, in-memory for unit tests, EventStoreDB),
 * all passing the same contract suite (`testing/event-store-contract.ts`).
 *
 * Streams are named `<category>-<id>` (see `streamName()`). Every call either
 * succeeds or rejects with an `EventStoreError`; no driver error escapes.
 */
export interface EventStore {
  /**
   * Appends events to a stream atomically (all or none), if the stream is at
   * `expectedRevision`.
   *
   * Idempotent for deterministic ids: appending events whose ids are already
   * at the positions the expected revision implies succeeds without writing,
   * returning the existing result (rules in docs/event-store.md).
   *
   * @throws WrongExpectedRevisionError the stream is not at the expected revision; nothing written.
   * @throws InvalidStreamNameError, InvalidEventError, EventTooLargeError, InvalidOptionError bad input; nothing written.
   * @throws StreamDeletedError the stream is tombstoned.
   * @throws StoreUnavailableError, StoreFullError, StoreFailureError, StoreClosedError the store failed; nothing written.
   */
  append(streamName: string, events: readonly EventData[], options: AppendOptions): Promise<AppendResult>;

  /**
   * Reads a stream, forwards or backwards from a revision (inclusive). A stream
   * that does not exist (or is soft-deleted) gives `streamExists: false`.
   *
   * @throws StreamDeletedError the stream is tombstoned.
   */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<ReadStreamResult>;

  /**
   * Reads `$all`, every event of every stream in global order, from a
   * position (inclusive). Pull-based: pages are read as the caller iterates.
   */
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;

  /** Catch-up subscription to one stream: history after `afterRevision`, then live. */
  subscribeToStream(streamName: string, options?: SubscribeToStreamOptions): EventSubscription;

  /** Catch-up subscription to `$all` (optionally filtered): history after `after`, then live. */
  subscribeToAll(options?: SubscribeToAllOptions): EventSubscription;

  /**
   * Soft-deletes a stream, as EventStoreDB does: reads then find no stream, an
   * append with `no_stream` or `any` recreates it, and its revisions continue
   * after the deleted ones. Its events stay in `$all`.
   */
  deleteStream(streamName: string, options?: DeleteStreamOptions): Promise<void>;

  /**
   * Hard-deletes a stream: it can never be read or appended to again
   * (`StreamDeletedError`). Its events stay in `$all`.
   */
  tombstoneStream(streamName: string, options?: DeleteStreamOptions): Promise<void>;

  /**
   * The store's identity ({@link StoreIdentity}): recorded when the store is
   * created and the same ever after, in every process. Concurrent first
   * callers on a new store agree on one. It is not an event: it is in no
   * stream the port reads and not in `$all`.
   *
   * @throws StoreUnavailableError, StoreFailureError, StoreClosedError the store failed.
   */
  storeIdentity(): Promise<StoreIdentity>;

  /**
   * Closes the store: waits for accepted appends to commit, ends open
   * subscriptions (`StoreClosedError`), releases the storage. Idempotent.
   */
  close(): Promise<void>;
}
