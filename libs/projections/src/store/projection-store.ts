import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { EventProcessor, ProcessorStateStore } from '@agent-ledger/event-store';
import { enableWal, parsePosition, SourceIdentityTable } from '@agent-ledger/event-store';
import type { ProjectionDefinition } from '../core/projection-definition';
import { allTablesOf, guardTableOf } from '../core/projection-definition';
import type { ProjectionName } from '../core/projection-name';
import { ALL_PROJECTIONS } from '../core/projections';
import type { Row, TableSpec } from '../core/table-spec';
import { InvalidProjectionOptionError } from '../errors/invalid-projection-option.error';
import { ProjectionStoreClosedError } from '../errors/projection-store-closed.error';
import { UnknownProjectionError } from '../errors/unknown-projection.error';
import type { RebuildRecord } from '../rebuild/rebuild-record';
import { REBUILD_RECORDS_KEPT } from '../rebuild/rebuild-record';
import type { Checkpoint } from './checkpoint';
import { checkpointName } from './checkpoint';
import type { ProjectionStoreOptions } from './projection-store-options';
import type { TableSlot } from './sql-table';
import { addMissingColumnsSql, createIndexSql, createTableSql, physicalName, TableSlot as Slot } from './sql-table';
import type { BatchInput, BatchOutcome, BatchStorage, PendingBatchInput, RebuildBatch } from './pending-batch';
import { PendingBatch } from './pending-batch';
import { ProjectionProcessor } from './projection-processor';
import { ReadModelState } from './read-model-state';
import type { TableStatements } from './sqlite-row-store';
import type { WrittenKeys } from './written-keys';

export type { BatchInput, BatchOutcome } from './pending-batch';

/** The identity of the event store each source was when its rows were made (`projection_sources`, and its rebuild twin). */
const SOURCE_COLUMNS = 'source TEXT PRIMARY KEY NOT NULL, store_id TEXT NOT NULL, recorded_at INTEGER NOT NULL';

const CHECKPOINT_COLUMNS = 'name TEXT PRIMARY KEY NOT NULL, projection TEXT NOT NULL, source TEXT NOT NULL, position TEXT, events_applied INTEGER NOT NULL, updated_at INTEGER NOT NULL';

interface CheckpointRecord {
  readonly projection: string;
  readonly source: string;
  readonly position: string | null;
  readonly events_applied: number;
  readonly updated_at: number;
}

/**
 * The read models' database: one SQLite file (WAL), separate from the event
 * store, holding each projection's tables, their checkpoints
 * (`projection_checkpoints`), and during a rebuild the `<table>__rebuild`
 * tables with their own checkpoints (`projection_checkpoints__rebuild`).
 *
 * Every batch of events is applied with its checkpoint in one transaction;
 * a rebuild is swapped in with one transaction (drop the live tables, rename
 * the rebuilt ones, move their checkpoints), so a reader sees the old model or
 * the new one, never half of one.
 *
 * @remarks better-sqlite3 is synchronous: a batch blocks the event loop while it
 * is applied (a few milliseconds for the default batch size).
 */
export class ProjectionStore {
  /** The absolute path of the database file. */
  readonly path: string;
  private readonly db: Database.Database;
  private readonly byName: ReadonlyMap<ProjectionName, ProjectionDefinition>;
  private readonly tables: ReadonlyMap<string, TableSpec<Row>>;
  private readonly statements = new Map<string, TableStatements>();
  private readonly now: () => number;
  private closed = false;
  /** The page cache size to restore once a rebuild is swapped in or discarded (null: none running). */
  private cacheBeforeRebuild: number | null = null;
  /** Statements on the checkpoint tables (never dropped), prepared once: each live batch runs them. */
  private readonly checkpointStatements = new Map<string, Database.Statement>();
  /** What a batch writes through. */
  private readonly batchStorage: BatchStorage;
  /**
   * The live tables as the state store of a `ProcessorRunner`: the
   * projections' checkpoints (`projection_checkpoints`) and the identities of
   * their sources' stores (`projection_sources`). Feed it the
   * {@link processors}.
   */
  readonly stateStore: ProcessorStateStore;

