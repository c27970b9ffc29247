import type { RecordedEvent } from './event';
import type { EventFilter } from './event-filter';
import type { Position } from './position';

/**
 * A catch-up subscription: an `AsyncIterable` of recorded events that first
 * delivers the history after the start point, then live events as they are
 * appended, in order, with no gap and no duplicate between the two.
 *
 * It is pull-based: the adapter reads the next page of at most `batchSize`
 * events only when the consumer asks for the next event, so a slow consumer
 * makes the subscription slow, never the process's memory grow.
 *
 * End it with `close()`, the `signal` given at creation, or `break` out of
 * `for await` (which calls `return()`). It is single-consumer: iterate it once.
 *
 * @remarks If the store fails, `next()` rejects with an `EventStoreError` and
 * the subscription is over; resubscribe from the last processed position. When
 * the store is closed under it, `next()` rejects with `StoreClosedError`.
 */
export interface EventSubscription extends AsyncIterable<RecordedEvent> {
  /** Ends the subscription; a pending `next()` resolves `done`. Idempotent. */
  close(): Promise<void>;
  /** Whether it has ended (closed, aborted, failed). */
  readonly closed: boolean;
}

/** Options common to both kinds of subscription. */
export interface SubscriptionOptions {
  /** Ends the subscription when aborted. */
  readonly signal?: AbortSignal;
  /**
   * Maximum number of events read from the store at once, i.e. the most the
   * subscription holds in memory. A positive integer.
   * @default 256
   */
  readonly batchSize?: number;
}

/** Options of `EventStore.subscribeToStream`. */
export interface SubscribeToStreamOptions extends SubscriptionOptions {
  /**
   * Deliver events after this revision (exclusive: the event at `afterRevision`
   * is not delivered again). Pass the revision of the last event processed.
   * @default from the start of the stream
   */
  readonly afterRevision?: bigint;
}

/** Options of `EventStore.subscribeToAll`. */
export interface SubscribeToAllOptions extends SubscriptionOptions {
  /**
   * Deliver events after this position (exclusive: the event at `after` is not
   * delivered again). Pass the stored checkpoint: the position of the last
   * event processed.
   * @default from the start of `$all`
   */
  readonly after?: Position;
  /** Only events matching this filter. @default no filter */
  readonly filter?: EventFilter;
}
