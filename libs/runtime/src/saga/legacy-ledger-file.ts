import { existsSync, renameSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { ProcessorDatabase } from '@agent-ledger/event-store';
import { parsePosition } from '@agent-ledger/event-store';
import type { SagaSource } from './audit-gap-ledger';
import { AUDIT_GAP_LEDGER_TABLES } from './audit-gap-ledger';
import type { SagaStoreRole } from './audit-gap-ledger-store-mismatch.error';

/** The store each of the saga's processors reads. */
export const SAGA_SOURCE_ROLES: Readonly<Record<SagaSource, SagaStoreRole>> = { writes: 'runs', decisions: 'runs', audits: 'audit', statements: 'audit' };

/** The checkpoint name of one of the saga's processors in the processors' database. */
export function sagaProcessorName(source: SagaSource): string {
  return `audit-gap-saga.${source}`;
}

/**
 * A ledger file of the audit-gap saga as versions before the processors'
 * database made it (`saga_checkpoints`, `saga_stores` and the saga's tables,
 * in a file of its own): checked against the stores, then imported once into
 * the processors' database ({@link importLegacyLedger}).
 */
export class LegacyLedgerFile {
  private constructor(
    readonly path: string,
    private readonly db: Database.Database,
  ) {}

  /** Opens the file if it exists and holds a ledger (null otherwise: nothing to check or import). */
  static openIfAny(path: string): LegacyLedgerFile | null {
    if (path === ':memory:' || !existsSync(path)) return null;
    const db = new Database(path, { timeout: 5_000 });
    try {
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'saga_checkpoints'").get() === undefined) {
        db.close();
        return null;
      }
      db.exec('CREATE TABLE IF NOT EXISTS saga_stores (role TEXT PRIMARY KEY, store_id TEXT NOT NULL, recorded_at INTEGER NOT NULL)');
      return new LegacyLedgerFile(resolve(path), db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The identity of each store the ledger's state was made from, by role (none for a ledger made before identities were recorded). */
  storeIdentities(): ReadonlyMap<SagaStoreRole, string> {
    const rows = this.db.prepare('SELECT role, store_id FROM saga_stores').all() as Array<{ role: SagaStoreRole; store_id: string }>;
    return new Map(rows.map((r) => [r.role, r.store_id]));
  }

  /** Records the identity of the store the ledger follows in a role. */
  recordStoreIdentity(role: SagaStoreRole, storeId: string, now: number): void {
    this.db
      .prepare('INSERT INTO saga_stores (role, store_id, recorded_at) VALUES (?, ?, ?) ON CONFLICT (role) DO UPDATE SET store_id = excluded.store_id, recorded_at = excluded.recorded_at')
      .run(role, storeId, now);
  }

  /** The checkpoint of each of its subscriptions. */
  checkpoints(): ReadonlyMap<SagaSource, string> {
    const rows = this.db.prepare('SELECT source, position FROM saga_checkpoints').all() as Array<{ source: SagaSource; position: string }>;
    return new Map(rows.map((r) => [r.source, r.position]));
  }

  /** Forgets everything (checkpoints, pending deadlines, recorded stores), in one transaction. */
  reset(): void {
    this.db.transaction(() => {
      for (const table of ['saga_checkpoints', 'saga_stores', ...AUDIT_GAP_LEDGER_TABLES]) {
        if (this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined) this.db.exec(`DELETE FROM ${table}`);
      }
    })();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * Imports a ledger file of an earlier version (checked against the stores
 * first) into the processors' database, in one transaction: its pending
 * writes, early audits, pending and stated decisions, each subscription's
 * checkpoint as its processor's (where that has none yet), and the stores'
 * identities (where none is recorded). A ledger in the processors' own file
 * loses its `saga_checkpoints` and `saga_stores` tables; a ledger in another
 * file is renamed `<file>.migrated` after the import.
 *
 * @param sourceOf the runner's source name that reads the store of a role
 * @returns whether there was a ledger to import
 */
export function importLegacyLedger(database: ProcessorDatabase, legacyPath: string, sourceOf: (role: SagaStoreRole) => string): boolean {
  const legacy = LegacyLedgerFile.openIfAny(legacyPath);
  if (legacy === null) return false;
  let checkpoints: ReadonlyMap<SagaSource, string>;
  let identities: ReadonlyMap<SagaStoreRole, string>;
  try {
    checkpoints = legacy.checkpoints();
    identities = legacy.storeIdentities();
  } finally {
    legacy.close();
  }
  const same = legacy.path === database.path;
  const db = database.sqlite;
  if (!same) db.prepare('ATTACH DATABASE ? AS legacy').run(legacy.path);
  try {
    database.transaction(() => {
      if (!same) {
        for (const table of AUDIT_GAP_LEDGER_TABLES) {
          if (db.prepare("SELECT 1 FROM legacy.sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined) {
            db.exec(`INSERT OR IGNORE INTO main.${table} SELECT * FROM legacy.${table}`);
          }
        }
      }
      for (const [source, token] of checkpoints) {
        const name = sagaProcessorName(source);
        const of = sourceOf(SAGA_SOURCE_ROLES[source]);
        // A subscription's checkpoint was the last event it took: the processor's checkpoint, and the last it applied.
        if (database.checkpoint(name, of) === null) database.saveCheckpoint(name, of, parsePosition(token), parsePosition(token));
      }
      for (const [role, storeId] of identities) {
        if (database.sourceIdentity(sourceOf(role)) === undefined) database.recordSourceIdentity(sourceOf(role), storeId, Date.now());
      }
      if (same) db.exec('DROP TABLE saga_checkpoints; DROP TABLE saga_stores;');
    });
  } finally {
    if (!same) db.exec('DETACH DATABASE legacy');
  }
  if (!same) {
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(`${legacy.path}${suffix}`)) renameSync(`${legacy.path}${suffix}`, `${legacy.path}.migrated${suffix}`);
    }
  }
  return true;
}
