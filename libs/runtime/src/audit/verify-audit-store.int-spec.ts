import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { startRuntime } from '../testing/runtime-harness';
import { verifyAuditStore } from './verify-audit-store';

const AGENTS = [{ name: 'putter', script: [{ toolCalls: [{ tool: 'test.put', arguments: { value: 'x' } }, { tool: 'test.append', arguments: { value: 'y' } }] }, { final: 'ok' }] }];

describe('verifyAuditStore', () => {
  let storeDir: string;

  beforeEach(() => {
    storeDir = mkdtempSync(join(tmpdir(), 'agent-ledger-verify-'));
  });

  afterEach(() => {
    rmSync(storeDir, { recursive: true, force: true });
  });

  async function recordRuns(count: number): Promise<string[]> {
    const rt = await startRuntime({ store: 'sqlite', storeDir, agents: AGENTS });
    const ids: string[] = [];
    try {
      for (let i = 0; i < count; i++) ids.push((await rt.runs.runInteractive({ agent: 'putter', input: `go ${i}` })).runId);
    } finally {
      await rt.close();
    }
    return ids;
  }

  it('finds every chain intact after real runs', async () => {
    await recordRuns(3);
    const store = SqliteEventStore.open({ path: join(storeDir, 'audit.sqlite') });
    try {
      expect(await verifyAuditStore(store)).toEqual({ runs: 3, records: 12, brokenRuns: [], breaks: [] });
    } finally {
      await store.close();
    }
  });

  it('reports a record edited in the database, in the run it belongs to', async () => {
    const [, tampered] = await recordRuns(2);
    // Someone with access to the file edits an audit record's outcome in place.
    const db = new Database(join(storeDir, 'audit.sqlite'));
    const row = db.prepare("SELECT position AS id, data FROM events WHERE stream_name = ? AND event_type = 'AuditRecorded' ORDER BY position LIMIT 1 OFFSET 1").get(`audit-${tampered}`) as { id: number; data: string };
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(row.data.replace('"succeeded"', '"failed"'), row.id);
    db.close();
    const store = SqliteEventStore.open({ path: join(storeDir, 'audit.sqlite') });
    try {
      const result = await verifyAuditStore(store);
      expect(result.brokenRuns).toEqual([tampered]);
      expect(result.breaks).toEqual([expect.objectContaining({ runId: tampered, index: 1, problem: 'hashMismatch' })]);
    } finally {
      await store.close();
    }
  });
});
