import { Client } from 'pg';
import type { PostgresTestServer } from '../../../../test/support/postgres';
import { startPostgresTestServer } from '../../../../test/support/postgres';
import { scaled } from '../../../../test/support/time-scale';
import { sequenceOf } from '../core/sequence-reads';
import type { RecordedEvent } from '../port/event';
import { ExpectedRevision } from '../port/expected-revision';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';
import { anEvent, eventually, puller, rejectionOf, someEvents, uniqueStream } from '../testing/contract-helpers';
import { PostgresEventStore } from './postgres-event-store';
import { POSTGRES_SCHEMA_VERSION } from './postgres-schema';

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

function connect(schema: string, extra: { poolSize?: number; reconnectTimeoutMs?: number } = {}): PostgresEventStore {
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
    expect(tables.map((t) => t.table_name)).toEqual(['events', 'log_head', 'schema_version', 'store_identity', 'streams']);
    expect(await sql(`SELECT version FROM tenant_a.schema_version`)).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
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
