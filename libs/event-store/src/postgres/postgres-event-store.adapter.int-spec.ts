import { Client } from 'pg';
import type { PostgresTestServer } from '../../../../test/support/postgres';
import { startPostgresTestServer } from '../../../../test/support/postgres';
import { scaled } from '../../../../test/support/time-scale';
import { sequenceOf } from '../core/sequence-reads';
import type { RecordedEvent } from '../port/event';
import { ExpectedRevision } from '../port/expected-revision';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StoreClosedError } from '../port/errors/store-closed.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { anEvent, eventually, puller, rejectionOf, someEvents, uniqueStream } from '../testing/contract-helpers';
import { PostgresEventStore } from './postgres-event-store';
import { POSTGRES_SCHEMA_VERSION } from './postgres-schema';

// Many concurrent appenders against a real server: generous on a loaded runner (each test waits on its own conditions).
jest.setTimeout(scaled(60_000));

let server: PostgresTestServer;
const opened: PostgresEventStore[] = [];

beforeAll(async () => {
  server = await startPostgresTestServer();
}, scaled(60_000));

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

afterAll(async () => {
  await server.stop();
});

function connect(
  schema: string,
  extra: { poolSize?: number; reconnectTimeoutMs?: number; groupCommit?: boolean; maxBatchSize?: number; fallbackPollIntervalMs?: number } = {},
): PostgresEventStore {
  const store = PostgresEventStore.connect({ connectionString: server.connectionString, schema, ...extra });
  opened.push(store);
  return store;
}

