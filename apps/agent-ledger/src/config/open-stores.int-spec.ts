import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ExpectedRevision, PostgresEventStore } from '@agent-ledger/event-store';
import type { PostgresTestServer } from '../../../../test/support/postgres';
import { startPostgresTestServer } from '../../../../test/support/postgres';
import { openStores } from './open-stores';
import { readServiceConfig } from './service-config';

describe('openStores (embedded files)', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-open-stores-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('STORE_BUSY_TIMEOUT_MS is how long an append waits for another connection\'s write lock, on the run store and the audit store', async () => {
    const config = readServiceConfig({ AGENT_LEDGER_DATA_DIR: dir, AUDIT_STORE_PATH: join(dir, 'audit.sqlite'), STORE_BUSY_TIMEOUT_MS: '100' }, dir);
    const stores = openStores(config);
    try {
      for (const [store, file] of [
        [stores.runStore, config.eventStorePath as string],
        [stores.auditStore, join(dir, 'audit.sqlite')],
      ] as const) {
        const holder = new Database(file);
        holder.exec('BEGIN EXCLUSIVE');
        try {
          const started = Date.now();
          await expect(store.append('probe-1', [{ id: '9a2b8f1e-6c1d-4f0a-8e55-0d3f2c1b4a11', type: 'Probe', data: {} }], { expectedRevision: ExpectedRevision.ANY })).rejects.toMatchObject({
            code: 'STORE_UNAVAILABLE',
            reason: 'busy',
          });
          // It waited about the 100 ms configured, not the 5 s default.
          expect(Date.now() - started).toBeGreaterThanOrEqual(90);
          expect(Date.now() - started).toBeLessThan(2_500);
        } finally {
          holder.exec('ROLLBACK');
          holder.close();
        }
      }
    } finally {
      await stores.close();
    }
  });
});

describe('openStores (PostgreSQL)', () => {
  let pg: PostgresTestServer;
  let dir: string;

  beforeAll(async () => {
    pg = await startPostgresTestServer();
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-open-stores-pg-'));
  });

  afterAll(async () => {
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens the run store in the POSTGRES_SCHEMA of POSTGRES_CONNECTION_STRING, the audit streams in it too unless AUDIT_STORE_PATH names a file; no embedded run store is made', async () => {
    const config = readServiceConfig({ AGENT_LEDGER_DATA_DIR: dir, POSTGRES_CONNECTION_STRING: pg.connectionString, POSTGRES_SCHEMA: 'open_stores', POSTGRES_POOL_SIZE: '2' }, dir);
    const stores = openStores(config);
    try {
      expect(stores.runStore).toBeInstanceOf(PostgresEventStore);
      expect((stores.runStore as PostgresEventStore).schema).toBe('open_stores');
      expect(stores.auditStore).toBe(stores.runStore);
      await stores.runStore.append('probe-1', [{ id: '9a2b8f1e-6c1d-4f0a-8e55-0d3f2c1b4a11', type: 'Probe', data: {} }], { expectedRevision: ExpectedRevision.NO_STREAM });
    } finally {
      await stores.close();
    }
    const direct = await PostgresEventStore.open({ connectionString: pg.connectionString, schema: 'open_stores' });
    try {
      expect((await direct.readStream('probe-1')).events.map((event) => event.type)).toEqual(['Probe']);
    } finally {
      await direct.close();
    }
    expect(existsSync(join(dir, 'agent-ledger.sqlite'))).toBe(false);

    const withAudit = openStores(readServiceConfig({ AGENT_LEDGER_DATA_DIR: dir, POSTGRES_CONNECTION_STRING: pg.connectionString, AUDIT_STORE_PATH: join(dir, 'audit.sqlite') }, dir));
    try {
      expect(withAudit.runStore).toBeInstanceOf(PostgresEventStore);
      expect(withAudit.auditStore).not.toBe(withAudit.runStore);
      expect(existsSync(join(dir, 'audit.sqlite'))).toBe(true);
    } finally {
      await withAudit.close();
    }
  });
});