  private constructor(options: ProjectionStoreOptions) {
    if (typeof options.path !== 'string' || options.path.trim().length === 0) {
      throw new InvalidProjectionOptionError('path', `expected the read models' file path (there is no default: a host's read models must not share the agent-ledger service's ./data/read-models.sqlite), got ${JSON.stringify(options.path) ?? String(options.path)}`);
    }
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new InvalidProjectionOptionError('busyTimeoutMs', 'expected an integer >= 0');
    }
    this.path = resolve(options.path);
    this.now = options.now ?? Date.now;
    const definitions = options.projections ?? ALL_PROJECTIONS;
    this.byName = new Map(definitions.map((d) => [d.name, d]));
    this.tables = new Map(definitions.flatMap((d) => allTablesOf(d).map((t) => [t.name, t] as const)));
    mkdirSync(dirname(this.path), { recursive: true });
    this.db = new Database(this.path, { timeout: busyTimeoutMs });
    this.batchStorage = {
      db: this.db,
      tables: this.tables,
      statements: this.statements,
      checkpoint: (projection, source, slot) => this.checkpoint(projection, source, slot),
      checkpointUpsert: (slot) =>
        this.checkpointStatement(`INSERT OR REPLACE INTO ${checkpointTable(slot)} (name, projection, source, position, events_applied, updated_at) VALUES (?, ?, ?, ?, ?, ?)`),
      now: () => this.now(),
    };
    try {
      enableWal(this.db, busyTimeoutMs);
      this.db.pragma('synchronous = NORMAL');
      // Batches touch rows all over the tables (random run and step ids): a 64 MiB page cache instead of 2 MiB, and a
      // checkpoint every ~40 MiB of WAL instead of every ~4 MiB, which a rebuild's batches passed at nearly every commit.
      this.db.pragma('cache_size = -65536');
      this.db.pragma('wal_autocheckpoint = 10000');
      this.migrate();
      this.stateStore = new ReadModelState(this.path, this.db, this.now);
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /**
   * The named projections (default: every one of the store) as event
   * processors of a `ProcessorRunner`, kept in {@link stateStore}: add them
   * with it (`runner.add(processor, store.stateStore)`), one runner per
   * source. Each batch's rows and checkpoints are written in one transaction
   * of this file.
   * @throws UnknownProjectionError
   */
  processors(names?: readonly string[]): EventProcessor[] {
    this.assertOpen();
    return this.definitions(names).map((definition) => new ProjectionProcessor(definition, this.batchStorage));
  }

  private checkpointStatement(sql: string): Database.Statement {
    let statement = this.checkpointStatements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.checkpointStatements.set(sql, statement);
    }
    return statement;
  }

  /** Opens (creating if needed) the read-model database and the live tables of every projection. */
  static open(options: ProjectionStoreOptions): ProjectionStore {
    return new ProjectionStore(options);
  }

  /** The connection, for the query service of this library. Do not write through it. */
  get database(): Database.Database {
    return this.db;
  }

  /** The projections this store holds. */
  get projections(): readonly ProjectionDefinition[] {
    return [...this.byName.values()];
  }

  /**
   * The named projections' definitions.
   * @throws UnknownProjectionError
   */
  definitions(names?: readonly string[]): ProjectionDefinition[] {
    if (names === undefined) return [...this.byName.values()];
    return names.map((name) => {
      const definition = this.byName.get(name as ProjectionName);
      if (definition === undefined) throw new UnknownProjectionError(name);
      return definition;
    });
  }

  /** The checkpoints of a slot (every projection and source known so far). */
  checkpoints(slot: TableSlot = Slot.LIVE): Checkpoint[] {
    const rows = this.db.prepare(`SELECT * FROM ${checkpointTable(slot)} ORDER BY projection, source`).all() as CheckpointRecord[];
    return rows.map(toCheckpoint);
  }

  /** The checkpoint of one projection in one source, or undefined if it never processed anything. */
  checkpoint(projection: ProjectionName, source: string, slot: TableSlot = Slot.LIVE): Checkpoint | undefined {
    const row = this.checkpointStatement(`SELECT * FROM ${checkpointTable(slot)} WHERE name = ?`).get(checkpointName(projection, source)) as
      | CheckpointRecord
      | undefined;
    return row === undefined ? undefined : toCheckpoint(row);
  }

