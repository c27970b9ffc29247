import { randomUUID } from 'node:crypto';
import type * as EventStoreDbClientLibrary from '@eventstore/db-client';
import { esdb } from './eventstoredb-client-library';
import type {
  AllStreamResolvedEvent,
  EventStoreDBClient,
  AppendResult as ClientAppendResult,
  Position as ClientPosition,
  ReadPosition,
  ReadRevision,
} from '@eventstore/db-client';
import type { EventData, RecordedEvent } from '../port/event';
import type { AppendOptions, AppendResult, DeleteStreamOptions, EventStore } from '../port/event-store';
import type { ConsumerGroupEnsured, ConsumerGroupMembership, ConsumerGroups, ConsumerGroupSettings } from '../port/consumer-groups';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import type { CurrentRevision, ExpectedRevision } from '../port/expected-revision';
import { ExpectedRevision as Expected } from '../port/expected-revision';
import type { Position } from '../port/position';
import type { ReadAllOptions, ReadStreamOptions, ReadStreamResult } from '../port/read-options';
import type { StoreIdentity } from '../port/store-identity';
import { isUuid } from '../validation/validate-append';
import { Direction, ReadFrom } from '../port/read-options';
import type { EventSubscription, SubscribeToAllOptions, SubscribeToStreamOptions } from '../port/subscription';
import { assertValidStreamName } from '../stream-name';
import { DEFAULT_BATCH_SIZE } from '../validation/limits';
import { prepareAppend } from '../validation/validate-append';
import {
  deleteExpectedRevision,
  direction as checkDirection,
  eventFilter,
  fromPosition as checkFromPosition,
  fromRevision as checkFromRevision,
  optionalPosition,
  optionalRevision,
  positiveInteger,
} from '../validation/validate-options';
import type { ClientResolvedEvent } from './eventstoredb-event-mapping';
import { toClientEvent, toRecordedEvent } from './eventstoredb-event-mapping';
import type { EventStoreDbEventStoreOptions, ResolvedReconnectOptions } from './eventstoredb-options';
import { resolveEventStoreDbOptions } from './eventstoredb-options';
import { fromClientPosition, toClientPosition } from './eventstoredb-position';
import type { ClientCatchUpSubscription, EventStoreDbSubscriptionSource } from './eventstoredb-subscription';
import { EventStoreDbSubscription } from './eventstoredb-subscription';
import { checkGroupName, checkGroupSettings, ensureEventStoreDbConsumerGroup, EventStoreDbMembership } from './eventstoredb-consumer-group';
import type { EventStoreDbErrorContext } from './translate-eventstoredb-error';
import { translateEventStoreDbError } from './translate-eventstoredb-error';
import { checkedCall } from '../core/checked-call';

/**
 * The stream holding the store's identity: a system stream (`$`), so the
 * adapter hides it from `$all` like EventStoreDB's own records, and no
 * product stream name can be it. Writing it needs a user allowed to write
 * system streams (`$admins` by default) the first time only.
 */
export const STORE_IDENTITY_STREAM = '$agent-ledger-store';
/** The type of the one event of {@link STORE_IDENTITY_STREAM}. */
const STORE_IDENTITY_EVENT_TYPE = 'StoreIdentityRecorded';

/** How many times a `stream_exists` delete re-reads the head when the stream moves under it. */
const STREAM_EXISTS_DELETE_ATTEMPTS = 5;

/**
 * The event-store port on EventStoreDB, through `@eventstore/db-client` 6.2.1
 * (the only module of the product that imports it). Selected by
 * `EVENTSTORE_CONNECTION_STRING` (see `createEventStore`).
 *
 * - Input is checked by the shared validation before any network call, so a
 *   rejected append writes nothing and fails exactly as on the other stores.
 * - Every driver error is translated at this edge
 *   ({@link translateEventStoreDbError}); none escapes.
 * - Subscriptions are the client's catch-up subscriptions, bridged into the
 *   port's pull-based iterator with bounded buffering, and resubscribed after
 *   a connection loss from the last delivered event
 *   ({@link EventStoreDbSubscription}).
 * - EventStoreDB's own records (system streams, `$`-types, tombstone markers,
 *   metadata events) are hidden from `$all`.
 * - Consumer groups ({@link ConsumerGroups}) are EventStoreDB's persistent
 *   subscriptions to `$all`.
 *
 * @remarks Differences from the embedded store are listed in
 * docs/event-store.md ("EventStoreDB adapter").
 */
