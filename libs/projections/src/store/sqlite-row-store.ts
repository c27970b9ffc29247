import type Database from 'better-sqlite3';
import type { RowStore } from '../core/row-store';
import type { Row, TableSpec } from '../core/table-spec';
import { columnName } from '../core/table-spec';
import type { TableSlot } from './sql-table';
import { fromSqlRecord, physicalName, toSqlValues } from './sql-table';
import type { WrittenKeys } from './written-keys';

interface CachedRow {
  row: Row | undefined;
  dirty: boolean;
  /** Where the row is in its table (rebuild only): 0 when it has none yet. */
  rowid: number;
}

/** Prepared statements of one physical table (prepared when first needed). */
export interface TableStatements {
  /** The row by key. */
  select?: Database.Statement;
  /** Insert, or update the row with the same key. */
  upsert?: Database.Statement;
  /** The row by rowid (a rebuild's tables). */
  selectAt?: Database.Statement;
  /** Insert a new row (a rebuild's tables). */
  insert?: Database.Statement;
  /** Update the row at a rowid (a rebuild's tables; the rowid is the last parameter). */
  updateAt?: Database.Statement;
}

/**
 * A {@link RowStore} over SQLite for one batch: reads go to SQLite once per
 * row, then to a cache; writes stay in the cache until {@link flush}, which
 * the caller runs inside the transaction that commits the batch. Memory is
 * bounded by the rows a batch touches.
 *
 * A rebuild's batch, whose tables only it writes, passes where it wrote
 * each row ({@link WrittenKeys}): a key never written is known absent
 * without SQL, a row written is read and updated by its rowid, and a new row
 * is appended, so that the tables need no index on their key while the
 * history is replayed. Once that index is {@link WrittenKeys.full}, rows are
 * found by key (the rebuild has indexed the keys by then).
 */
export class SqliteRowStore implements RowStore {
  private readonly cache = new Map<string, Map<string, CachedRow>>();
  /** Set by the last {@link locate}: the record read, so that a get does not read it twice. */
  private located: Record<string, unknown> | undefined = undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly slot: TableSlot,
    private readonly statements: Map<string, TableStatements>,
    private readonly written?: WrittenKeys,
  ) {}

  get<R extends Row>(table: TableSpec<R>, key: string): R | undefined {
    const rows = this.rowsOf(table);
    const cached = rows.get(key);
    if (cached !== undefined) return cached.row as R | undefined;
    const written = this.byRowid();
    if (written !== null) {
      const rowid = this.locate(written, table, key);
      const record = this.located;
      this.located = undefined;
      const row = record === undefined ? undefined : fromSqlRecord(table, record);
      rows.set(key, { row, dirty: false, rowid });
      return row;
    }
    const record = this.statementsOf(table, false).select?.get(key) as Record<string, unknown> | undefined;
    const row = record === undefined ? undefined : fromSqlRecord(table, record);
    rows.set(key, { row, dirty: false, rowid: 0 });
    return row;
  }

  put<R extends Row>(table: TableSpec<R>, row: R): void {
    const key = row[table.key];
    if (typeof key !== 'string') throw new TypeError(`Row of ${table.name} without a string key ${table.key}`);
    const rows = this.rowsOf(table);
    const cached = rows.get(key);
    if (cached === undefined) {
      const written = this.byRowid();
      // A row put without being read first may still exist (an earlier batch wrote it): where it is decides update or insert.
      const rowid = written === null ? 0 : this.locate(written, table, key);
      this.located = undefined;
      rows.set(key, { row, dirty: true, rowid });
    } else {
      cached.row = row;
      cached.dirty = true;
    }
  }

  /** Writes every changed row. Call inside the transaction, before its commit. */
  flush(tables: ReadonlyMap<string, TableSpec<Row>>): void {
    const written = this.byRowid();
    for (const [name, rows] of this.cache) {
      const table = tables.get(name);
      if (table === undefined) throw new Error(`Unknown table ${name}`);
      const statements = this.statementsOf(table, written !== null);
      for (const [key, cached] of rows) {
        if (!cached.dirty || cached.row === undefined) continue;
        const values = toSqlValues(table, cached.row);
        if (written === null) {
          (statements.upsert as Database.Statement).run(values);
        } else if (cached.rowid !== 0) {
          values.push(cached.rowid);
          (statements.updateAt as Database.Statement).run(values);
        } else {
          const rowid = Number((statements.insert as Database.Statement).run(values).lastInsertRowid);
          // Recorded once per row written, not per put: a key put in this batch is read from the cache until the flush.
          this.written?.add(name, key, rowid);
        }
      }
    }
    this.cache.clear();
  }

  /** The rebuild's rowid index, while it is complete; null: find rows by key. */
  private byRowid(): WrittenKeys | null {
    return this.written === undefined || this.written.full ? null : this.written;
  }

  /** The rowid of `key`'s row (0: none), its record left in {@link located}. */
  private locate(written: WrittenKeys, table: TableSpec<Row>, key: string): number {
    this.located = undefined;
    const keyColumn = columnName(table.key);
    return written.find(table.name, key, (rowid) => {
      const record = (this.statementsOf(table, true).selectAt as Database.Statement).get(rowid) as Record<string, unknown> | undefined;
      if (record === undefined || record[keyColumn] !== key) return false;
      this.located = record;
      return true;
    });
  }

  private rowsOf(table: TableSpec<Row>): Map<string, CachedRow> {
    let rows = this.cache.get(table.name);
    if (rows === undefined) {
      rows = new Map();
      this.cache.set(table.name, rows);
    }
    return rows;
  }

  /** The table's statements, by rowid or by key (decided once per flush: the rowid index may fill up during one). */
  private statementsOf(table: TableSpec<Row>, byRowid: boolean): TableStatements {
    const name = physicalName(table, this.slot);
    let statements = this.statements.get(name);
    if (statements === undefined) {
      statements = {};
      this.statements.set(name, statements);
    }
    if (byRowid ? statements.insert === undefined : statements.upsert === undefined) prepare(this.db, table, name, statements, byRowid);
    return statements;
  }
}

/** Prepares the statements a batch needs on a table: by key (`byRowid` false) or by rowid (a rebuild's unindexed tables). */
function prepare(db: Database.Database, table: TableSpec<Row>, name: string, statements: TableStatements, byRowid: boolean): void {
  const columns = Object.keys(table.columns).map(columnName);
  const key = columnName(table.key);
  const placeholders = columns.map(() => '?').join(', ');
  if (byRowid) {
    statements.selectAt = db.prepare(`SELECT * FROM ${name} WHERE rowid = ?`);
    statements.insert = db.prepare(`INSERT INTO ${name} (${columns.join(', ')}) VALUES (${placeholders})`);
    statements.updateAt = db.prepare(`UPDATE ${name} SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE rowid = ?`);
    return;
  }
  const updates = columns.filter((c) => c !== key).map((c) => `${c} = excluded.${c}`);
  statements.select = db.prepare(`SELECT * FROM ${name} WHERE ${key} = ?`);
  // An update in place, not INSERT OR REPLACE: a replaced row of a rowid table would move to the table's end.
  statements.upsert = db.prepare(`INSERT INTO ${name} (${columns.join(', ')}) VALUES (${placeholders}) ON CONFLICT (${key}) DO UPDATE SET ${updates.join(', ')}`);
}
