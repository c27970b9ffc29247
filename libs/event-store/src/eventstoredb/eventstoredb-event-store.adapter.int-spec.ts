import { status } from '@grpc/grpc-js';
import { EventStoreDBClient } from '@eventstore/db-client';
import type { EsdbTestServer } from '../../../../test/support/esdb-server';
import { startEsdbTestServer } from '../../../../test/support/esdb-server';
import { scaled } from '../../../../test/support/time-scale';
import { EventStoreError } from '../port/errors/event-store-error';
import { EventTooLargeError } from '../port/errors/event-too-large.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { categoryFilter } from '../port/event-filter';
import { ExpectedRevision } from '../port/expected-revision';
import type { EventSubscription } from '../port/subscription';
import { streamName } from '../stream-name';
import { MAX_APPEND_SIZE } from '../validation/limits';
import { anEvent, puller, readAllAfter, rejectionOf, someEvents, uniqueCategory, uniqueStream } from '../testing/contract-helpers';
import type { EventStoreDbReconnectOptions } from './eventstoredb-options';
import { EventStoreDbEventStore, STORE_IDENTITY_STREAM } from './eventstoredb-event-store';

/** Every error a test provokes: none may be a driver error. */
function expectPortError(error: unknown): void {
  expect(error).toBeInstanceOf(EventStoreError);
  expect(Object.getPrototypeOf(error)).not.toBe(Error.prototype);
}