async function sql<T extends object>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: server.connectionString });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('PostgresEventStore on a private PostgreSQL cluster', () => {
  it(
    'global order without gaps: with many concurrent appenders on several stores, a live subscriber gets every position once, in order',
    async () => {
      const schema = 'ordering';
      const subscriberStore = connect(schema);
      await subscriberStore.storeIdentity(); // the schema exists before the subscription starts
      const subscription = subscriberStore.subscribeToAll();
      const received: RecordedEvent[] = [];
      const consuming = (async () => {
        for await (const event of subscription) received.push(event);
      })();

      const writers = [connect(schema, { poolSize: 8 }), connect(schema, { poolSize: 8 }), connect(schema, { poolSize: 8 })];
      const appendersPerStore = 8;
      const appendsEach = 25;
      const acknowledged: bigint[] = [];
      await Promise.all(
        writers.flatMap((store, w) =>
          Array.from({ length: appendersPerStore }, async (_, a) => {
            const stream = uniqueStream(`w${w}a${a}`);
            let expected: bigint | typeof ExpectedRevision.NO_STREAM = ExpectedRevision.NO_STREAM;
            for (let i = 0; i < appendsEach; i++) {
              // 1 to 3 events per append: positions of one append are consecutive.
              const result = await store.append(stream, someEvents(1 + (i % 3), 'Ordered', i), { expectedRevision: expected });
              expected = result.nextExpectedRevision;
              acknowledged.push(BigInt(sequenceOf(result.position)));
            }
          }),
        ),
      );
      const expectedCount = writers.length * appendersPerStore * Array.from({ length: appendsEach }, (_, i) => 1 + (i % 3)).reduce((a, b) => a + b, 0);

      // Wait until the subscriber has reached the last acknowledged position: a skipped event then shows as a difference, not a timeout.
      const lastAcknowledged = Number(acknowledged.reduce((a, b) => (a > b ? a : b), 0n));
      try {
        await eventually(() => received.some((e) => sequenceOf(e.position) >= lastAcknowledged), 30_000);
      } finally {
        await subscription.close();
        await consuming;
      }
      const positions = received.map((e) => sequenceOf(e.position));
      expect(lastAcknowledged).toBe(expectedCount);
      expect(positions).toEqual(Array.from({ length: expectedCount }, (_, i) => i + 1)); // every position once, in order, no gap
      for (const position of acknowledged) expect(positions).toContain(Number(position));
    },
    scaled(60_000),
  );

  it(
    'a server restart: calls fail with a retryable StoreUnavailableError, a waiting subscription resumes after it, nothing acknowledged is lost',
    async () => {
      const store = connect('restart', { reconnectTimeoutMs: scaled(30_000) });
      const stream = uniqueStream();
      const before = await store.append(stream, someEvents(3), { expectedRevision: ExpectedRevision.NO_STREAM });
      const subscription = store.subscribeToStream(stream);
      const pull = puller(subscription);
      expect(await pull.take(3)).toHaveLength(3);

      await server.stopServer();
      try {
        const down = await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: before.nextExpectedRevision }));
        expect(down).toBeInstanceOf(StoreUnavailableError);
        expect(down).toMatchObject({ reason: StoreUnavailableReason.CONNECTION_LOST, retryable: true });
        expect(await rejectionOf(store.readStream(stream))).toBeInstanceOf(StoreUnavailableError);
      } finally {
        await server.startServer();
      }

      const after = await store.append(stream, someEvents(2, 'AfterRestart'), { expectedRevision: before.nextExpectedRevision });
      expect(after.nextExpectedRevision).toBe(4n);
      const live = await pull.take(2, scaled(20_000));
      expect(live.map((e) => [e.type, e.revision])).toEqual([
        ['AfterRestart', 3n],
        ['AfterRestart', 4n],
      ]);
      const read = await store.readStream(stream);
      expect(read.events.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
      await subscription.close();
    },
    scaled(90_000),
  );

  it(
    'a restart while appends are in flight: each append is acknowledged or fails with StoreUnavailableError, every acknowledged event is there afterwards',
    async () => {
      const store = connect('inflight', { poolSize: 8 });
      await store.storeIdentity();
      const streams = Array.from({ length: 8 }, () => uniqueStream());
      const acknowledged: string[] = [];
      const refused: unknown[] = [];
      let stop = false;
      const writers = streams.map(async (stream) => {
        while (!stop) {
          const event = anEvent('InFlight');
          try {
            await store.append(stream, [event], { expectedRevision: ExpectedRevision.ANY });
            acknowledged.push(event.id);
          } catch (error) {
            refused.push(error);
            if (!(error instanceof StoreUnavailableError)) return;
            await new Promise((resolve) => setImmediate(resolve));
          }
        }
      });
      await eventually(() => acknowledged.length >= 50, 20_000);
      await server.restart();
      const afterRestart = acknowledged.length;
      await eventually(() => acknowledged.length >= afterRestart + 50, 20_000);
      stop = true;
      await Promise.all(writers);

      expect(refused.length).toBeGreaterThan(0); // the restart did cut appends
      for (const error of refused) expect(error).toBeInstanceOf(StoreUnavailableError);
      const stored = new Set<string>();
      for (const stream of streams) for (const e of (await store.readStream(stream)).events) stored.add(e.id);
      for (const id of acknowledged) expect(stored.has(id)).toBe(true);
    },
    scaled(90_000),
  );

  describe('group commit', () => {
    /** Distinct transaction ids among the rows of `streams` (rows written by one transaction share their xmin). */
    async function transactionsOf(schema: string, streams: readonly string[]): Promise<number> {
      const [row] = await sql<{ n: number }>(`SELECT count(DISTINCT xmin::text)::int AS n FROM ${schema}.events WHERE stream_name = ANY($1::text[])`, [streams]);
      return row?.n ?? 0;
    }

    it('concurrent appends share transactions: fewer transactions than appends, every append acknowledged, positions dense and in order', async () => {
      const store = connect('batch_many');
      await store.storeIdentity();
      const before = store.stats();
      const streams = Array.from({ length: 60 }, () => uniqueStream());
      const results = await Promise.all(streams.map((stream) => store.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM })));
      const stats = store.stats();
      expect(stats.operations - before.operations).toBe(60);
      expect(stats.transactions - before.transactions).toBeLessThan(60);
      expect(stats.largestBatch).toBeGreaterThan(1);
      expect(await transactionsOf('batch_many', streams)).toBe(stats.transactions - before.transactions);
      // Each append's two events are consecutive positions; together they fill 1..120 without a gap.
      const positions = results.map((r) => sequenceOf(r.position)).sort((a, b) => a - b);
      expect(positions).toEqual(Array.from({ length: 60 }, (_, i) => 2 * (i + 1)));
      for (const [i, stream] of streams.entries()) {
        const read = await store.readStream(stream);
        expect(read.events.map((e) => e.revision)).toEqual([0n, 1n]);
        expect(sequenceOf(read.events[1]!.position)).toBe(sequenceOf(results[i]!.position));
        expect(sequenceOf(read.events[0]!.position)).toBe(sequenceOf(results[i]!.position) - 1);
      }
    });

    it('stores writing to the same streams at once: each batch decides on the state the previous one committed (every append with any lands, revisions dense)', async () => {
      const stores = [connect('batch_shared'), connect('batch_shared'), connect('batch_shared')];
      await Promise.all(stores.map((store) => store.storeIdentity()));
      const streams = Array.from({ length: 4 }, () => uniqueStream());
      const appendsEach = 15;
      const settled = await Promise.allSettled(
        stores.flatMap((store) =>
          Array.from({ length: 8 }, async (_, a) => {
            for (let i = 0; i < appendsEach; i++) {
              await store.append(streams[(a + i) % streams.length]!, [anEvent('Shared')], { expectedRevision: ExpectedRevision.ANY });
            }
          }),
        ),
      );
      // A batch that read a stream's state before the previous batch committed would reuse a revision: a unique violation.
      expect(settled.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      let total = 0;
      for (const stream of streams) {
        const revisions = (await stores[0]!.readStream(stream)).events.map((e) => e.revision);
        expect(revisions).toEqual(revisions.map((_, i) => BigInt(i)));
        total += revisions.length;
      }
      expect(total).toBe(3 * 8 * appendsEach);
    });

    it('a refused append (conflict, tombstoned stream) fails alone: the others of its transaction commit', async () => {
      const store = connect('batch_refused');
      const existing = uniqueStream();
      const tombstoned = uniqueStream();
      await store.append(existing, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
      await store.append(tombstoned, someEvents(1), { expectedRevision: ExpectedRevision.NO_STREAM });
      await store.tombstoneStream(tombstoned);
      const others = Array.from({ length: 10 }, () => uniqueStream());
      const settled = await Promise.allSettled([
        store.append(existing, [anEvent()], { expectedRevision: 0n }), // the stream is at 1
        ...others.map((stream) => store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM })),
        store.append(tombstoned, [anEvent()], { expectedRevision: ExpectedRevision.ANY }),
      ]);
      const conflict = settled[0];
      const deleted = settled[settled.length - 1];
      expect(conflict?.status === 'rejected' && conflict.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(conflict).toMatchObject({ reason: { actual: 1n } });
      expect(deleted?.status === 'rejected' && deleted.reason).toBeInstanceOf(StreamDeletedError);
      expect(settled.slice(1, -1).map((r) => r.status)).toEqual(Array(10).fill('fulfilled'));
      expect(await transactionsOf('batch_refused', others)).toBeLessThan(10); // they did share a transaction with others
      expect((await store.readStream(existing)).events).toHaveLength(2);
      for (const stream of others) expect((await store.readStream(stream)).events).toHaveLength(1);
    });

    it('two appends to one stream made at once both land, in the order they were made (exact revisions and any)', async () => {
      const store = connect('batch_same_stream');
      const exact = uniqueStream();
      const any = uniqueStream();
      const [a, b, c, d] = [anEvent('A'), anEvent('B'), anEvent('C'), anEvent('D')];
      const results = await Promise.all([
        store.append(exact, [a], { expectedRevision: ExpectedRevision.NO_STREAM }),
        store.append(exact, [b], { expectedRevision: 0n }),
        store.append(any, [c], { expectedRevision: ExpectedRevision.ANY }),
        store.append(any, [d], { expectedRevision: ExpectedRevision.ANY }),
      ]);
      expect(results.map((r) => r.nextExpectedRevision)).toEqual([0n, 1n, 0n, 1n]);
      expect((await store.readStream(exact)).events.map((e) => e.type)).toEqual(['A', 'B']);
      expect((await store.readStream(any)).events.map((e) => e.type)).toEqual(['C', 'D']);
    });

    it('a retry with the same event ids is idempotent inside a batch: same result, nothing written twice, the others commit', async () => {
      const store = connect('batch_retry');
      const earlier = uniqueStream();
      const events = someEvents(3);
      const first = await store.append(earlier, events, { expectedRevision: ExpectedRevision.NO_STREAM });
      const sameBurst = uniqueStream();
      const burstEvents = someEvents(2);
      const others = Array.from({ length: 5 }, () => uniqueStream());
      const [retry, retryAny, original, again, ...rest] = await Promise.all([
        store.append(earlier, events, { expectedRevision: ExpectedRevision.NO_STREAM }),
        store.append(earlier, events, { expectedRevision: ExpectedRevision.ANY }),
        store.append(sameBurst, burstEvents, { expectedRevision: ExpectedRevision.NO_STREAM }),
        store.append(sameBurst, burstEvents, { expectedRevision: ExpectedRevision.NO_STREAM }),
        ...others.map((stream) => store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM })),
      ]);
      expect(retry).toEqual(first);
      expect(retryAny).toEqual(first);
      expect(again).toEqual(original);
      expect(rest).toHaveLength(5);
      expect((await store.readStream(earlier)).events.map((e) => e.id)).toEqual(events.map((e) => e.id));
      expect((await store.readStream(sameBurst)).events.map((e) => e.id)).toEqual(burstEvents.map((e) => e.id));
      expect(await sql(`SELECT count(*)::int AS n FROM batch_retry.events`)).toEqual([{ n: 3 + 2 + 5 }]);
    });

    it('deletes and tombstones are batched with appends, each decided on its own', async () => {
      const store = connect('batch_deletes');
      const [soft, hard, wrong] = [uniqueStream(), uniqueStream(), uniqueStream()];
      for (const stream of [soft, hard, wrong]) await store.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
      const fresh = uniqueStream();
      const settled = await Promise.allSettled([
        store.deleteStream(soft, { expectedRevision: 1n }),
        store.tombstoneStream(hard),
        store.deleteStream(wrong, { expectedRevision: 5n }),
        store.append(fresh, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM }),
      ]);
      expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((settled[2] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(soft)).toMatchObject({ streamExists: false });
      expect(await rejectionOf(store.readStream(hard))).toBeInstanceOf(StreamDeletedError);
      expect((await store.readStream(wrong)).events).toHaveLength(2);
      // A soft-deleted stream goes on at the next revision.
      expect((await store.append(soft, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM })).nextExpectedRevision).toBe(2n);
    });

    it('maxBatchSize bounds a transaction; without group commit each append is its own transaction', async () => {
      const bounded = connect('batch_bounded', { maxBatchSize: 4 });
      const single = connect('batch_single', { groupCommit: false });
      for (const store of [bounded, single]) await store.storeIdentity();
      const append = (store: PostgresEventStore) =>
        Promise.all(Array.from({ length: 20 }, () => store.append(uniqueStream(), [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM })));
      await append(bounded);
      await append(single);
      expect(bounded.stats()).toMatchObject({ operations: 20, largestBatch: 4 });
      expect(bounded.stats().transactions).toBeGreaterThanOrEqual(5);
      expect(single.stats()).toEqual({ transactions: 20, operations: 20, largestBatch: 1, inOneStatement: 20, decidedAfterRead: 0, pagesFromMemory: 0 });
      const [row] = await sql<{ n: number }>(`SELECT count(DISTINCT xmin::text)::int AS n FROM batch_single.events`);
      expect(row?.n).toBe(20);
    });

    it('an append at the revision it expects is one statement; one that is not is decided after a read (a conflict, a repeat, a tombstone), as before', async () => {
      const store = connect('one_statement');
      await store.storeIdentity();
      const counted = () => {
        const { inOneStatement, decidedAfterRead } = store.stats();
        return { inOneStatement, decidedAfterRead };
      };
      const [stream, other, gone] = [uniqueStream(), uniqueStream(), uniqueStream()];
      const first = someEvents(2);
      expect(await store.append(stream, first, { expectedRevision: ExpectedRevision.NO_STREAM })).toMatchObject({ nextExpectedRevision: 1n });
      const second = await store.append(stream, [anEvent('Second')], { expectedRevision: 1n });
      expect(second.nextExpectedRevision).toBe(2n);
      const together = await store.appendToStreams([
        { streamName: other, events: [anEvent('Other')], expectedRevision: ExpectedRevision.NO_STREAM },
        { streamName: stream, events: [anEvent('Third')], expectedRevision: 2n },
      ]);
      expect(together.map((r) => r.nextExpectedRevision)).toEqual([0n, 3n]);
      expect(sequenceOf(together[1]!.position)).toBe(sequenceOf(together[0]!.position) + 1);
      expect(counted()).toEqual({ inOneStatement: 3, decidedAfterRead: 0 });
      // What the statement wrote is what the rows say: revisions, positions, the streams' rows, one transaction for the two parts.
      expect((await store.readStream(stream)).events.map((e) => [e.type, e.revision, sequenceOf(e.position)])).toEqual([
        ['Counted', 0n, 1],
        ['Counted', 1n, 2],
        ['Second', 2n, 3],
        ['Third', 3n, 5],
      ]);
      expect(await sql(`SELECT stream_name, last_revision::int AS last FROM one_statement.streams WHERE stream_name = ANY($1::text[]) ORDER BY last`, [[stream, other]])).toEqual([
        { stream_name: other, last: 0 },
        { stream_name: stream, last: 3 },
      ]);
      expect(await transactionsOf('one_statement', [other])).toBe(1);
      const [xmins] = await sql<{ n: number }>(`SELECT count(DISTINCT xmin::text)::int AS n FROM one_statement.events WHERE position IN (4, 5)`);
      expect(xmins?.n).toBe(1);

      // Not where expected: nothing written by the statement, the read decides as it always did.
      const conflict = await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: 1n }));
      expect(conflict).toBeInstanceOf(WrongExpectedRevisionError);
      expect(conflict).toMatchObject({ actual: 3n });
      expect(await store.append(stream, first, { expectedRevision: ExpectedRevision.NO_STREAM })).toMatchObject({ nextExpectedRevision: 1n });
      await store.append(gone, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
      await store.tombstoneStream(gone);
      expect(await rejectionOf(store.append(gone, [anEvent()], { expectedRevision: 0n }))).toBeInstanceOf(StreamDeletedError);
      expect(counted()).toEqual({ inOneStatement: 4, decidedAfterRead: 4 }); // the tombstone is decided after a read too
      expect(await sql(`SELECT count(*)::int AS n FROM one_statement.events`)).toEqual([{ n: 6 }]);
    });

    it('close() lets the appends it found queued commit before it ends the pool', async () => {
      const store = PostgresEventStore.connect({ connectionString: server.connectionString, schema: 'batch_close' });
      await store.storeIdentity();
      const streams = Array.from({ length: 30 }, () => uniqueStream());
      const appends = streams.map((stream) => store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM }));
      await store.close();
      expect((await Promise.allSettled(appends)).map((r) => r.status)).toEqual(Array(30).fill('fulfilled'));
      const [row] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM batch_close.events WHERE stream_name = ANY($1::text[])`, [streams]);
      expect(row?.n).toBe(30);
    });

    it('a driver error fails every append of its batch with the translated error, and the next batch works', async () => {
      const store = connect('batch_failure');
      await store.storeIdentity();
      // A trigger that refuses one stream's events makes the batch's one write statement fail.
      const poisoned = uniqueStream();
      await sql(`CREATE FUNCTION batch_failure.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.stream_name = '${poisoned}' THEN RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'P0001'; END IF; RETURN NEW; END $$`);
      await sql(`CREATE TRIGGER refuse BEFORE INSERT ON batch_failure.events FOR EACH ROW EXECUTE FUNCTION batch_failure.refuse()`);
      const others = Array.from({ length: 5 }, () => uniqueStream());
      const settled = await Promise.allSettled([poisoned, ...others].map((stream) => store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM })));
      const batched = settled.filter((r) => r.status === 'rejected');
      expect(batched.length).toBeGreaterThan(1); // the poisoned append's batch companions failed with it
      for (const r of batched) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StoreFailureError);
      expect(await sql(`SELECT count(*)::int AS n FROM batch_failure.events`)).toEqual([{ n: settled.length - batched.length }]);
      expect(await sql(`SELECT last_position::int AS n FROM batch_failure.log_head`)).toEqual([{ n: settled.length - batched.length }]);
      await sql(`DROP TRIGGER refuse ON batch_failure.events`);
      const after = await store.append(others[0]!, [anEvent()], { expectedRevision: ExpectedRevision.ANY });
      expect(sequenceOf(after.position)).toBe(settled.length - batched.length + 1);
    });

    it('rejects bad groupCommit and maxBatchSize options, naming them', () => {
      for (const [options, option] of [
        [{ groupCommit: 'yes' }, 'groupCommit'],
        [{ maxBatchSize: 0 }, 'maxBatchSize'],
        [{ maxBatchSize: 2.5 }, 'maxBatchSize'],
      ] as const) {
        let error: unknown;
        try {
          PostgresEventStore.connect({ connectionString: server.connectionString, ...(options as object) });
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(InvalidOptionError);
        expect(error).toMatchObject({ option });
      }
    });
  });

  it('keeps its tables in the schema named by the option: two schemas in one database are two stores', async () => {
    const a = connect('tenant_a');
    const b = connect('tenant_b');
    const stream = uniqueStream();
    await a.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    expect((await a.readStream(stream)).streamExists).toBe(true);
    expect((await b.readStream(stream)).streamExists).toBe(false);
    expect((await a.storeIdentity()).id).not.toBe((await b.storeIdentity()).id);
    const tables = await sql<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'tenant_a' ORDER BY table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(['events', 'listeners', 'log_head', 'schema_version', 'store_identity', 'streams']);
    expect(await sql(`SELECT version FROM tenant_a.schema_version`)).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
  });

  it('refuses the tls option with a connection string that has a TLS parameter (which node-postgres would let replace it), naming tls', () => {
    for (const parameter of ['sslmode=disable', 'sslrootcert=/ca.pem', 'SSL=true']) {
      expect(() => PostgresEventStore.connect({ connectionString: `${server.connectionString}?${parameter}`, tls: { rejectUnauthorized: true } })).toThrow(
        expect.objectContaining({ name: InvalidOptionError.name, option: 'tls' }),
      );
    }
    // Either alone is fine.
    void PostgresEventStore.connect({ connectionString: `${server.connectionString}?sslmode=disable` }).close();
    void PostgresEventStore.connect({ connectionString: server.connectionString, tls: false }).close();
  });

  it('rejects a schema name that is not a plain lower-case identifier, naming the option, before connecting', () => {
    for (const schema of ['', 'Upper', 'a-b', 'x; DROP TABLE y', '1abc', 'a'.repeat(64)]) {
      const error = (() => {
        try {
          PostgresEventStore.connect({ connectionString: server.connectionString, schema });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ option: 'schema' });
    }
  });

  it('concurrent first callers on a new schema (several stores) agree on one identity', async () => {
    const stores = Array.from({ length: 6 }, () => connect('identity_race'));
    const identities = await Promise.all(stores.map((s) => s.storeIdentity()));
    expect(new Set(identities.map((i) => i.id)).size).toBe(1);
    expect(identities[0]?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await sql('SELECT count(*)::int AS n FROM identity_race.store_identity')).toEqual([{ n: 1 }]);
  });

  it('brings a version 1 schema (no append_expected) to the current version, keeping its events and identity', async () => {
    const old = connect('version_one');
    const stream = uniqueStream();
    await old.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
    const identity = await old.storeIdentity();
    await old.close();
    await sql(`DROP FUNCTION version_one.append_expected`);
    await sql(`UPDATE version_one.schema_version SET version = 1`);
    const store = connect('version_one');
    expect(await store.storeIdentity()).toEqual(identity);
    expect(await sql(`SELECT version FROM version_one.schema_version`)).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    expect(await store.append(stream, [anEvent()], { expectedRevision: 1n })).toMatchObject({ nextExpectedRevision: 2n });
    expect(store.stats()).toMatchObject({ inOneStatement: 1, decidedAfterRead: 0 });
    expect((await store.readStream(stream)).events).toHaveLength(3);
  });

  it('refuses a schema of a newer version with StoreFailureError, writing nothing', async () => {
    await connect('future').storeIdentity();
    await sql(`UPDATE future.schema_version SET version = $1`, [POSTGRES_SCHEMA_VERSION + 1]);
    const error = await rejectionOf(PostgresEventStore.open({ connectionString: server.connectionString, schema: 'future' }));
    expect(error).toBeInstanceOf(StoreFailureError);
    expect(String((error as Error).message)).toContain(`version ${POSTGRES_SCHEMA_VERSION + 1}`);
  });

  it('a server that refuses connections: open fails with StoreUnavailableError (connectionLost), no pg error escapes', async () => {
    const error = await rejectionOf(PostgresEventStore.open({ connectionString: 'postgresql://nobody@127.0.0.1:1/postgres', connectionTimeoutMs: 2_000 }));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ reason: StoreUnavailableReason.CONNECTION_LOST, retryable: true });
  });
});

describe('notifications only where a listener needs them; a store reads its own commits from memory', () => {
  // No fallback tick within a test's time: a subscription of another store sees an append only by its notification.
  const NO_FALLBACK = { fallbackPollIntervalMs: 3_600_000 };

  /** Pulls a subscription for ever (so that it waits, its store's listener registered), keeping what it gets. */
  function consume(subscription: AsyncIterable<RecordedEvent>): RecordedEvent[] {
    const received: RecordedEvent[] = [];
    void (async () => {
      for await (const event of subscription) received.push(event);
    })().catch(() => undefined);
    return received;
  }

  const listeners = async (schema: string): Promise<number> => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.listeners`))[0]?.n ?? -1;

  /** A raw connection LISTENing on a schema's channel (not registered: it sees the notifications that writers send anyway). */
  async function rawListener(schema: string): Promise<{ payloads: string[]; end(): Promise<void> }> {
    const client = new Client({ connectionString: server.connectionString });
    await client.connect();
    const payloads: string[] = [];
    client.on('notification', (message) => payloads.push(message.payload ?? ''));
    await client.query(`LISTEN "agent_ledger_${schema}"`);
    return { payloads, end: () => client.end() };
  }

  it('a write notifies only when another store listens: none while only the writer listens, then one per commit once another store has registered', async () => {
    const schema = 'notify_when_needed';
    const writer = connect(schema);
    const stream = uniqueStream();
    // The writer's own subscription waits (its listener registered): its commits wake it in-process, with no notification.
    const own = consume(writer.subscribeToStream(stream));
    const first = await writer.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    await eventually(() => own.length === 1);
    await eventually(async () => (await listeners(schema)) === 1);
    const raw = await rawListener(schema);
    try {
      const unheard = await writer.append(stream, [anEvent()], { expectedRevision: first.nextExpectedRevision });
      await eventually(() => own.length === 2);

      const other = connect(schema, NO_FALLBACK);
      const remote = consume(other.subscribeToStream(stream, { afterRevision: unheard.nextExpectedRevision }));
      await eventually(async () => (await listeners(schema)) === 2);
      const heard = await writer.append(stream, [anEvent('Heard')], { expectedRevision: unheard.nextExpectedRevision });
      await eventually(() => remote.length === 1);
      expect(remote.map((e) => e.type)).toEqual(['Heard']);
      // Notifications reach a listener in commit order: the second append's would have come before the third's.
      await eventually(() => raw.payloads.length > 0);
      expect(raw.payloads).toEqual([String(sequenceOf(heard.position))]);
    } finally {
      await raw.end();
    }
  });

  it('a store that starts listening after the writer wrote sees what was written before and after, without a fallback tick', async () => {
    const schema = 'late_listener';
    const writer = connect(schema);
    const stream = uniqueStream();
    const before = await writer.append(stream, someEvents(2, 'Before'), { expectedRevision: ExpectedRevision.NO_STREAM });
    const late = connect(schema, NO_FALLBACK);
    const pull = puller(late.subscribeToAll());
    const early = await pull.take(2);
    expect(early.map((e) => e.type)).toEqual(['Before', 'Before']);
    // Appends at once and while it registers, then after: each reaches it by its read after registering or by a notification.
    let expected = before.nextExpectedRevision;
    for (let i = 0; i < 20; i++) expected = (await writer.append(stream, [anEvent('After', { i })], { expectedRevision: expected })).nextExpectedRevision;
    const after = await pull.take(20, 20_000);
    expect(after.map((e) => e.data['i'])).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const stored = await writer.readStream(stream);
    expect(after.map((e) => e.id)).toEqual(stored.events.slice(2).map((e) => e.id));
  });

  it("a store's $all subscription gets its own commits from memory exactly as the server stores them, and another store's commits between them in order", async () => {
    const schema = 'own_commits';
    const a = connect(schema, NO_FALLBACK);
    const b = connect(schema, NO_FALLBACK);
    await a.storeIdentity();
    const live = consume(a.subscribeToAll());
    await eventually(async () => (await listeners(schema)) === 1); // a waits, registered
    const streams = [uniqueStream('a'), uniqueStream('b')];
    const revisions: Array<bigint | typeof ExpectedRevision.NO_STREAM> = [ExpectedRevision.NO_STREAM, ExpectedRevision.NO_STREAM];
    for (let i = 0; i < 30; i++) {
      const w = i % 3 === 2 ? 1 : 0; // a, a, b, a, a, b...
      const store = w === 0 ? a : b;
      const events = someEvents(1 + (i % 2), 'Mixed', i).map((e) => ({ ...e, metadata: { $correlationId: `c${i}`, n: i } }));
      const result = await store.append(streams[w] as string, events, { expectedRevision: revisions[w] as bigint });
      revisions[w] = result.nextExpectedRevision;
      await eventually(() => live.length === sequenceOf(result.position)); // b's by its notification: no fallback tick in time
    }
    const stored: RecordedEvent[] = [];
    for await (const event of a.readAll()) stored.push(event);
    expect(live).toEqual(stored);
    expect(a.stats().pagesFromMemory).toBeGreaterThan(0);
    expect(live.map((e) => sequenceOf(e.position))).toEqual(Array.from({ length: stored.length }, (_, i) => i + 1));
  });

  it('close() ends a live $all subscription that was reading from memory (StoreClosedError), and returns', async () => {
    const schema = 'close_from_memory';
    const store = await PostgresEventStore.open({ connectionString: server.connectionString, schema, fallbackPollIntervalMs: 3_600_000 });
    const subscription = store.subscribeToAll();
    const received: RecordedEvent[] = [];
    const ended = (async () => {
      for await (const event of subscription) received.push(event);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    await eventually(async () => (await listeners(schema)) === 1);
    let expected: bigint | typeof ExpectedRevision.NO_STREAM = ExpectedRevision.NO_STREAM;
    const stream = uniqueStream();
    for (let i = 0; i < 3; i++) {
      expected = (await store.append(stream, [anEvent()], { expectedRevision: expected })).nextExpectedRevision;
      await eventually(() => received.length === i + 1);
    }
    expect(store.stats().pagesFromMemory).toBeGreaterThan(0);
    await store.close();
    expect(await ended).toBeInstanceOf(StoreClosedError);
  });

  it('brings a version 2 schema (no listeners table) to the current version: the new append_expected beside the old one, notifications as before', async () => {
    const schema = 'version_two';
    const old = connect(schema);
    const stream = uniqueStream();
    await old.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
    const identity = await old.storeIdentity();
    await old.close();
    await sql(`DROP TABLE ${schema}.listeners`);
    await sql(`DROP FUNCTION ${schema}.append_expected(text[], bigint[], integer[], integer[], integer[], uuid[], text[], text[], text[], bigint, text, uuid)`);
    // Version 2's function, as a process of that version still running would call it.
    await sql(`CREATE FUNCTION ${schema}.append_expected(text[], bigint[], integer[], integer[], integer[], uuid[], text[], text[], text[], bigint, text)
               RETURNS bigint[] LANGUAGE sql AS 'SELECT NULL::bigint[]'`);
    await sql(`UPDATE ${schema}.schema_version SET version = 2`);
    const store = connect(schema);
    const other = connect(schema, NO_FALLBACK);
    expect(await store.storeIdentity()).toEqual(identity);
    expect(await sql(`SELECT version FROM ${schema}.schema_version`)).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    const remote = consume(other.subscribeToStream(stream, { afterRevision: 1n }));
    await eventually(async () => (await listeners(schema)) === 1);
    expect(await store.append(stream, [anEvent('AfterMigration')], { expectedRevision: 1n })).toMatchObject({ nextExpectedRevision: 2n });
    expect(store.stats()).toMatchObject({ inOneStatement: 1, decidedAfterRead: 0 });
    await eventually(() => remote.length === 1);
    expect(remote.map((e) => e.type)).toEqual(['AfterMigration']);
    const overloads = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace WHERE s.nspname = $1 AND p.proname = 'append_expected'`, [schema]);
    expect(overloads).toEqual([{ n: 2 }]);
  });

  it('a closed store deletes its registration; a registration left by a connection that is gone is deleted by the next one', async () => {
    const schema = 'registrations';
    const first = connect(schema);
    const sub = consume(first.subscribeToAll());
    await first.append(uniqueStream(), [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    await eventually(() => sub.length === 1);
    await eventually(async () => (await listeners(schema)) === 1);
    await sql(`INSERT INTO ${schema}.listeners (id, pid, since) VALUES ('00000000-0000-4000-8000-000000000000', -1, 0)`);
    await first.close();
    expect(await sql(`SELECT pid FROM ${schema}.listeners`)).toEqual([{ pid: -1 }]);
    const second = connect(schema);
    const again = consume(second.subscribeToAll());
    await eventually(() => again.length === 1);
    await eventually(async () => (await sql<{ pid: number }>(`SELECT pid FROM ${schema}.listeners`)).every((r) => r.pid > 0));
    expect(await sql(`SELECT count(*)::int AS n FROM ${schema}.listeners`)).toEqual([{ n: 1 }]);
  });
});
