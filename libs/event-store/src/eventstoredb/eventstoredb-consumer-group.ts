import type { EventStoreDBClient, Filter, Position, PersistentSubscriptionToAll, PersistentSubscriptionToAllResolvedEvent } from '@eventstore/db-client';
import { esdb } from './eventstoredb-client-library';
import type { ConsumerGroupEnsured, ConsumerGroupMembership, ConsumerGroupSettings, OfferedEvent } from '../port/consumer-groups';
import { isConsumerGroupName } from '../port/consumer-groups';
import { ConsumerGroupMismatchError } from '../port/errors/consumer-group-mismatch.error';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { toRecordedEvent } from './eventstoredb-event-mapping';
import { translateEventStoreDbError } from './translate-eventstoredb-error';

const EVENT_TYPE = /^[A-Za-z][A-Za-z0-9._-]*$/;

/** @throws InvalidOptionError */
export function checkGroupName(groupName: unknown): string {
  if (!isConsumerGroupName(groupName)) {
    throw new InvalidOptionError('consumerGroup.name', `expected 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit, got ${JSON.stringify(groupName)}`);
  }
  return groupName;
}

/** @throws InvalidOptionError naming the setting */
export function checkGroupSettings(settings: ConsumerGroupSettings): ConsumerGroupSettings {
  if (typeof settings !== 'object' || settings === null) throw new InvalidOptionError('consumerGroup', 'expected a settings object');
  const { eventTypes, messageTimeoutMs, maxRetryCount } = settings;
  if (!Array.isArray(eventTypes) || eventTypes.length === 0 || !eventTypes.every((type) => typeof type === 'string' && EVENT_TYPE.test(type))) {
    throw new InvalidOptionError('consumerGroup.eventTypes', 'expected a non-empty list of event types (a letter, then letters, digits, ".", "_" or "-")');
  }
  if (!Number.isSafeInteger(messageTimeoutMs) || messageTimeoutMs < 1_000) {
    throw new InvalidOptionError('consumerGroup.messageTimeoutMs', `expected an integer of at least 1000 ms, got ${String(messageTimeoutMs)}`);
  }
  if (!Number.isSafeInteger(maxRetryCount) || maxRetryCount < 0 || maxRetryCount > 1_000) {
    throw new InvalidOptionError('consumerGroup.maxRetryCount', `expected an integer from 0 to 1000, got ${String(maxRetryCount)}`);
  }
  return settings;
}

/** An exact event-type filter for the server (its filters take prefixes or a regular expression). */
function exactTypes(eventTypes: readonly string[]): Filter {
  const escaped = eventTypes.map((type) => type.replace(/[.]/g, '\\.'));
  return esdb().eventTypeFilter({ regex: `^(${escaped.join('|')})$` });
}

/** The position of the last record of `$all`, or undefined on an empty database. */
async function headPosition(client: EventStoreDBClient): Promise<Position | undefined> {
  let head: Position | undefined;
  for await (const resolved of client.readAll({ direction: esdb().BACKWARDS, fromPosition: esdb().END, maxCount: 1 })) head = resolved.event?.position ?? head;
  return head;
}

/**
 * Creates the group on `$all` (round robin, from the position of the last
 * record when it is created, links not resolved), or checks the settings of
 * the one that exists.
 * @throws ConsumerGroupMismatchError, or the translated driver error
 */
export async function ensureEventStoreDbConsumerGroup(client: EventStoreDBClient, groupName: string, settings: ConsumerGroupSettings): Promise<ConsumerGroupEnsured> {
  const operation = `ensureConsumerGroup "${groupName}"`;
  try {
    const info = await client.getPersistentSubscriptionToAllInfo(groupName);
    const found = info.settings;
    const compare: Array<[string, string, string]> = [
      ['messageTimeoutMs', String(settings.messageTimeoutMs), String(found.messageTimeout)],
      ['maxRetryCount', String(settings.maxRetryCount), String(found.maxRetryCount)],
      ['consumerStrategy', esdb().ROUND_ROBIN, String(found.consumerStrategyName)],
      ['resolveLinkTos', 'false', String(found.resolveLinkTos)],
    ];
    for (const [setting, expected, actual] of compare) {
      if (expected !== actual) throw new ConsumerGroupMismatchError(groupName, setting, expected, actual);
    }
    return 'matches';
  } catch (error) {
    if (error instanceof ConsumerGroupMismatchError) throw error;
    if (!(error instanceof esdb().PersistentSubscriptionDoesNotExistError)) throw translateEventStoreDbError(error, { operation });
  }
  try {
    await client.createPersistentSubscriptionToAll(
      groupName,
      esdb().persistentSubscriptionToAllSettingsFromDefaults({
        // The head as a position, not END: a group reloaded before its first checkpoint (a server restart) starts there, not at the then end.
        startFrom: (await headPosition(client)) ?? esdb().START,
        resolveLinkTos: false,
        messageTimeout: settings.messageTimeoutMs,
        maxRetryCount: settings.maxRetryCount,
        consumerStrategyName: esdb().ROUND_ROBIN,
      }),
      { filter: exactTypes(settings.eventTypes) },
    );
    return 'created';
  } catch (error) {
    // Another process created it between the two calls: check theirs.
    if (error instanceof esdb().PersistentSubscriptionExistsError) return ensureEventStoreDbConsumerGroup(client, groupName, settings);
    throw translateEventStoreDbError(error, { operation });
  }
}

/**
 * One member of a consumer group, over the client's persistent subscription
 * to `$all`: opened at the first `next()`, read one event at a time (the
 * client's stream pauses the call beyond its buffer; the server sends at most
 * `bufferSize` unacknowledged events). A record the port does not show (a
 * system record) is acknowledged and skipped. A driver failure ends it with
 * the translated port error.
 */
export class EventStoreDbMembership implements ConsumerGroupMembership {
  private subscription: PersistentSubscriptionToAll | undefined;
  private closed = false;

  constructor(
    private readonly open: () => PersistentSubscriptionToAll,
    private readonly groupName: string,
    private readonly onClose: (membership: EventStoreDbMembership) => void,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<OfferedEvent> {
    if (this.closed) return;
    const subscription = (this.subscription ??= this.open());
    subscription.on('error', () => undefined); // read through the iterator below; an unhandled 'error' would crash the process
    const operation = `joinConsumerGroup "${this.groupName}"`;
    try {
      for await (const resolved of subscription) {
        if (this.closed) return;
        const event = toRecordedEvent(resolved);
        if (event === undefined) {
          await subscription.ack(resolved);
          continue;
        }
        yield this.offer(subscription, resolved, event);
      }
    } catch (error) {
      if (this.closed) return;
      throw translateEventStoreDbError(error, { operation });
    } finally {
      await this.close();
    }
  }

  private offer(subscription: PersistentSubscriptionToAll, resolved: PersistentSubscriptionToAllResolvedEvent, event: OfferedEvent['event']): OfferedEvent {
    const operation = `consumer group "${this.groupName}"`;
    const settle = async (send: () => Promise<void>): Promise<void> => {
      if (this.closed) throw new StoreClosedError();
      try {
        await send();
      } catch (error) {
        throw translateEventStoreDbError(error, { operation });
      }
    };
    return {
      event,
      retryCount: resolved.retryCount,
      ack: () => settle(() => subscription.ack(resolved)),
      nack: (action, reason) => settle(() => subscription.nack(action === 'park' ? esdb().PARK : esdb().RETRY, reason, resolved)),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    await this.subscription?.unsubscribe().catch(() => undefined); // the call may be gone with its server already
  }
}
