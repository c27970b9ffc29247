import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eventTypeFilter, ProcessorDatabase, ProcessorStoreMismatchError } from '@agent-ledger/event-store';
import { writeExecutedWithoutAudit } from '../testing/crash-points';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime } from '../testing/runtime-harness';
import { AuditGapLedgerStoreMismatchError } from './audit-gap-ledger-store-mismatch.error';

const AGENTS: TestAgent[] = [{ name: 'putter', script: [{ toolCalls: [{ tool: 'test.append', arguments: { value: 'x' } }] }, { final: 'put' }] }];
const APPEND = { name: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 } as const;

/**
 * Turns a processors' database into a ledger file as versions before the
 * processors' database wrote it: the saga's rows, `saga_checkpoints` and
 * `saga_stores`, and no processor table.
 */
function toLegacyLedger(path: string, older?: { readonly writesCheckpoint: string }): void {
  const db = new Database(path);
  try {
    db.exec(`
      CREATE TABLE saga_checkpoints (source TEXT PRIMARY KEY, position TEXT NOT NULL);
      CREATE TABLE saga_stores (role TEXT PRIMARY KEY, store_id TEXT NOT NULL, recorded_at INTEGER NOT NULL);
    `);
    if (older === undefined) {
      db.exec(`
        INSERT INTO saga_checkpoints SELECT substr(processor, length('audit-gap-saga.') + 1), COALESCE(last_applied, position) FROM processor_checkpoints WHERE processor LIKE 'audit-gap-saga.%';
        INSERT INTO saga_stores SELECT source, store_id, recorded_at FROM processor_sources;
      `);
    } else {
      // An older version recorded no identity, and each subscription's checkpoint was an event of its own types.
      db.prepare("INSERT INTO saga_checkpoints VALUES ('writes', ?)").run(older.writesCheckpoint);
    }
    db.exec('DROP TABLE processor_checkpoints; DROP TABLE processor_sources; DROP TABLE queue_runs;');
  } finally {
    db.close();
  }
}