describe('EventStoreDbEventStore against the protocol-level server: outages and driver errors', () => {
  let server: EsdbTestServer;
  const stores: EventStoreDbEventStore[] = [];
  const subscriptions: EventSubscription[] = [];

  const connect = (reconnect: EventStoreDbReconnectOptions = { timeoutMs: 10_000, initialDelayMs: 20, maxDelayMs: 200 }): EventStoreDbEventStore => {
    const store = EventStoreDbEventStore.connect({ connectionString: server.connectionString, reconnect });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    server = await startEsdbTestServer();
  });

  afterEach(async () => {
    await server.start(); // a test that failed half-way may have left it stopped
    await Promise.all(subscriptions.splice(0).map((s) => s.close()));
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {
    await server.stop();
  });

  it('a live $all subscription survives a restart: events written during and after the outage arrive once, in order', async () => {
    const store = connect();
    const category = uniqueCategory();
    await store.append(streamName(category, '1'), someEvents(3), { expectedRevision: ExpectedRevision.NO_STREAM });
    const subscription = store.subscribeToAll({ filter: categoryFilter(category), batchSize: 2 });
    subscriptions.push(subscription);
    const pull = puller(subscription);
    await pull.take(3);
    await store.append(streamName(category, '2'), someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
    await pull.take(2);

    await server.stop();
    const down = await rejectionOf(store.append(streamName(category, '3'), [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM }));
    expectPortError(down);
    expect(down).toBeInstanceOf(StoreUnavailableError);
    expect(down).toMatchObject({ reason: StoreUnavailableReason.CANNOT_OPEN });
    const waiting = pull.take(4, 10_000); // the consumer keeps pulling through the outage

    await server.start();
    await store.append(streamName(category, '3'), someEvents(2, 'AfterRestart'), { expectedRevision: ExpectedRevision.NO_STREAM });
    await store.append(streamName(category, '1'), someEvents(2, 'Later'), { expectedRevision: 2n });
    const resumed = await waiting;

    const stored = await readAllAfter(store, undefined, categoryFilter(category));
    expect(stored).toHaveLength(9);
    expect(resumed.map((e) => e.id)).toEqual(stored.slice(5).map((e) => e.id));
    expect(await pull.nothingWithin(100)).toBe(true);
  });

  it('a live stream subscription survives two restarts in a row without loss or duplicate', async () => {
    const store = connect();
    const stream = uniqueStream();
    await store.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
    const subscription = store.subscribeToStream(stream);
    subscriptions.push(subscription);
    const pull = puller(subscription);
    expect((await pull.take(2)).map((e) => e.revision)).toEqual([0n, 1n]);

    await server.restart();
    await store.append(stream, someEvents(1), { expectedRevision: 1n });
    await server.restart();
    await store.append(stream, someEvents(2), { expectedRevision: 2n });
    expect((await pull.take(3, 10_000)).map((e) => e.revision)).toEqual([2n, 3n, 4n]);
    expect(await pull.nothingWithin(100)).toBe(true);
  });

  it('ends a subscription with StoreUnavailableError once the server stays down past reconnect.timeoutMs', async () => {
    const store = connect({ timeoutMs: 300, initialDelayMs: 20, maxDelayMs: 50 });
    const stream = uniqueStream();
    await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    const subscription = store.subscribeToStream(stream);
    subscriptions.push(subscription);
    const iterator = subscription[Symbol.asyncIterator]();
    await iterator.next();
    const waiting = rejectionOf(iterator.next());
    const stoppedAt = Date.now();
    await server.stop();
    const error = await waiting;
    expectPortError(error);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(300);
    expect(subscription.closed).toBe(true);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('every call fails with a port error while the server is down, and works again after start()', async () => {
    const store = connect({ timeoutMs: 200, initialDelayMs: 20, maxDelayMs: 50 });
    const stream = uniqueStream();
    await store.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
    await server.stop();

    const failures: unknown[] = [
      await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: 1n })),
      await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: 1n })),
      await rejectionOf(store.readStream(stream)),
      await rejectionOf(store.readStream(stream, { fromRevision: 1n, maxCount: 1 })),
      await rejectionOf((async () => {
        for await (const _event of store.readAll()) break;
      })()),
      await rejectionOf(store.deleteStream(stream)),
      await rejectionOf(store.tombstoneStream(stream, { expectedRevision: ExpectedRevision.STREAM_EXISTS })),
    ];
    const subscription = store.subscribeToAll();
    subscriptions.push(subscription);
    failures.push(await rejectionOf(subscription[Symbol.asyncIterator]().next()));
    for (const failure of failures) {
      expectPortError(failure);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
    }

    await server.start();
    const result = await store.append(stream, [anEvent('Back')], { expectedRevision: 1n });
    expect(result.nextExpectedRevision).toBe(2n);
    expect((await store.readStream(stream)).events.map((e) => e.type)).toEqual(['Counted', 'Counted', 'Back']);
  });

  it.each([
    ['UNAVAILABLE', status.UNAVAILABLE, StoreUnavailableError, { reason: StoreUnavailableReason.CANNOT_OPEN, retryable: false }],
    ['DEADLINE_EXCEEDED', status.DEADLINE_EXCEEDED, StoreUnavailableError, { reason: StoreUnavailableReason.BUSY, retryable: true }],
    ['ABORTED (server timeout)', status.ABORTED, StoreUnavailableError, { reason: StoreUnavailableReason.BUSY, retryable: true }],
    ['UNAUTHENTICATED', status.UNAUTHENTICATED, StoreUnavailableError, { reason: StoreUnavailableReason.CANNOT_OPEN }],
    ['INTERNAL', status.INTERNAL, StoreFailureError, { code: 'STORE_FAILURE', driverCode: 'unknown' }],
    ['RESOURCE_EXHAUSTED', status.RESOURCE_EXHAUSTED, StoreFailureError, { code: 'STORE_FAILURE' }],
  ] as const)('an append failing with gRPC %s is translated, nothing is written, and a retry with the same ids succeeds', async (_label, code, type, fields) => {
    const store = connect();
    const stream = uniqueStream();
    const events = someEvents(2);
    server.failNextAppends(1, code);
    const error = await rejectionOf(store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM }));
    expectPortError(error);
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject(fields);
    expect((error as Error).cause).toBeDefined(); // the driver error, for diagnosis only
    expect((await store.readStream(stream)).streamExists).toBe(false);
    const retried = await store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM });
    expect(retried.nextExpectedRevision).toBe(1n);
  });

  it('ends a stream subscription with StreamDeletedError when the stream is tombstoned (not retried)', async () => {
    const store = connect();
    const stream = uniqueStream();
    await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    const subscription = store.subscribeToStream(stream);
    subscriptions.push(subscription);
    const iterator = subscription[Symbol.asyncIterator]();
    await iterator.next();
    const waiting = rejectionOf(iterator.next());
    await store.tombstoneStream(stream);
    const error = await waiting;
    expectPortError(error);
    expect(error).toBeInstanceOf(StreamDeletedError);
    expect(error).toMatchObject({ streamName: stream });
    expect(subscription.closed).toBe(true);
  });

  it('hides EventStoreDB records ($metadata of soft deletes, $streamDeleted tombstones) from $all', async () => {
    const store = connect();
    const category = uniqueCategory();
    const deleted = streamName(category, 'soft');
    const tombstoned = streamName(category, 'hard');
    await store.append(deleted, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    await store.append(tombstoned, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    await store.deleteStream(deleted);
    await store.tombstoneStream(tombstoned);
    const all = [];
    for await (const event of store.readAll({ direction: 'backwards', maxCount: 3 })) all.push(event);
    expect(all.map((e) => e.streamName)).toEqual([tombstoned, deleted, expect.any(String)]);
    expect(all.every((e) => !e.type.startsWith('$') && !e.streamName.startsWith('$'))).toBe(true);
    const subscription = store.subscribeToAll({ filter: categoryFilter(category) });
    subscriptions.push(subscription);
    const pull = puller(subscription);
    expect((await pull.take(2)).map((e) => e.streamName)).toEqual([deleted, tombstoned]);
    expect(await pull.nothingWithin(100)).toBe(true);
  });

  it('deletes with stream_exists (which client 6.2.1 cannot send) at the head revision, and conflicts on a missing stream', async () => {
    const store = connect();
    const stream = uniqueStream();
    expect(await rejectionOf(store.deleteStream(stream, { expectedRevision: ExpectedRevision.STREAM_EXISTS }))).toMatchObject({
      code: 'WRONG_EXPECTED_REVISION',
      expected: 'stream_exists',
      actual: 'no_stream',
    });
    await store.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
    await store.deleteStream(stream, { expectedRevision: ExpectedRevision.STREAM_EXISTS });
    expect((await store.readStream(stream)).streamExists).toBe(false);
  });

  it("an event the server finds too large (its own count: 2 bytes a type character) fails at once with EventTooLargeError, unwritten", async () => {
    const store = connect();
    const stream = uniqueStream();
    const type = 'T'.repeat(200);
    // Under the port's 1 MiB by its own measure (UTF-8 of type + data + metadata), over the
    // server's by 200 bytes: only the server's MaximumAppendSizeExceeded can refuse it.
    const data = { s: 'x'.repeat(MAX_APPEND_SIZE - type.length - 100) };
    const started = Date.now();
    const failure = await rejectionOf(store.append(stream, [anEvent(type, data)], { expectedRevision: ExpectedRevision.NO_STREAM }));
    expectPortError(failure);
    expect(failure).toBeInstanceOf(EventTooLargeError);
    expect(failure).toMatchObject({ limit: MAX_APPEND_SIZE, eventIndex: undefined });
    expect(Date.now() - started).toBeLessThan(scaled(5_000));
    expect((await store.readStream(stream)).streamExists).toBe(false);
    await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
  });

  it('an append the server is too slow to answer within the client deadline fails with a retryable StoreUnavailableError (busy), unwritten', async () => {
    const store = EventStoreDbEventStore.connect({ connectionString: `${server.connectionString}&defaultDeadline=300` });
    stores.push(store);
    const stream = uniqueStream();
    await store.append(uniqueStream(), [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    server.delayNextAppends(1, 60_000);
    const failure = await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM }));
    server.clearFaults();
    expectPortError(failure);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(failure).toMatchObject({ reason: StoreUnavailableReason.BUSY, retryable: true });
    expect((await store.readStream(stream)).streamExists).toBe(false);
    await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
  });
});