  /**
   * The identity of the event store (`EventStore.storeIdentity().id`) each
   * source was when the slot's rows were made, by source name. A source
   * missing has none recorded (a new file, or one made by a version before
   * identities were recorded).
   */
  sourceIdentities(slot: TableSlot = Slot.LIVE): ReadonlyMap<string, string> {
    const rows = this.db.prepare(`SELECT source, store_id FROM ${sourcesTable(slot)} ORDER BY source`).all() as Array<{ source: string; store_id: string }>;
    return new Map(rows.map((r) => [r.source, r.store_id]));
  }

  /**
   * Records the identity of the store a source is, for the slot's rows. Only
   * for a source whose rows were made from that store: `checkReadModelSources`
   * (a new file, or an older one whose checkpoints fit the store) and the
   * rebuild (its rows) call it.
   */
  recordSourceIdentity(source: string, storeId: string, slot: TableSlot = Slot.LIVE): void {
    this.assertOpen();
    new SourceIdentityTable(this.db, sourcesTable(slot)).record(source, storeId, this.now());
  }

  /**
   * The last revision of a stream that a projection applied (its guard row in
   * the live tables), or undefined if it applied none.
   */
  appliedRevision(projection: ProjectionName, streamName: string): number | undefined {
    const definition = this.definitions([projection])[0] as ProjectionDefinition;
    const guard = guardTableOf(definition);
    const row = this.db.prepare(`SELECT revision FROM ${physicalName(guard as unknown as TableSpec<Row>, Slot.LIVE)} WHERE stream_name = ?`).get(streamName) as
      | { revision: number }
      | undefined;
    return row?.revision;
  }

  /**
   * Applies a batch of events to some projections and moves their checkpoints,
   * all in ONE transaction: after a crash, either the rows and the checkpoint
   * both include the batch or neither does. An event at or before a
   * projection's checkpoint is skipped for it; a stream revision already
   * applied is skipped too (duplicate delivery). A one-off application (tools,
   * tests, events that are not read from a store); a store is followed by a
   * `ProcessorRunner` fed the {@link processors} (`ProjectionRunner`).
   */
  applyBatch(input: BatchInput): BatchOutcome {
    this.assertOpen();
    return this.db.transaction((): BatchOutcome => {
      const batch = PendingBatch.begin(this.batchStorage, input);
      if (!(batch instanceof PendingBatch)) return batch;
      batch.add(input.events);
      return batch.commit();
    }).immediate();
  }

  /**
   * Starts a batch of a rebuild ({@link TableSlot.REBUILD}): its events are
   * applied in memory as they are added, in as many pulls as the caller
   * likes, and written with the rebuild checkpoints in one transaction by
   * {@link RebuildBatch.commit}. Only the rebuild writes these tables, so
   * nothing is locked until the commit; `written` (where the rebuild wrote
   * each row so far) finds rows in its unindexed tables by rowid, and spares
   * the reads of rows that cannot exist yet.
   */
  beginRebuildBatch(input: Omit<PendingBatchInput, 'slot'>, written: WrittenKeys): RebuildBatch | Extract<BatchOutcome, { kind: 'checkpointMoved' }> {
    this.assertOpen();
    return PendingBatch.begin(this.batchStorage, { ...input, slot: Slot.REBUILD }, written);
  }