export class EventStoreDbEventStore implements EventStore, ConsumerGroups {
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly subscriptions = new Set<EventStoreDbSubscription<unknown>>();
  private readonly memberships = new Set<EventStoreDbMembership>();
  private identity: Promise<StoreIdentity> | undefined;

  private constructor(
    private readonly client: EventStoreDBClient,
    private readonly reconnect: ResolvedReconnectOptions,
  ) {}

  /**
   * Creates the adapter. Connecting is lazy: nothing goes over the network
   * until the first call, so this never fails for an unreachable server (the
   * calls do, with `StoreUnavailableError`).
   *
   * @throws InvalidOptionError when the options or the connection string are invalid.
   */
  static connect(options: EventStoreDbEventStoreOptions): EventStoreDbEventStore {
    const resolved = resolveEventStoreDbOptions(options);
    let client: EventStoreDBClient;
    try {
      client = esdb().EventStoreDBClient.connectionString(resolved.connectionString);
    } catch (error) {
      throw new InvalidOptionError('eventStoreDb.connectionString', error instanceof Error ? error.message : String(error));
    }
    return new EventStoreDbEventStore(client, resolved.reconnect);
  }

  async append(streamName: string, events: readonly EventData[], options: AppendOptions): Promise<AppendResult> {
    const prepared = prepareAppend(streamName, events, options);
    this.assertOpen();
    const context: EventStoreDbErrorContext = {
      operation: 'append',
      streamName,
      expected: prepared.expectedRevision,
      appendSize: prepared.events.reduce((sum, e) => sum + e.size, 0),
    };
    return this.track(async () => {
      let result: ClientAppendResult;
      try {
        result = await this.client.appendToStream(streamName, prepared.events.map(toClientEvent), {
          expectedRevision: prepared.expectedRevision,
        });
      } catch (error) {
        throw translateEventStoreDbError(error, context);
      }
      const position = result.position ? fromClientPosition(result.position) : await this.positionAt(streamName, result.nextExpectedRevision);
      return { nextExpectedRevision: result.nextExpectedRevision, position };
    });
  }

  /**
   * The identity in {@link STORE_IDENTITY_STREAM}; the first caller on a new
   * database writes it with expected revision `no_stream`, so that concurrent
   * first callers (of any process) agree on the one that was written first.
   */
  storeIdentity(): Promise<StoreIdentity> {
    return checkedCall(
      () => this.assertOpen(),
      () =>
        (this.identity ??= this.track(() => this.readOrRecordIdentity()).catch((error: unknown) => {
          this.identity = undefined; // a failure (server down) is not remembered: the next call tries again
          throw error;
        })),
    );
  }

  private async readOrRecordIdentity(): Promise<StoreIdentity> {
    const existing = await this.readIdentity();
    if (existing !== undefined) return existing;
    const proposed: StoreIdentity = { id: randomUUID(), createdAt: new Date() };
    try {
      await this.client.appendToStream(
        STORE_IDENTITY_STREAM,
        esdb().jsonEvent({ type: STORE_IDENTITY_EVENT_TYPE, data: { id: proposed.id, createdAt: proposed.createdAt.toISOString() } }),
        { expectedRevision: 'no_stream' },
      );
      return Object.freeze(proposed);
    } catch (error) {
      if (!(error instanceof esdb().WrongExpectedVersionError)) {
        throw translateEventStoreDbError(error, { operation: 'storeIdentity', streamName: STORE_IDENTITY_STREAM, expected: Expected.NO_STREAM });
      }
    }
    // Another process recorded it first: theirs is the store's.
    const recorded = await this.readIdentity();
    if (recorded === undefined) throw new StoreFailureError('no-identity', `${STORE_IDENTITY_STREAM} exists but holds no identity`);
    return recorded;
  }