describe('EventStoreDbEventStore store identity (protocol-level server)', () => {
  const servers: EsdbTestServer[] = [];
  const stores: EventStoreDbEventStore[] = [];
  const connectTo = (server: EsdbTestServer): EventStoreDbEventStore => {
    const store = EventStoreDbEventStore.connect({ connectionString: server.connectionString });
    stores.push(store);
    return store;
  };

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  }, 30_000);

  it('concurrent first callers of a new database, from separate clients, agree on one identity, kept in $agent-ledger-store', async () => {
    const server = await startEsdbTestServer();
    servers.push(server);
    const clients = [connectTo(server), connectTo(server), connectTo(server), connectTo(server)];
    const identities = await Promise.all(clients.map((c) => c.storeIdentity()));
    for (const identity of identities) expect(identity).toEqual(identities[0]);

    const raw = EventStoreDBClient.connectionString(server.connectionString);
    try {
      const recorded = [];
      for await (const resolved of raw.readStream(STORE_IDENTITY_STREAM)) recorded.push(resolved.event);
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({ type: 'StoreIdentityRecorded', data: { id: identities[0]?.id, createdAt: identities[0]?.createdAt.toISOString() } });
    } finally {
      await raw.dispose();
    }
    // A later client (another process) reads the recorded one.
    expect(await connectTo(server).storeIdentity()).toEqual(identities[0]);
  }, 30_000);

  it('another database has another identity; a failure to reach the server is reported and not remembered', async () => {
    const [one, two] = [await startEsdbTestServer(), await startEsdbTestServer()];
    servers.push(one, two);
    const a = connectTo(one);
    const b = connectTo(two);
    expect((await a.storeIdentity()).id).not.toBe((await b.storeIdentity()).id);

    const three = await startEsdbTestServer();
    servers.push(three);
    const c = EventStoreDbEventStore.connect({ connectionString: three.connectionString, reconnect: { timeoutMs: 200, initialDelayMs: 20, maxDelayMs: 50 } });
    stores.push(c);
    await three.stop();
    const failed = await rejectionOf(c.storeIdentity());
    expectPortError(failed);
    await three.start();
    expect((await c.storeIdentity()).id).toMatch(/^[0-9a-f-]{36}$/);
  }, 30_000);
});
