import { status } from '@grpc/grpc-js';
import { EventStoreDBClient, jsonEvent, NO_STREAM, START, StreamNotFoundError, streamNameFilter, UnavailableError } from '@eventstore/db-client';
import type { Position, ResolvedEvent } from '@eventstore/db-client';

import type { EsdbTestServer } from './index';
import { startEsdbTestServer } from './index';
import { collect, disposeAll, record, uniqueStream, waitFor } from './int-spec-helpers';

const events = (count: number, type: string): ReturnType<typeof jsonEvent>[] =>
  Array.from({ length: count }, (_, n) => jsonEvent({ type, data: { n } }));

describe('EventStoreDB test server: stop and restart', () => {
  let server: EsdbTestServer;
  let client: EventStoreDBClient | undefined;

  beforeAll(async () => {
    server = await startEsdbTestServer();
  });

  afterAll(async () => {
    await disposeAll(client);
    await server.stop();
  });

  it('comes back on the same port with the same data, and a connected client can write and read again', async () => {
    client = EventStoreDBClient.connectionString(server.connectionString);
    const stream = uniqueStream('outage');
    await client.appendToStream(stream, events(2, 'BeforeOutage'));
    const port = server.port;

    await server.stop();
    expect(server.isRunning).toBe(false);
    // The client's first call after losing the connection re-probes ServerFeatures and rethrows
    // that probe's raw grpc-js error (code 14), not an UnavailableError: match on the code.
    await expect(client.appendToStream(stream, events(1, 'DuringOutage'))).rejects.toMatchObject({ code: status.UNAVAILABLE });

    await server.start();
    expect(server.port).toBe(port);
    const after = await client.appendToStream(stream, events(1, 'AfterOutage'), { expectedRevision: 1n });
    expect(after.nextExpectedRevision).toBe(2n);
    const read = await collect(client.readStream(stream));
    expect(read.map((e) => e.event?.type)).toEqual(['BeforeOutage', 'BeforeOutage', 'AfterOutage']);
  });

  it('ends open subscriptions with UNAVAILABLE on stop, and a resubscription from the last position loses and repeats nothing', async () => {
    client ??= EventStoreDBClient.connectionString(server.connectionString);
    const category = uniqueStream('resume');
    await client.appendToStream(`${category}-1`, events(3, 'Early'));
    const filter = streamNameFilter({ prefixes: [category] });
    const first = client.subscribeToAll({ fromPosition: START, filter });
    const firstSeen = record(first);
    await waitFor(() => firstSeen.log.includes('caughtUp'));
    await client.appendToStream(`${category}-2`, events(2, 'Live'));
    await waitFor(() => firstSeen.events.length === 5);

    await server.restart();
    await waitFor(() => firstSeen.errors.length > 0, 5_000, 'the subscription to fail');
    expect(firstSeen.errors[0]).toBeInstanceOf(UnavailableError);
    expect(server.openCallCount).toBe(0);

    const lastEvent: ResolvedEvent | undefined = firstSeen.events[firstSeen.events.length - 1];
    const resumeFrom: Position | undefined = lastEvent?.event?.position;
    expect(resumeFrom).toBeDefined();
    await client.appendToStream(`${category}-1`, events(2, 'AfterRestart'));
    const second = client.subscribeToAll({ fromPosition: resumeFrom ?? START, filter });
    const secondSeen = record(second);
    await waitFor(() => secondSeen.log.includes('caughtUp'));
    await client.appendToStream(`${category}-3`, events(1, 'LiveAgain'));
    await waitFor(() => secondSeen.events.length === 3);
    await second.unsubscribe();

    const ids = [...firstSeen.events, ...secondSeen.events].map((e) => e.event?.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(secondSeen.events.map((e) => e.event?.type)).toEqual(['AfterRestart', 'AfterRestart', 'LiveAgain']);
    const everything = await collect(client.readAll());
    expect(ids).toEqual(everything.filter((e) => e.event?.streamId.startsWith(category)).map((e) => e.event?.id));
  });

  it('stops cleanly with subscriptions, batch appends and idle connections open, and stop/start are idempotent', async () => {
    const local = EventStoreDBClient.connectionString(server.connectionString);
    try {
      await local.appendToStream(uniqueStream('idle'), events(1, 'Warmup'));
      const subscription = local.subscribeToAll({ fromPosition: START });
      const seen = record(subscription);
      await waitFor(() => seen.log.includes('caughtUp'));
      expect(server.openCallCount).toBeGreaterThanOrEqual(2); // the subscription and the batch-append stream
      await Promise.all([server.stop(), server.stop()]);
      await waitFor(() => seen.errors.length === 1);
      await server.start();
      await server.start();
      expect(server.isRunning).toBe(true);
    } finally {
      await local.dispose();
    }
  });

  it('ends an append still in flight at stop with UnavailableError, unwritten, as a node going down does', async () => {
    const local = EventStoreDBClient.connectionString(server.connectionString);
    try {
      const stream = uniqueStream('inflight');
      await local.appendToStream(uniqueStream('warmup'), events(1, 'Warmup'));
      const batchStreamOnly = server.openCallCount;
      server.delayNextAppends(1, 60_000);
      const pending = local.appendToStream(stream, events(1, 'InFlight'));
      const outcome = pending.then(
        () => 'written',
        (error: unknown) => error,
      );
      // A commit waiting on the server counts as an open call.
      await waitFor(() => server.openCallCount === batchStreamOnly + 1, 5_000, 'the append to reach the server');
      await server.stop();
      expect(await outcome).toBeInstanceOf(UnavailableError);
      await server.start();
      await expect(collect(local.readStream(stream))).rejects.toBeInstanceOf(StreamNotFoundError);
      const after = await local.appendToStream(stream, events(1, 'AfterRestart'), { expectedRevision: NO_STREAM });
      expect(after.nextExpectedRevision).toBe(0n);
    } finally {
      server.clearFaults();
      await local.dispose();
    }
  });
});