  /**
   * Creates empty `<table>__rebuild` tables for the projections (dropping any
   * left by an earlier, unfinished rebuild) and their rebuild checkpoints, one
   * per source, at the start, and forgets the source identities an unfinished
   * rebuild recorded. The live tables are not touched. The tables get their
   * indexes, their key's included, later ({@link indexRebuild}): rows are
   * appended meanwhile, and an index built afterwards takes one sort instead
   * of a random insert per row. The page cache is small until the swap or
   * the discard.
   */
  prepareRebuild(projections: readonly ProjectionDefinition[], sources: readonly string[]): void {
    this.assertOpen();
    this.db.transaction(() => {
      this.db.exec(`DELETE FROM ${sourcesTable(Slot.REBUILD)}`);
      this.nextGeneration();
      for (const projection of projections) {
        for (const table of allTablesOf(projection)) {
          this.db.exec(`DROP TABLE IF EXISTS ${physicalName(table, Slot.REBUILD)}`);
          this.db.exec(createTableSql(table, Slot.REBUILD));
        }
        this.db.prepare(`DELETE FROM ${checkpointTable(Slot.REBUILD)} WHERE projection = ?`).run(projection.name);
        const insert = this.db.prepare(
          `INSERT INTO ${checkpointTable(Slot.REBUILD)} (name, projection, source, position, events_applied, updated_at) VALUES (?, ?, ?, NULL, 0, ?)`,
        );
        for (const source of sources) insert.run(checkpointName(projection.name, source), projection.name, source, this.now());
      }
    }).immediate();
    this.statements.clear();
    // The rebuild appends to its tables and rereads only recent rows: a small page cache while it runs keeps a large
    // rebuild's memory down (the live tables' cache comes back with the swap or the discard).
    this.cacheBeforeRebuild ??= this.db.pragma('cache_size', { simple: true }) as number;
    this.db.pragma(`cache_size = ${REBUILD_CACHE_SIZE}`);
  }

  private restoreCache(): void {
    if (this.cacheBeforeRebuild === null) return;
    this.db.pragma(`cache_size = ${this.cacheBeforeRebuild}`);
    this.cacheBeforeRebuild = null;
  }

  /**
   * Creates the indexes of the projections' `<table>__rebuild` tables (the
   * key's unique index, the secondary ones; those missing: idempotent), in one transaction. The rebuild calls
   * it once the history is replayed, before catching up; {@link swap} calls it
   * too, so that no table is swapped in without its indexes.
   */
  indexRebuild(projections: readonly ProjectionDefinition[]): void {
    this.assertOpen();
    // SQLite's sorter may take as much memory as the page cache allows, on top of the cache: a small cache while
    // sorting keeps a large rebuild's peak memory where the replay left it.
    const cacheSize = this.db.pragma('cache_size', { simple: true }) as number;
    this.db.pragma(`cache_size = ${INDEXING_CACHE_SIZE}`);
    try {
      this.db.transaction(() => this.createRebuildIndexes(projections)).immediate();
    } finally {
      this.db.pragma(`cache_size = ${cacheSize}`);
    }
  }

  private createRebuildIndexes(projections: readonly ProjectionDefinition[]): void {
    const generation = this.currentGeneration();
    for (const projection of projections) {
      for (const table of allTablesOf(projection)) for (const sql of createIndexSql(table, Slot.REBUILD, generation)) this.db.exec(sql);
    }
  }

  /**
   * Swaps the rebuilt tables in, in ONE transaction: drop each live table,
   * rename its `__rebuild` twin to its name, and replace the projection's live
   * checkpoints by the rebuild's. When every projection was rebuilt, the source
   * identities the rebuild recorded replace the live ones (the read models now
   * follow the stores they were rebuilt from). A live runner whose cursor is
   * past a new checkpoint notices it moved back and reads again from it; past
   * a checkpoint ahead of it, it skips the events the rebuild applied. `record`, when given, is
   * stored in the same transaction ({@link rebuildHistory}).
   */
  swap(projections: readonly ProjectionDefinition[], record?: RebuildRecord): void {
    this.assertOpen();
    this.db.transaction(() => {
      this.createRebuildIndexes(projections);
      if (record !== undefined) this.insertRebuildRecord(record);
      for (const projection of projections) {
        for (const table of allTablesOf(projection)) {
          this.db.exec(`DROP TABLE IF EXISTS ${physicalName(table, Slot.LIVE)}`);
          this.db.exec(`ALTER TABLE ${physicalName(table, Slot.REBUILD)} RENAME TO ${physicalName(table, Slot.LIVE)}`);
        }
        this.db.prepare(`DELETE FROM ${checkpointTable(Slot.LIVE)} WHERE projection = ?`).run(projection.name);
        this.db
          .prepare(`INSERT INTO ${checkpointTable(Slot.LIVE)} SELECT * FROM ${checkpointTable(Slot.REBUILD)} WHERE projection = ?`)
          .run(projection.name);
        this.db.prepare(`DELETE FROM ${checkpointTable(Slot.REBUILD)} WHERE projection = ?`).run(projection.name);
      }
      // The stores the rebuild read become the ones the read models follow only when every projection was rebuilt from them.
      if (this.coversEveryProjection(projections)) {
        this.db.exec(`DELETE FROM ${sourcesTable(Slot.LIVE)}`);
        this.db.exec(`INSERT INTO ${sourcesTable(Slot.LIVE)} SELECT * FROM ${sourcesTable(Slot.REBUILD)}`);
      }
      this.db.exec(`DELETE FROM ${sourcesTable(Slot.REBUILD)}`);
    }).immediate();
    this.statements.clear();
    this.restoreCache();
  }

