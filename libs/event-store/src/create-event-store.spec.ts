import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore, POSTGRES_CONNECTION_STRING, selectEventStore } from './create-event-store';
import { EventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store';
import { InvalidOptionError } from './port/errors/invalid-option.error';
import { PostgresEventStore } from './postgres/postgres-event-store';
import { SqliteEventStore } from './sqlite/sqlite-event-store';

describe('selectEventStore / createEventStore', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-factory-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('selects the embedded store at the given path when EVENTSTORE_CONNECTION_STRING is not set', () => {
    expect(selectEventStore({ env: {}, sqlite: { path: '/tmp/x.sqlite' } })).toEqual({ kind: 'sqlite', path: '/tmp/x.sqlite' });
  });

  it('has no default file: without a connection string, a missing or blank sqlite.path is refused, naming the option, and no file is made', () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      for (const config of [{ env: {} }, { env: {}, sqlite: {} as never }, { env: {}, sqlite: { path: '  ' } }]) {
        expect(() => selectEventStore(config)).toThrow(InvalidOptionError);
        expect(() => createEventStore(config)).toThrow(/sqlite\.path.*is required when neither EVENTSTORE_CONNECTION_STRING nor POSTGRES_CONNECTION_STRING is set/);
      }
      expect(() => SqliteEventStore.open({} as never)).toThrow(/path.*there is no default/);
      expect(existsSync(join(dir, 'data'))).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });

  it('treats an empty or blank connection string as not set', () => {
    expect(selectEventStore({ env: { EVENTSTORE_CONNECTION_STRING: '' }, sqlite: { path: '/tmp/x.sqlite' } }).kind).toBe('sqlite');
    expect(selectEventStore({ env: { EVENTSTORE_CONNECTION_STRING: '  ' }, sqlite: { path: '/tmp/x.sqlite' } }).kind).toBe('sqlite');
  });

  it('selects EventStoreDB when EVENTSTORE_CONNECTION_STRING is set (trimmed)', () => {
    expect(selectEventStore({ env: { EVENTSTORE_CONNECTION_STRING: ' esdb://localhost:2113?tls=false\n' } })).toEqual({
      kind: 'eventstoredb',
      connectionString: 'esdb://localhost:2113?tls=false',
    });
  });

  it('reads process.env by default', () => {
    const saved = process.env['EVENTSTORE_CONNECTION_STRING'];
    try {
      process.env['EVENTSTORE_CONNECTION_STRING'] = 'esdb://example:2113?tls=false';
      expect(selectEventStore().kind).toBe('eventstoredb');
      delete process.env['EVENTSTORE_CONNECTION_STRING'];
      expect(selectEventStore({ sqlite: { path: '/tmp/x.sqlite' } }).kind).toBe('sqlite');
    } finally {
      if (saved === undefined) delete process.env['EVENTSTORE_CONNECTION_STRING'];
      else process.env['EVENTSTORE_CONNECTION_STRING'] = saved;
    }
  });

  it('opens an EventStoreDbEventStore lazily (no server needed to create and close it)', async () => {
    const store = createEventStore({ env: { EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:1?tls=false' }, sqlite: { path: join(dir, 'unused.sqlite') } });
    expect(store).toBeInstanceOf(EventStoreDbEventStore);
    await store.close();
  });

  it('opens a SqliteEventStore otherwise, with the given options', async () => {
    const store = createEventStore({ env: {}, sqlite: { path: join(dir, 'store.sqlite') } });
    expect(store).toBeInstanceOf(SqliteEventStore);
    await store.close();
  });

  it('rejects a connection string that is not esdb:// with a field-qualified InvalidOptionError', () => {
    expect(() => createEventStore({ env: { EVENTSTORE_CONNECTION_STRING: 'http://localhost:2113' } })).toThrow(InvalidOptionError);
    expect(() => createEventStore({ env: { EVENTSTORE_CONNECTION_STRING: 'http://localhost:2113' } })).toThrow(/eventStoreDb\.connectionString/);
  });

  it('selects PostgreSQL when POSTGRES_CONNECTION_STRING is set (trimmed; blank is not set)', () => {
    expect(POSTGRES_CONNECTION_STRING).toBe('POSTGRES_CONNECTION_STRING');
    expect(selectEventStore({ env: { POSTGRES_CONNECTION_STRING: ' postgresql://al@db:5432/al\n' } })).toEqual({ kind: 'postgres', connectionString: 'postgresql://al@db:5432/al' });
    expect(selectEventStore({ env: { POSTGRES_CONNECTION_STRING: '  ', EVENTSTORE_CONNECTION_STRING: '' }, sqlite: { path: '/tmp/x.sqlite' } }).kind).toBe('sqlite');
    expect(selectEventStore({ env: { POSTGRES_CONNECTION_STRING: '', EVENTSTORE_CONNECTION_STRING: 'esdb://localhost:2113?tls=false' } }).kind).toBe('eventstoredb');
  });

  it('refuses both connection strings at once, naming both, and opens nothing', () => {
    const config = { env: { EVENTSTORE_CONNECTION_STRING: 'esdb://localhost:2113?tls=false', POSTGRES_CONNECTION_STRING: 'postgresql://al@db/al' }, sqlite: { path: join(dir, 'both.sqlite') } };
    expect(() => selectEventStore(config)).toThrow(InvalidOptionError);
    expect(() => createEventStore(config)).toThrow(/POSTGRES_CONNECTION_STRING.*must not be set with EVENTSTORE_CONNECTION_STRING/);
    expect(existsSync(join(dir, 'both.sqlite'))).toBe(false);
  });

  it('opens a PostgresEventStore lazily with the postgres options (no server needed to create and close it)', async () => {
    const store = createEventStore({ env: { POSTGRES_CONNECTION_STRING: 'postgresql://al@127.0.0.1:1/al' }, postgres: { schema: 'tenant_a', poolSize: 2 }, sqlite: { path: join(dir, 'unused-pg.sqlite') } });
    expect(store).toBeInstanceOf(PostgresEventStore);
    expect((store as PostgresEventStore).schema).toBe('tenant_a');
    await store.close();
    expect(existsSync(join(dir, 'unused-pg.sqlite'))).toBe(false);
  });

  it('passes the postgres options to the adapter, whose checks name the option', () => {
    expect(() => createEventStore({ env: { POSTGRES_CONNECTION_STRING: 'postgresql://al@127.0.0.1:1/al' }, postgres: { schema: 'Bad-Name' } })).toThrow(/schema/);
    expect(() => createEventStore({ env: { POSTGRES_CONNECTION_STRING: 'postgresql://al@127.0.0.1:1/al' }, postgres: { poolSize: 0 } })).toThrow(/poolSize/);
  });
});