  private async readIdentity(): Promise<StoreIdentity | undefined> {
    const first: unknown[] = [];
    try {
      // Read to the end (one event at most) rather than leave the call half-consumed.
      for await (const resolved of this.client.readStream(STORE_IDENTITY_STREAM, { direction: esdb().FORWARDS, fromRevision: esdb().START, maxCount: 1 })) {
        first.push(resolved.event?.data);
      }
    } catch (error) {
      if (error instanceof esdb().StreamNotFoundError) return undefined;
      throw translateEventStoreDbError(error, { operation: 'storeIdentity', streamName: STORE_IDENTITY_STREAM });
    }
    if (first.length === 0) return undefined;
    const data = first[0] as { id?: unknown; createdAt?: unknown } | undefined;
    const createdAt = typeof data?.createdAt === 'string' ? new Date(data.createdAt) : undefined;
    if (!isUuid(data?.id) || createdAt === undefined || Number.isNaN(createdAt.getTime())) {
      throw new StoreFailureError('bad-identity', `${STORE_IDENTITY_STREAM} holds ${JSON.stringify(data)}, not { id: <uuid>, createdAt: <ISO date> }`);
    }
    return Object.freeze({ id: data.id.toLowerCase(), createdAt });
  }

  async readStream(streamName: string, options?: ReadStreamOptions): Promise<ReadStreamResult> {
    assertValidStreamName(streamName);
    const direction = checkDirection(options?.direction);
    const from = checkFromRevision(options?.fromRevision);
    const maxCount = positiveInteger(options?.maxCount, 'maxCount', Number.MAX_SAFE_INTEGER);
    this.assertOpen();
    return this.track(() => this.readStreamChecked(streamName, direction, from, maxCount));
  }

  ensureConsumerGroup(groupName: string, settings: ConsumerGroupSettings): Promise<ConsumerGroupEnsured> {
    return checkedCall(
      () => {
        const checked = { name: checkGroupName(groupName), settings: checkGroupSettings(settings) };
        this.assertOpen();
        return checked;
      },
      ({ name, settings: checked }) => this.track(() => ensureEventStoreDbConsumerGroup(this.client, name, checked)),
    );
  }

  joinConsumerGroup(groupName: string, options: { readonly bufferSize: number }): ConsumerGroupMembership {
    const name = checkGroupName(groupName);
    const bufferSize = positiveInteger(options.bufferSize, 'bufferSize', DEFAULT_BATCH_SIZE);
    this.assertOpen();
    const membership = new EventStoreDbMembership(
      () => this.client.subscribeToPersistentSubscriptionToAll(name, { bufferSize }),
      name,
      (closed) => this.memberships.delete(closed),
    );
    this.memberships.add(membership);
    return membership;
  }

  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent> {
    return { [Symbol.asyncIterator]: () => this.readAllPages(options) };
  }