describe.each(['sqlite', 'eventstoredb'] as const)("the audit-gap saga's state knows which stores it follows (%s, run and audit apart)", (kind) => {
  // Starting again on store A needs its data back: the embedded files (a protocol-level server's data ends with it).
  const onStoreAAgain = kind === 'sqlite' ? it : it.skip;
  let sagaDir: string;
  let storeDirA: string;
  const harnesses: RuntimeHarness[] = [];
  const databasePath = () => join(sagaDir, 'audit-gap-saga.sqlite');
  const start = async (
    saga: { onStoreMismatch?: 'refuse' | 'reset' } = {},
    storeDir?: string,
    processors?: { databasePath: string },
  ): Promise<RuntimeHarness> => {
    const rt = await startRuntime({ store: kind, agents: AGENTS, sagaDir, storeDir, execution: { auditGapSaga: { gracePeriodMs: 30_000, ...saga }, processors } });
    harnesses.push(rt);
    return rt;
  };
  const stop = async (rt: RuntimeHarness): Promise<void> => {
    harnesses.splice(harnesses.indexOf(rt), 1);
    await rt.close();
  };
  /** A saga of store A with a write waiting for its audit; the process stopped, its database kept. */
  const stateOfStoreA = async (): Promise<{ runStoreId: string; auditStoreId: string; checkpoint: string; write: string }> => {
    const a = await start({}, storeDirA);
    await writeExecutedWithoutAudit(a, { agent: 'putter', tool: APPEND });
    await eventually(() => (a.saga.pendingCount() === 1 ? true : undefined), 10_000, 'the pending write');
    let write = '';
    for await (const event of a.runStore.readAll({ filter: eventTypeFilter('ToolExecuted') })) write = event.position;
    const ids = { runStoreId: (await a.runStore.storeIdentity()).id, auditStoreId: (await a.auditStore.storeIdentity()).id, checkpoint: a.saga.checkpoint('writes') as string, write };
    await stop(a);
    return ids;
  };
  const inDatabase = <T>(path: string, read: (db: ProcessorDatabase) => T): T => {
    const db = ProcessorDatabase.open({ path });
    try {
      return read(db);
    } finally {
      db.close();
    }
  };
  const pendingWrites = (path: string): number => inDatabase(path, (db) => (db.sqlite.prepare('SELECT COUNT(*) AS n FROM pending_writes').get() as { n: number }).n);

  beforeEach(() => {
    sagaDir = mkdtempSync(join(tmpdir(), 'agent-ledger-saga-identity-'));
    storeDirA = mkdtempSync(join(tmpdir(), 'agent-ledger-saga-identity-a-'));
  });

  afterEach(async () => {
    for (const rt of harnesses.splice(0)) await rt.close();
    rmSync(sagaDir, { recursive: true, force: true });
    rmSync(storeDirA, { recursive: true, force: true });
  });

  onStoreAAgain('records the run store and the audit store it starts on in the processors\' database, and starts again on them', async () => {
    const { runStoreId, auditStoreId } = await stateOfStoreA();
    expect(runStoreId).not.toBe(auditStoreId);
    expect(inDatabase(databasePath(), (db) => [db.sourceIdentity('runs'), db.sourceIdentity('audit')])).toEqual([runStoreId, auditStoreId]);
    const again = await start({}, storeDirA);
    expect(again.saga.pendingCount()).toBe(1);
  });

  it('refuses other stores, naming the database and both identities, and keeps its state', async () => {
    const { runStoreId } = await stateOfStoreA();
    const refused = await start().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProcessorStoreMismatchError);
    const error = refused as ProcessorStoreMismatchError;
    expect(error).toMatchObject({ source: 'runs', recordedStoreId: runStoreId, path: databasePath() });
    expect(error.currentStoreId).not.toBe(runStoreId);
    expect(error.message).toContain(databasePath());
    expect(pendingWrites(databasePath())).toBe(1);
    expect(inDatabase(databasePath(), (db) => db.sourceIdentity('runs'))).toBe(runStoreId);
  });

  it("with onStoreMismatch reset, forgets the other stores' state and follows the new ones from their start", async () => {
    await stateOfStoreA();
    const b = await start({ onStoreMismatch: 'reset' });
    expect(b.saga.pendingCount()).toBe(0);
    const { runId } = await writeExecutedWithoutAudit(b, { agent: 'putter', tool: APPEND });
    await eventually(() => (b.saga.pendingCount() === 1 ? true : undefined), 10_000, 'the pending write of store B');
    b.clock.advance(31_000);
    const check = await b.saga.checkDeadlines();
    expect(check.reported).toHaveLength(1);
    expect((await b.runEvents(runId)).some((e) => e.type === 'AuditGapDetected')).toBe(true);
    expect(inDatabase(databasePath(), (db) => [db.sourceIdentity('runs'), db.sourceIdentity('audit')])).toEqual([
      (await b.runStore.storeIdentity()).id,
      (await b.auditStore.storeIdentity()).id,
    ]);
  });

  onStoreAAgain("imports a ledger file of an earlier version into another processors' database, once, and renames it", async () => {
    const { checkpoint } = await stateOfStoreA();
    toLegacyLedger(databasePath());
    const processorsPath = join(sagaDir, 'processors.sqlite');
    const a = await start({}, storeDirA, { databasePath: processorsPath });

    expect(a.saga.pendingCount()).toBe(1);
    expect(a.saga.checkpoint('writes')).toBe(checkpoint);
    expect(existsSync(databasePath())).toBe(false);
    expect(existsSync(`${databasePath()}.migrated`)).toBe(true);
    a.clock.advance(31_000);
    expect((await a.saga.checkDeadlines()).reported).toHaveLength(1);
  });

  onStoreAAgain('makes a ledger file of an earlier version the processors\' database in place', async () => {
    const { checkpoint } = await stateOfStoreA();
    toLegacyLedger(databasePath());
    const a = await start({}, storeDirA);

    expect(a.saga.pendingCount()).toBe(1);
    expect(a.saga.checkpoint('writes')).toBe(checkpoint);
    const tables = inDatabase(databasePath(), (db) => (db.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name));
    expect(tables).not.toContain('saga_checkpoints');
    expect(tables).not.toContain('saga_stores');
  });

  onStoreAAgain('a ledger file of an older version (no identities) is imported on the stores its checkpoints fall on, and refused on others', async () => {
    const { write } = await stateOfStoreA();
    toLegacyLedger(databasePath(), { writesCheckpoint: write });
    const refused = await start().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuditGapLedgerStoreMismatchError);
    expect((refused as Error).message).toMatch(/recorded no identity and its checkpoints do not fit it/);
    expect(existsSync(databasePath())).toBe(true);

    // Store A again: its checkpoints fall on its own events.
    const a = await start({}, storeDirA);
    expect(a.saga.pendingCount()).toBe(1);
    expect(inDatabase(databasePath(), (db) => db.sourceIdentity('runs'))).toBe((await a.runStore.storeIdentity()).id);
  });
});
