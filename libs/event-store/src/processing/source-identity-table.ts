import type Database from 'better-sqlite3';

/**
 * The identity of the event store each source was read from, in a table
 * `(source TEXT PRIMARY KEY, store_id TEXT NOT NULL, recorded_at INTEGER NOT NULL)`
 * of a state store (the processors' `processor_sources`, the read models'
 * `projection_sources`): what a {@link ProcessorStateStore}'s source
 * identity methods read and write.
 */
export class SourceIdentityTable {
  private readonly select: Database.Statement<[string], { store_id: string }>;
  private readonly upsert: Database.Statement<[string, string, number]>;

  /** @param table a trusted table name (never input) */
  constructor(db: Database.Database, table: string) {
    this.select = db.prepare(`SELECT store_id FROM ${table} WHERE source = ?`);
    this.upsert = db.prepare(
      `INSERT INTO ${table} (source, store_id, recorded_at) VALUES (?, ?, ?) ON CONFLICT (source) DO UPDATE SET store_id = excluded.store_id, recorded_at = excluded.recorded_at`,
    );
  }

  /** The identity recorded for a source (undefined: none). */
  get(source: string): string | undefined {
    return this.select.get(source)?.store_id;
  }

  /** Records the identity of the store a source is read from. */
  record(source: string, storeId: string, now: number): void {
    this.upsert.run(source, storeId, now);
  }
}
