import type { RecordedEvent } from './event';

/**
 * The settings of a consumer group: a group of competing consumers of
 * `$all`, filtered on event types, that the store hands each event to one
 * member of, and redelivers when the member does not acknowledge it in time.
 */
export interface ConsumerGroupSettings {
  /** The event types offered to the group (exact names); other events are never offered. */
  readonly eventTypes: readonly string[];
  /** How long a member has to acknowledge an event before the store offers it again. */
  readonly messageTimeoutMs: number;
  /** How many times an event is offered again (timeouts, `retry`) before the store parks it. */
  readonly maxRetryCount: number;
}

/** What {@link ConsumerGroups.ensureConsumerGroup} found. */
export type ConsumerGroupEnsured = 'created' | 'matches';

/** An event the store offered to this member of the group. */
export interface OfferedEvent {
  readonly event: RecordedEvent;
  /** How many times it was offered before (0 the first time). */
  readonly retryCount: number;
  /** Done with: the store does not offer it again. */
  ack(): Promise<void>;
  /** Not done: offer it again (`retry`, counted against `maxRetryCount`), or park it at once (`park`). */
  nack(action: 'retry' | 'park', reason: string): Promise<void>;
}

/**
 * One member's connection to a consumer group: the events offered to it, at
 * most `bufferSize` unacknowledged at a time. If the store fails, `next()`
 * rejects with an `EventStoreError` and the membership is over: join again
 * (the unacknowledged events go to other members, or back to this one).
 */
export interface ConsumerGroupMembership extends AsyncIterable<OfferedEvent> {
  /** Leaves the group: its unacknowledged events are offered to other members. Idempotent. */
  close(): Promise<void>;
}

/**
 * Competing consumers served by the store itself (EventStoreDB's persistent
 * subscriptions to `$all`): an optional capability of an event store, which
 * {@link hasConsumerGroups} tells. The embedded stores do not have it.
 */
export interface ConsumerGroups {
  /**
   * Creates the group, starting at the last record of `$all` (that record
   * included), or checks that the one
   * that exists has `settings` (the event types cannot be read back from
   * EventStoreDB, so they are not compared).
   * @throws ConsumerGroupMismatchError when the group exists with other settings (nothing changed)
   * @throws InvalidOptionError for a bad name or settings
   * @throws StoreUnavailableError, StoreFailureError, StoreClosedError the store failed
   */
  ensureConsumerGroup(groupName: string, settings: ConsumerGroupSettings): Promise<ConsumerGroupEnsured>;
  /**
   * Joins the group as one more member. Lazy: the connection opens at the first `next()`.
   * @throws InvalidOptionError for a bad name or buffer size
   */
  joinConsumerGroup(groupName: string, options: { readonly bufferSize: number }): ConsumerGroupMembership;
}

/** Whether the store serves consumer groups ({@link ConsumerGroups}). */
export function hasConsumerGroups<T extends object>(store: T): store is T & ConsumerGroups {
  const candidate = store as Partial<ConsumerGroups>;
  return typeof candidate.ensureConsumerGroup === 'function' && typeof candidate.joinConsumerGroup === 'function';
}

/** What a consumer group's name may be: 1 to 100 letters, digits, `.`, `_` or `-`, starting with a letter or digit. */
export function isConsumerGroupName(name: unknown): name is string {
  return typeof name === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name);
}