  subscribeToStream(streamName: string, options: SubscribeToStreamOptions = {}): EventSubscription {
    assertValidStreamName(streamName);
    const after = optionalRevision(options.afterRevision, 'afterRevision');
    const batchSize = positiveInteger(options.batchSize, 'batchSize', DEFAULT_BATCH_SIZE);
    this.assertOpen();
    const operation = `subscribeToStream of '${streamName}'`;
    return this.register<bigint>(
      {
        operation,
        open: (cursor, highWaterMark) =>
          this.client.subscribeToStream(streamName, { fromRevision: cursor ?? esdb().START }, { highWaterMark }) as ClientCatchUpSubscription,
        cursorOf: (event) => event.revision,
        translate: (error) => translateEventStoreDbError(error, { operation, streamName }),
      },
      after,
      batchSize,
      options.signal,
    );
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): EventSubscription {
    const after = optionalPosition(options.after, 'after');
    const batchSize = positiveInteger(options.batchSize, 'batchSize', DEFAULT_BATCH_SIZE);
    const checked = eventFilter(options.filter);
    this.assertOpen();
    const filter =
      checked === undefined
        ? esdb().excludeSystemEvents()
        : checked.filter.streamNamePrefixes !== undefined
          ? esdb().streamNameFilter({ prefixes: [...checked.filter.streamNamePrefixes] })
          : esdb().eventTypeFilter({ prefixes: [...(checked.filter.eventTypePrefixes ?? [])] });
    const operation = 'subscribeToAll';
    return this.register<Position>(
      {
        operation,
        open: (cursor, highWaterMark) =>
          this.client.subscribeToAll(
            { fromPosition: cursor === undefined ? esdb().START : toClientPosition(cursor), filter },
            { highWaterMark },
          ) as ClientCatchUpSubscription,
        cursorOf: (event) => event.position,
        translate: (error) => translateEventStoreDbError(error, { operation }),
      },
      after,
      batchSize,
      options.signal,
    );
  }

  async deleteStream(streamName: string, options: DeleteStreamOptions = {}): Promise<void> {
    await this.delete(streamName, options, false);
  }

  async tombstoneStream(streamName: string, options: DeleteStreamOptions = {}): Promise<void> {
    await this.delete(streamName, options, true);
  }

