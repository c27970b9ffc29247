import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ExpectedRevision } from '../port/expected-revision';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreFullError } from '../port/errors/store-full.error';
import { StoreUnavailableError } from '../port/errors/store-unavailable.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { anEvent, puller, rejectionOf, someEvents, uniqueStream } from '../testing/contract-helpers';
import { SqliteEventStore } from './sqlite-event-store';
import { Durability } from './sqlite-options';
import { SQLITE_SCHEMA, SQLITE_SCHEMA_VERSION } from './sqlite-schema';

describe('SqliteEventStore (adapter specifics)', () => {
  let dir: string;
  const stores: SqliteEventStore[] = [];
  const raw: Database.Database[] = [];

  const open = (options: Partial<Parameters<typeof SqliteEventStore.open>[0]> = {}): SqliteEventStore => {
    const store = SqliteEventStore.open({ path: join(dir, 'events.sqlite'), ...options });
    stores.push(store);
    return store;
  };
  const rawConnection = (): Database.Database => {
    const db = new Database(join(dir, 'events.sqlite'));
    raw.push(db);
    return db;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-sqlite-adapter-'));
  });

  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const db of raw.splice(0)) if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('file, schema and durability', () => {
    it('creates the directory, uses WAL, and maps durability to synchronous NORMAL / FULL', () => {
      const nested = join(dir, 'a', 'b', 'events.sqlite');
      const normal = open({ path: nested });
      expect(normal.diagnostics()).toEqual({ path: nested, journalMode: 'wal', synchronous: 'NORMAL', schemaVersion: SQLITE_SCHEMA_VERSION, groupCommit: true });
      const full = open({ path: nested, durability: Durability.POWER_LOSS, groupCommit: false });
      expect(full.diagnostics()).toMatchObject({ journalMode: 'wal', synchronous: 'FULL', groupCommit: false });
    });

    it('stores one row per event with its position, stream, revision, id, type, JSON data and metadata', async () => {
      const store = open();
      const stream = uniqueStream();
      const event = anEvent('Stored', { a: [1, 2] }, { $correlationId: 'c' });
      const result = await store.append(stream, [event], { expectedRevision: ExpectedRevision.NO_STREAM });
      const db = rawConnection();
      const row = db.prepare('SELECT * FROM events WHERE stream_name = ?').get(stream);
      expect(row).toMatchObject({
        stream_name: stream,
        revision: 0,
        event_id: event.id,
        event_type: 'Stored',
        data: '{"a":[1,2]}',
        metadata: '{"$correlationId":"c"}',
      });
      expect(String((row as { position: number }).position)).toBe(result.position.split(':')[0]);
      expect(db.prepare('SELECT last_revision, truncate_before, tombstoned FROM streams WHERE stream_name = ?').get(stream)).toEqual({
        last_revision: 0,
        truncate_before: 0,
        tombstoned: 0,
      });
    });

    it('refuses a file with a newer schema version', () => {
      const db = rawConnection();
      db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
      db.close();
      expect(() => open()).toThrow(StoreFailureError);
    });

    it('rejects invalid options with the option name', () => {
      expect(() => open({ durability: 'sometimes' as never })).toThrow(expect.objectContaining({ option: 'durability' }));
      expect(() => open({ maxPollIntervalMs: 1, minPollIntervalMs: 10 })).toThrow(InvalidOptionError);
      expect(() => open({ busyTimeoutMs: -1 })).toThrow(InvalidOptionError);
    });
  });

  describe('store identity', () => {
    it('is written with the schema: every connection to the file reads the same one, another file has another', async () => {
      const [a, b] = [open(), open()];
      const [ia, ib] = await Promise.all([a.storeIdentity(), b.storeIdentity()]);
      expect(ib).toEqual(ia);
      const row = rawConnection().prepare('SELECT id, created_at FROM store_identity').all();
      expect(row).toEqual([{ id: ia.id, created_at: ia.createdAt.getTime() }]);
      const other = open({ path: join(dir, 'other.sqlite') });
      expect((await other.storeIdentity()).id).not.toBe(ia.id);
    });

    it('is added to a file of schema version 1 (an older version) when it is opened writable; its events stay', async () => {
      const db = rawConnection();
      db.exec(SQLITE_SCHEMA.replace(/CREATE TABLE IF NOT EXISTS store_identity[\s\S]*?\);/, ''));
      db.prepare(`INSERT INTO events (stream_name, revision, event_id, event_type, data, metadata, created_at) VALUES ('old-1', 0, ?, 'Old', '{}', '{}', 1)`).run(
        '00000000-0000-4000-8000-000000000001',
      );
      db.prepare(`INSERT INTO streams (stream_name, last_revision) VALUES ('old-1', 0)`).run();
      db.pragma('user_version = 1');
      db.close();

      const readOnly = open({ readOnly: true });
      const refused = await rejectionOf(readOnly.storeIdentity());
      expect(refused).toBeInstanceOf(StoreFailureError);
      expect((refused as Error).message).toMatch(/has no store identity yet.*open it once writable/);

      const store = open({ now: () => 1_700_000_000_000 });
      expect(store.diagnostics().schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
      expect(await store.storeIdentity()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), createdAt: new Date(1_700_000_000_000) });
      expect((await store.readStream('old-1')).events.map((e) => e.type)).toEqual(['Old']);
      expect(await open({ readOnly: true }).storeIdentity()).toEqual(await store.storeIdentity());
    });
  });

  describe('group commit', () => {
    it('groups concurrent appends of one turn into one transaction, each checked on its own', async () => {
      const store = open();
      const streams = Array.from({ length: 100 }, () => uniqueStream());
      const before = store.stats();
      const results = await Promise.allSettled([
        ...streams.map((s) => store.append(s, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM })),
        store.append(streams[0] as string, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM }), // conflicts with the first
      ]);
      const after = store.stats();
      expect(after.transactions - before.transactions).toBe(1);
      expect(after.largestBatch).toBe(101);
      expect(results.slice(0, 100).every((r) => r.status === 'fulfilled')).toBe(true);
      expect((results[100] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    });

    it('without group commit, one transaction per append', async () => {
      const store = open({ groupCommit: false });
      await Promise.all(Array.from({ length: 20 }, () => store.append(uniqueStream(), [anEvent()], { expectedRevision: ExpectedRevision.ANY })));
      expect(store.stats()).toMatchObject({ transactions: 20, largestBatch: 1 });
    });

    it('a failing append in a batch (tombstoned stream) does not fail the others', async () => {
      const store = open();
      const dead = uniqueStream();
      await store.tombstoneStream(dead);
      const [ok1, bad, ok2] = await Promise.allSettled([
        store.append(uniqueStream(), [anEvent()], { expectedRevision: ExpectedRevision.ANY }),
        store.append(dead, [anEvent()], { expectedRevision: ExpectedRevision.ANY }),
        store.append(uniqueStream(), [anEvent()], { expectedRevision: ExpectedRevision.ANY }),
      ]);
      expect(ok1.status).toBe('fulfilled');
      expect(ok2.status).toBe('fulfilled');
      expect((bad as PromiseRejectedResult).reason).toBeInstanceOf(StreamDeletedError);
    });

    it('close() commits appends that were accepted but not yet flushed', async () => {
      const store = open();
      const stream = uniqueStream();
      const pending = store.append(stream, someEvents(3), { expectedRevision: ExpectedRevision.NO_STREAM });
      await store.close();
      await expect(pending).resolves.toMatchObject({ nextExpectedRevision: 2n });
      const again = open();
      expect((await again.readStream(stream)).events).toHaveLength(3);
    });
  });

  describe('driver errors are translated', () => {
    it('another connection holding the write lock past the busy timeout: StoreUnavailableError(busy), retryable, nothing written', async () => {
      const store = open({ busyTimeoutMs: 50 });
      const stream = uniqueStream();
      const locker = rawConnection();
      locker.exec('BEGIN IMMEDIATE');
      const error = await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.ANY }));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'busy', retryable: true });
      expect((error as Error).cause).toMatchObject({ code: 'SQLITE_BUSY' });
      locker.exec('ROLLBACK');
      expect((await store.readStream(stream)).streamExists).toBe(false);
      await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    });

    it('a full database: StoreFullError, the batch rolled back, the store usable afterwards', async () => {
      const store = open();
      const stream = uniqueStream();
      await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
      // Fault injection: cap this connection's database size at its current page count.
      const db = (store as unknown as { db: Database.Database }).db;
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${pages}`);
      const error = await rejectionOf(store.append(stream, [anEvent('Big', { blob: 'x'.repeat(500_000) })], { expectedRevision: 0n }));
      expect(error).toBeInstanceOf(StoreFullError);
      expect((error as Error).cause).toMatchObject({ code: 'SQLITE_FULL' });
      // In one batch with a small append: whatever SQLite does with the transaction, each promise tells the truth.
      const smallStream = uniqueStream();
      const [small, big] = await Promise.allSettled([
        store.append(smallStream, [anEvent()], { expectedRevision: ExpectedRevision.ANY }),
        store.append(stream, [anEvent('Big', { blob: 'y'.repeat(500_000) })], { expectedRevision: 0n }),
      ]);
      expect((big as PromiseRejectedResult).reason).toBeInstanceOf(StoreFullError);
      expect((await store.readStream(smallStream)).streamExists).toBe(small.status === 'fulfilled');
      db.pragma('max_page_count = 1073741823');
      expect((await store.readStream(stream)).currentRevision).toBe(0n);
      expect((await store.append(stream, [anEvent()], { expectedRevision: 0n })).nextExpectedRevision).toBe(1n);
    });

    it('an append that fails after its first event was written leaves none of it; the rest of its batch commits', async () => {
      const store = open();
      const before = uniqueStream();
      const partial = uniqueStream();
      const after = uniqueStream();
      await store.append(before, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
      // Fault injection: a trigger refuses one event type, failing the insert statement while the transaction goes on.
      rawConnection().exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON events WHEN NEW.event_type = 'Poison' BEGIN SELECT RAISE(ABORT, 'poison refused'); END`);
      const [first, failed, last] = await Promise.allSettled([
        store.append(before, [anEvent()], { expectedRevision: 0n }),
        store.append(partial, [anEvent(), anEvent('Poison')], { expectedRevision: ExpectedRevision.NO_STREAM }),
        store.append(after, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM }),
      ]);
      expect((failed as PromiseRejectedResult).reason).toMatchObject({ cause: expect.objectContaining({ message: expect.stringContaining('poison refused') }) });
      expect((await store.readStream(partial)).streamExists).toBe(false);
      expect(first.status).toBe('fulfilled');
      expect(last.status).toBe('fulfilled');
      expect((await store.readStream(before)).events).toHaveLength(2);
      expect((await store.readStream(after)).events).toHaveLength(1);
      // A conflict fails before writing: its batch needs no rollback, the others commit.
      const [conflict, fine] = await Promise.allSettled([
        store.append(before, [anEvent()], { expectedRevision: 0n }),
        store.append(partial, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM }),
      ]);
      expect((conflict as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(fine.status).toBe('fulfilled');
      expect((await store.readStream(partial)).events).toHaveLength(1);
    });

    it('a read-only store: StoreUnavailableError(readOnly)', async () => {
      open(); // create the file
      const readOnly = open({ readOnly: true });
      const error = await rejectionOf(readOnly.append(uniqueStream(), [anEvent()], { expectedRevision: ExpectedRevision.ANY }));
      expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'readOnly' });
    });

    it('a path that cannot be opened: StoreUnavailableError(cannotOpen)', () => {
      const file = join(dir, 'not-a-directory');
      writeFileSync(file, 'x');
      expect(() => SqliteEventStore.open({ path: join(file, 'events.sqlite') })).toThrow(
        expect.objectContaining({ code: 'STORE_UNAVAILABLE', reason: 'cannotOpen' }),
      );
      expect(() => SqliteEventStore.open({ path: join(dir, 'missing.sqlite'), readOnly: true })).toThrow(StoreUnavailableError);
    });

    it('a file that is not a database: StoreFailureError with the driver code', () => {
      writeFileSync(join(dir, 'garbage.sqlite'), 'this is not a database'.repeat(100));
      expect(() => SqliteEventStore.open({ path: join(dir, 'garbage.sqlite') })).toThrow(
        expect.objectContaining({ code: 'STORE_FAILURE', driverCode: 'SQLITE_NOTADB' }),
      );
    });
  });

  describe('live subscriptions', () => {
    it('see appends of another connection to the same file (as another process would make them)', async () => {
      const reader = open({ maxPollIntervalMs: 50 });
      const writer = SqliteEventStore.open({ path: join(dir, 'events.sqlite') });
      stores.push(writer);
      const stream = uniqueStream();
      const subscription = reader.subscribeToStream(stream);
      const pull = puller(subscription);
      expect(await pull.nothingWithin(120)).toBe(true); // the poller has backed off to its maximum
      await writer.append(stream, someEvents(2), { expectedRevision: ExpectedRevision.NO_STREAM });
      expect((await pull.take(2, 2_000)).map((e) => e.revision)).toEqual([0n, 1n]);
      await subscription.close();
    });
  });
});