  /** Whether `projections` names every projection of this store. */
  coversEveryProjection(projections: readonly ProjectionDefinition[]): boolean {
    const names = new Set(projections.map((p) => p.name));
    return [...this.byName.keys()].every((name) => names.has(name));
  }

  /**
   * The rebuilds swapped into this file, newest first (at most `limit`; the
   * file keeps the last {@link REBUILD_RECORDS_KEPT}), whichever process ran
   * them.
   */
  rebuildHistory(limit = 10): RebuildRecord[] {
    this.assertOpen();
    if (!Number.isSafeInteger(limit) || limit < 1) throw new InvalidProjectionOptionError('limit', 'expected an integer >= 1');
    const rows = this.db
      .prepare(
        `SELECT projections, requested_by, started_at, finished_at, events_done, events_applied, elapsed_ms FROM ${REBUILDS_TABLE} ORDER BY id DESC LIMIT ?`,
      )
      .all(limit) as RebuildRecordRow[];
    return rows.map((row) => ({
      projections: JSON.parse(row.projections) as ProjectionName[],
      requestedBy: row.requested_by,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      eventsDone: row.events_done,
      eventsApplied: row.events_applied,
      elapsedMs: row.elapsed_ms,
    }));
  }

  private insertRebuildRecord(record: RebuildRecord): void {
    this.db
      .prepare(
        `INSERT INTO ${REBUILDS_TABLE} (projections, requested_by, started_at, finished_at, events_done, events_applied, elapsed_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(JSON.stringify(record.projections), record.requestedBy, record.startedAt, record.finishedAt, record.eventsDone, record.eventsApplied, record.elapsedMs);
    this.db.prepare(`DELETE FROM ${REBUILDS_TABLE} WHERE id <= (SELECT MAX(id) FROM ${REBUILDS_TABLE}) - ?`).run(REBUILD_RECORDS_KEPT);
  }

  /** Drops the `__rebuild` tables and checkpoints of the projections (an abandoned rebuild). */
  discardRebuild(projections: readonly ProjectionDefinition[]): void {
    if (this.closed) return;
    this.db.transaction(() => {
      for (const projection of projections) {
        for (const table of allTablesOf(projection)) this.db.exec(`DROP TABLE IF EXISTS ${physicalName(table, Slot.REBUILD)}`);
        this.db.prepare(`DELETE FROM ${checkpointTable(Slot.REBUILD)} WHERE projection = ?`).run(projection.name);
      }
      this.db.exec(`DELETE FROM ${sourcesTable(Slot.REBUILD)}`);
    }).immediate();
    this.statements.clear();
    this.restoreCache();
  }

  /** Whether `__rebuild` tables of the projection exist (a rebuild is running or was abandoned). */
  hasRebuildTables(projection: ProjectionName): boolean {
    const definition = this.definitions([projection])[0] as ProjectionDefinition;
    const first = allTablesOf(definition)[0] as TableSpec<Row>;
    return this.tableExists(physicalName(first, Slot.REBUILD));
  }

  /**
   * Every row of every live table of the projections, each table's rows in key
   * order (for comparisons in tests and audits; not for large models).
   */
  dumpTables(projections: readonly ProjectionDefinition[] = this.projections, slot: TableSlot = Slot.LIVE): Record<string, unknown[]> {
    const dump: Record<string, unknown[]> = {};
    for (const projection of projections) {
      for (const table of allTablesOf(projection)) {
        dump[table.name] = this.db.prepare(`SELECT * FROM ${physicalName(table, slot)} ORDER BY ${table.key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`).all();
      }
    }
    return dump;
  }

  /** Closes the database. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  /** Whether {@link close} was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  private migrate(): void {
    this.db.transaction(() => {
      this.db.exec(`CREATE TABLE IF NOT EXISTS projection_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)`);
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${checkpointTable(Slot.LIVE)} (${CHECKPOINT_COLUMNS})`);
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${checkpointTable(Slot.REBUILD)} (${CHECKPOINT_COLUMNS})`);
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${sourcesTable(Slot.LIVE)} (${SOURCE_COLUMNS})`);
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${sourcesTable(Slot.REBUILD)} (${SOURCE_COLUMNS})`);
      this.db.exec(
        `CREATE TABLE IF NOT EXISTS ${REBUILDS_TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, projections TEXT NOT NULL, requested_by TEXT, ` +
          'started_at INTEGER NOT NULL, finished_at INTEGER NOT NULL, events_done INTEGER NOT NULL, events_applied INTEGER NOT NULL, elapsed_ms INTEGER NOT NULL)',
      );
      for (const table of this.tables.values()) {
        if (this.tableExists(physicalName(table, Slot.LIVE))) {
          // A file written by an earlier version: add the (nullable) columns it lacks.
          for (const sql of addMissingColumnsSql(table, Slot.LIVE, this.columnsOf(physicalName(table, Slot.LIVE)))) this.db.exec(sql);
          continue;
        }
        this.db.exec(createTableSql(table, Slot.LIVE));
        for (const sql of createIndexSql(table, Slot.LIVE, 0)) this.db.exec(sql);
      }
    }).immediate();
  }

  /** The generation of the rebuild tables (0 before the first rebuild). */
  private currentGeneration(): number {
    const row = this.db.prepare(`SELECT value FROM projection_meta WHERE key = 'generation'`).get() as { value: string } | undefined;
    return Number(row?.value ?? '0');
  }

  private nextGeneration(): number {
    const generation = this.currentGeneration() + 1;
    this.db.prepare(`INSERT OR REPLACE INTO projection_meta (key, value) VALUES ('generation', ?)`).run(String(generation));
    return generation;
  }

  private columnsOf(table: string): Set<string> {
    return new Set((this.db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>).map((c) => c.name));
  }

  private tableExists(name: string): boolean {
    return this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
  }

  private assertOpen(): void {
    if (this.closed) throw new ProjectionStoreClosedError(this.path);
  }
}

function sourcesTable(slot: TableSlot): string {
  return slot === Slot.LIVE ? 'projection_sources' : 'projection_sources__rebuild';
}

/** The page cache while a rebuild replays: 16 MiB (negative: KiB). */
const REBUILD_CACHE_SIZE = -16384;

/** The page cache while a rebuild's indexes are built: 8 MiB (negative: KiB). */
const INDEXING_CACHE_SIZE = -8192;

/** The rebuilds swapped in ({@link ProjectionStore.rebuildHistory}). */
const REBUILDS_TABLE = 'projection_rebuilds';

interface RebuildRecordRow {
  readonly projections: string;
  readonly requested_by: string | null;
  readonly started_at: number;
  readonly finished_at: number;
  readonly events_done: number;
  readonly events_applied: number;
  readonly elapsed_ms: number;
}

function checkpointTable(slot: TableSlot): string {
  return slot === Slot.LIVE ? 'projection_checkpoints' : 'projection_checkpoints__rebuild';
}

function toCheckpoint(row: CheckpointRecord): Checkpoint {
  return {
    projection: row.projection as ProjectionName,
    source: row.source,
    position: row.position === null ? null : parsePosition(row.position),
    eventsApplied: row.events_applied,
    updatedAt: row.updated_at,
  };
}