  /**
   * Waits for the calls in flight, ends open subscriptions (a waiting
   * `next()` rejects with `StoreClosedError`) and disposes the client (its
   * gRPC streams are cancelled). Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      await Promise.allSettled([...this.inFlight]);
      const open = [...this.subscriptions];
      this.subscriptions.clear();
      await Promise.all([...this.memberships].map((membership) => membership.close()));
      await Promise.all(open.map((subscription) => subscription.suspend()));
      await this.client.dispose();
      // Last, with nothing awaited after it: a waiting `next()` rejects as `close()` resolves.
      for (const subscription of open) subscription.terminate(new StoreClosedError());
    })();
    return this.closing;
  }

  private register<Cursor>(
    source: EventStoreDbSubscriptionSource<Cursor>,
    after: Cursor | undefined,
    batchSize: number,
    signal: AbortSignal | undefined,
  ): EventSubscription {
    const subscription = new EventStoreDbSubscription<Cursor>(source, after, batchSize, this.reconnect, signal, (s) =>
      this.subscriptions.delete(s as EventStoreDbSubscription<unknown>),
    );
    if (!subscription.closed) this.subscriptions.add(subscription as EventStoreDbSubscription<unknown>);
    return subscription;
  }

  private async delete(streamName: string, options: DeleteStreamOptions, tombstone: boolean): Promise<void> {
    assertValidStreamName(streamName);
    const expected = deleteExpectedRevision(options.expectedRevision);
    this.assertOpen();
    const operation = tombstone ? 'tombstoneStream' : 'deleteStream';
    await this.track(async () => {
      // Client 6.2.1 cannot send `stream_exists` on a delete: delete at the head revision read just before.
      for (let attempt = 1; ; attempt++) {
        const revision = expected === Expected.STREAM_EXISTS ? await this.headRevision(streamName) : expected;
        if (revision === Expected.NO_STREAM && expected === Expected.STREAM_EXISTS) {
          throw new WrongExpectedRevisionError(streamName, expected, Expected.NO_STREAM);
        }
        try {
          const call = { expectedRevision: revision as Exclude<ExpectedRevision, typeof Expected.STREAM_EXISTS> };
          if (tombstone) await this.client.tombstoneStream(streamName, call);
          else await this.client.deleteStream(streamName, call);
          return;
        } catch (error) {
          const translated = translateEventStoreDbError(error, { operation, streamName, expected });
          // EventStoreDB refuses to soft-delete a stream that was never written (no event, no
          // metadata) whatever the expected revision; the port, like the embedded stores, has
          // nothing to delete there and succeeds when `any` or `no_stream` was expected.
          const nothingToDelete =
            !tombstone &&
            (expected === Expected.ANY || expected === Expected.NO_STREAM) &&
            translated instanceof WrongExpectedRevisionError &&
            translated.actual === Expected.NO_STREAM;
          if (nothingToDelete) return;
          const moved = expected === Expected.STREAM_EXISTS && translated instanceof WrongExpectedRevisionError && translated.actual !== Expected.NO_STREAM;
          if (!moved || attempt >= STREAM_EXISTS_DELETE_ATTEMPTS) throw translated;
        }
      }
    });
  }

  private async readStreamChecked(
    streamName: string,
    direction: Direction,
    from: bigint | ReadFrom | undefined,
    maxCount: number,
  ): Promise<ReadStreamResult> {
    const forwards = direction === Direction.FORWARDS;
    const unbounded = maxCount === Number.MAX_SAFE_INTEGER;
    // A read that runs to the head tells the current revision itself; any other needs the head first
    // (read before the events, so the revision returned never covers events the caller did not see).
    const reachesHead = forwards ? unbounded && (from === undefined || from === ReadFrom.START) : from === undefined || from === ReadFrom.END;
    let head: CurrentRevision | undefined;
    if (!reachesHead) {
      head = await this.headRevision(streamName);
      if (head === Expected.NO_STREAM) return { streamExists: false, currentRevision: Expected.NO_STREAM, events: [] };
    }
    let clientDirection: typeof EventStoreDbClientLibrary.FORWARDS | typeof EventStoreDbClientLibrary.BACKWARDS = forwards ? esdb().FORWARDS : esdb().BACKWARDS;
    let fromRevision: ReadRevision;
    let count = maxCount;
    if (forwards) fromRevision = from === ReadFrom.END ? (head as bigint) : from === undefined ? esdb().START : from;
    else if (from === ReadFrom.START) {
      // Backwards from the start is the first visible event, as on the other stores.
      clientDirection = esdb().FORWARDS;
      fromRevision = esdb().START;
      count = 1;
    } else fromRevision = from === undefined ? esdb().END : from;

    const events = await this.collectStream(streamName, { direction: clientDirection, fromRevision, maxCount: count });
    if (events === undefined) return { streamExists: false, currentRevision: Expected.NO_STREAM, events: [] };
    let current: bigint | undefined = typeof head === 'bigint' ? head : undefined;
    for (const event of events) if (current === undefined || event.revision > current) current = event.revision;
    if (current === undefined) {
      const again = await this.headRevision(streamName);
      if (again === Expected.NO_STREAM) return { streamExists: false, currentRevision: Expected.NO_STREAM, events: [] };
      current = again;
    }
    return { streamExists: true, currentRevision: current, events };
  }

  /** The events of a client stream read, or `undefined` when the stream is not found (never written, soft-deleted). */
  private async collectStream(
    streamName: string,
    options: { direction: typeof EventStoreDbClientLibrary.FORWARDS | typeof EventStoreDbClientLibrary.BACKWARDS; fromRevision: ReadRevision; maxCount: number },
  ): Promise<RecordedEvent[] | undefined> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamName, options)) {
        const event = toRecordedEvent(resolved);
        if (event !== undefined) events.push(event);
      }
    } catch (error) {
      if (error instanceof esdb().StreamNotFoundError) return undefined;
      throw translateEventStoreDbError(error, { operation: 'readStream', streamName });
    }
    return events;
  }

  private async headRevision(streamName: string): Promise<CurrentRevision> {
    const last = await this.collectStream(streamName, { direction: esdb().BACKWARDS, fromRevision: esdb().END, maxCount: 1 });
    return last?.[0]?.revision ?? Expected.NO_STREAM;
  }

  /** Position of the event at `revision` (when an append result carries none). */
  private async positionAt(streamName: string, revision: bigint): Promise<Position> {
    const [event] = (await this.collectStream(streamName, { direction: esdb().FORWARDS, fromRevision: revision, maxCount: 1 })) ?? [];
    if (event === undefined || event.revision !== revision) {
      throw new StoreFailureError('no-position', `append to '${streamName}' returned no position, and revision ${revision} cannot be read back`);
    }
    return event.position;
  }

  /** One page of `$all` (at most `maxCount` raw records, system ones included). */
  private async readAllPage(fromPosition: ReadPosition, direction: typeof EventStoreDbClientLibrary.FORWARDS | typeof EventStoreDbClientLibrary.BACKWARDS, maxCount: number): Promise<AllStreamResolvedEvent[]> {
    this.assertOpen();
    return this.track(async () => {
      const page: AllStreamResolvedEvent[] = [];
      try {
        for await (const resolved of this.client.readAll({ fromPosition, direction, maxCount })) page.push(resolved);
      } catch (error) {
        throw translateEventStoreDbError(error, { operation: 'readAll' });
      }
      return page;
    });
  }

  /**
   * `$all`, pulled page by page as the caller iterates. Client 6.2.1 cannot
   * filter a read, so the filter is applied here; backwards reads are made
   * inclusive of `fromPosition` (EventStoreDB's are exclusive) by reading the
   * event at that position first.
   */
  private async *readAllPages(options: ReadAllOptions | undefined): AsyncGenerator<RecordedEvent, void, undefined> {
    const direction = checkDirection(options?.direction);
    const from = checkFromPosition(options?.fromPosition);
    const maxCount = positiveInteger(options?.maxCount, 'maxCount', Number.MAX_SAFE_INTEGER);
    const filter = eventFilter(options?.filter);
    this.assertOpen();
    const forwards = direction === Direction.FORWARDS;
    if ((forwards && from === ReadFrom.END) || (!forwards && from === ReadFrom.START)) return;

    let yielded = 0;
    const accept = (resolved: ClientResolvedEvent): RecordedEvent | undefined => {
      let event: RecordedEvent | undefined;
      try {
        event = toRecordedEvent(resolved);
      } catch (error) {
        throw translateEventStoreDbError(error, { operation: 'readAll' });
      }
      return event !== undefined && (!filter || filter.matches(event.streamName, event.type)) ? event : undefined;
    };

    let cursor: ReadPosition = from === undefined || from === ReadFrom.START || from === ReadFrom.END ? (forwards ? esdb().START : esdb().END) : toClientPosition(from);
    if (!forwards && typeof cursor === 'object') {
      const at = cursor;
      const [first] = await this.readAllPage(at, esdb().FORWARDS, 1);
      const position = first?.event?.position;
      if (first !== undefined && position !== undefined && position.commit === at.commit && position.prepare === at.prepare) {
        const event = accept(first);
        if (event !== undefined) {
          yield event;
          if (++yielded >= maxCount) return;
        }
      }
    }
    // Forwards pages after the first start at the last record seen (inclusive): it is skipped.
    let skip: ClientPosition | undefined;
    for (;;) {
      const page = await this.readAllPage(cursor, forwards ? esdb().FORWARDS : esdb().BACKWARDS, DEFAULT_BATCH_SIZE);
      let last: ClientPosition | undefined;
      for (const resolved of page) {
        const position = resolved.event?.position;
        if (position === undefined) continue;
        if (skip !== undefined && position.commit === skip.commit && position.prepare === skip.prepare) continue;
        last = position;
        const event = accept(resolved);
        if (event === undefined) continue;
        yield event;
        if (++yielded >= maxCount) return;
      }
      if (page.length < DEFAULT_BATCH_SIZE || last === undefined) return;
      cursor = last;
      skip = forwards ? last : undefined;
    }
  }

  private track<T>(run: () => Promise<T>): Promise<T> {
    const promise = run();
    this.inFlight.add(promise);
    const forget = (): void => {
      this.inFlight.delete(promise);
    };
    promise.then(forget, forget);
    return promise;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError();
  }
}
