import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { InvalidOptionError } from '../port/errors/invalid-option.error';
import type { Position } from '../port/position';
import { parsePosition } from '../port/position';
import { enableWal } from '../sqlite/enable-wal';
import type { ProcessorStateStore } from './processor-state-store';
import { SourceIdentityTable } from './source-identity-table';

/** Options of {@link ProcessorDatabase.open}. */
export interface ProcessorDatabaseOptions {
  /**
   * The SQLite file, created with its folder if missing; `:memory:` for a
   * database of this process alone, gone when it ends (its processors then
   * read the store from the start at every start-up).
   */
  readonly path: string;
  /** How long a write waits while another process holds the file's write lock. @default 5000 */
  readonly busyTimeoutMs?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS processor_checkpoints (
  processor TEXT NOT NULL,
  source TEXT NOT NULL,
  position TEXT NOT NULL,
  last_applied TEXT,
  PRIMARY KEY (processor, source)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS processor_sources (
  source TEXT PRIMARY KEY,
  store_id TEXT NOT NULL,
  recorded_at INTEGER NOT NULL
) WITHOUT ROWID;
`;

/**
 * The database of a process's event processors: their checkpoints
 * (`processor_checkpoints`, one per processor and source), the identity of the
 * store each source was read from (`processor_sources`), and the processors'
 * own tables, which they create on {@link sqlite}. A {@link ProcessorRunner}
 * applies each batch and moves the checkpoints in one {@link transaction}.
 * Several processes may share the file (WAL, a busy timeout): a batch reads
 * the checkpoints inside its write transaction, so an event another process
 * already applied is not applied again.
 */
export class ProcessorDatabase implements ProcessorStateStore {
  /** The resolved file path (or `:memory:`). */
  readonly path: string;
  /** The connection, for the processors' own tables and statements. Closed by {@link close}. */
  readonly sqlite: Database.Database;
  private readonly statements: {
    readonly checkpoint: Database.Statement<[string, string], { position: string }>;
    readonly saveCheckpoint: Database.Statement<[string, string, string, string | null]>;
    readonly lastApplied: Database.Statement<[string, string], { last_applied: string | null }>;
    readonly checkpointsOf: Database.Statement<[string], { n: number }>;
    readonly deleteCheckpoints: Database.Statement<[string]>;
  };
  private readonly sources: SourceIdentityTable;

  private constructor(options: ProcessorDatabaseOptions) {
    if (typeof options.path !== 'string' || options.path.trim() === '') {
      throw new InvalidOptionError('processorDatabase.path', `expected a file path or ':memory:', got ${JSON.stringify(options.path) ?? String(options.path)}`);
    }
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) throw new InvalidOptionError('processorDatabase.busyTimeoutMs', 'expected an integer >= 0');
    const memory = options.path === ':memory:';
    this.path = memory ? options.path : resolve(options.path);
    if (!memory) mkdirSync(dirname(this.path), { recursive: true });
    this.sqlite = new Database(this.path, { timeout: busyTimeoutMs });
    try {
      if (!memory) enableWal(this.sqlite, busyTimeoutMs);
      this.sqlite.pragma('synchronous = NORMAL');
      this.sqlite.exec(SCHEMA);
      this.statements = {
        checkpoint: this.sqlite.prepare('SELECT position FROM processor_checkpoints WHERE processor = ? AND source = ?'),
        saveCheckpoint: this.sqlite.prepare(
          'INSERT INTO processor_checkpoints (processor, source, position, last_applied) VALUES (?, ?, ?, ?) ON CONFLICT (processor, source) DO UPDATE SET position = excluded.position, last_applied = COALESCE(excluded.last_applied, processor_checkpoints.last_applied)',
        ),
        lastApplied: this.sqlite.prepare('SELECT last_applied FROM processor_checkpoints WHERE processor = ? AND source = ?'),
        checkpointsOf: this.sqlite.prepare('SELECT COUNT(*) AS n FROM processor_checkpoints WHERE source = ?'),
        deleteCheckpoints: this.sqlite.prepare('DELETE FROM processor_checkpoints WHERE source = ?'),
      };
      this.sources = new SourceIdentityTable(this.sqlite, 'processor_sources');
    } catch (error) {
      this.sqlite.close();
      throw error;
    }
  }

  /**
   * Opens (or creates) the database.
   * @throws InvalidOptionError naming the field when an option is invalid
   */
  static open(options: ProcessorDatabaseOptions): ProcessorDatabase {
    return new ProcessorDatabase(options);
  }

  /** Whether it is open. */
  get open(): boolean {
    return this.sqlite.open;
  }

  /** The position of the last event a processor applied from a source (null: none yet). */
  checkpoint(processor: string, source: string): Position | null {
    const row = this.statements.checkpoint.get(processor, source);
    return row === undefined ? null : parsePosition(row.position);
  }

  /**
   * Moves a processor's checkpoint (call it inside {@link transaction}), and,
   * when given, the position of the last event it applied (the count of
   * events applied is not kept here).
   */
  saveCheckpoint(processor: string, source: string, position: Position, lastApplied?: Position): void {
    this.statements.saveCheckpoint.run(processor, source, position, lastApplied ?? null);
  }

  /**
   * The position of the last event a processor applied from a source (one
   * its filter matched; its checkpoint may be further on, past events it
   * does not take). Null: none yet. For diagnostics and tests.
   */
  lastApplied(processor: string, source: string): Position | null {
    const token = this.statements.lastApplied.get(processor, source)?.last_applied;
    return token === undefined || token === null ? null : parsePosition(token);
  }

  /**
   * Runs `work` in one write transaction (`BEGIN IMMEDIATE`: the checkpoints it
   * reads are the latest of every process): everything it wrote commits, or,
   * if it throws, nothing. Nested calls become savepoints.
   */
  transaction<T>(work: () => T): T {
    return this.sqlite.transaction(work).immediate();
  }

  /** The identity of the store a source was read from (undefined: none recorded). */
  sourceIdentity(source: string): string | undefined {
    return this.sources.get(source);
  }

  /** Records the identity of the store a source is read from. */
  recordSourceIdentity(source: string, storeId: string, now: number): void {
    this.sources.record(source, storeId, now);
  }

  /** Whether any processor has a checkpoint in a source. */
  hasCheckpoints(source: string): boolean {
    return (this.statements.checkpointsOf.get(source)?.n ?? 0) > 0;
  }

  /** Forgets every checkpoint of a source (call it inside {@link transaction}). */
  forgetCheckpoints(source: string): void {
    this.statements.deleteCheckpoints.run(source);
  }

  /** Closes the connection (idempotent). Stop the runners first. */
  close(): void {
    if (this.sqlite.open) this.sqlite.close();
  }
}
