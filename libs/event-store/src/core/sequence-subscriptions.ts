import type { EventSubscription, SubscribeToAllOptions, SubscribeToStreamOptions } from '../port/subscription';
import { DEFAULT_BATCH_SIZE } from '../validation/limits';
import type { CheckedFilter } from '../validation/validate-options';
import { eventFilter, optionalPosition, optionalRevision, positiveInteger } from '../validation/validate-options';
import type { SubscriptionPage, SubscriptionSource } from './pull-subscription';
import { PullSubscription } from './pull-subscription';
import { sequenceOf } from './sequence-reads';
import type { StoredEventRow } from './stored-event-row';
import { toRecordedEvent } from './stored-event-row';

/**
 * A stream subscription's page from the rows read after revision `cursor`
 * (at most `limit`): the cursor moves to the last row's revision.
 */
export function streamSubscriptionPage(rows: readonly StoredEventRow[], cursor: number, limit: number): SubscriptionPage<number> {
  const last = rows[rows.length - 1];
  return { events: rows.map(toRecordedEvent), next: last ? last.revision : cursor, exhausted: rows.length < limit };
}

/**
 * A `$all` subscription's page from the rows read after position `cursor`
 * (at most `limit`): only the rows `filter` matches are delivered, and the
 * cursor moves past every row read, matching or not.
 */
export function allSubscriptionPage(
  rows: readonly StoredEventRow[],
  cursor: number,
  limit: number,
  filter: CheckedFilter | undefined,
): SubscriptionPage<number> {
  const last = rows[rows.length - 1];
  const matching = filter ? rows.filter((r) => filter.matches(r.stream_name, r.event_type)) : rows;
  return { events: matching.map(toRecordedEvent), next: last ? last.position : cursor, exhausted: rows.length < limit };
}

/**
 * `subscribeToStream` for sequence-based stores (embedded, in-memory,
 * PostgreSQL): checks the options and starts a {@link PullSubscription} on
 * revisions after `afterRevision`.
 */
export function subscribeToStreamBySequence(options: SubscribeToStreamOptions, source: SubscriptionSource<number>): EventSubscription {
  const after = optionalRevision(options.afterRevision, 'afterRevision');
  const batchSize = positiveInteger(options.batchSize, 'batchSize', DEFAULT_BATCH_SIZE);
  return new PullSubscription(source, after === undefined ? -1 : Number(after), batchSize, options.signal);
}

/**
 * `subscribeToAll` for sequence-based stores: checks the options and starts a
 * {@link PullSubscription} on positions after `after`, reading through the
 * source the adapter builds for the checked filter.
 */
export function subscribeToAllBySequence(
  options: SubscribeToAllOptions,
  sourceFor: (filter: CheckedFilter | undefined) => SubscriptionSource<number>,
): EventSubscription {
  const after = optionalPosition(options.after, 'after');
  const batchSize = positiveInteger(options.batchSize, 'batchSize', DEFAULT_BATCH_SIZE);
  const filter = eventFilter(options.filter);
  return new PullSubscription(sourceFor(filter), after === undefined ? 0 : sequenceOf(after), batchSize, options.signal);
}
