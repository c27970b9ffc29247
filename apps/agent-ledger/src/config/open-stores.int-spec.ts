import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ExpectedRevision } from '@agent-ledger/event-store';
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
