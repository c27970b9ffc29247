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
}

/** Prepared statements of one physical table. */
interface TableStatements {
  readonly select: Database.Statement;
  readonly upsert: Database.Statement;
}

/**
 * A {@link RowStore} over SQLite for one batch: reads go to SQLite once per
 * row, then to a cache; writes stay in the cache until {@link flush}, which
 * the caller runs inside the transaction that commits the batch. Memory is
 * bounded by the rows a batch touches.
 *
 * A rebuild's batch, whose tables only it writes, passes the keys it wrote
 * ({@link WrittenKeys}): a key never written is known absent without SQL.
 */
export class SqliteRowStore implements RowStore {
  private readonly cache = new Map<string, Map<string, CachedRow>>();

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
    if (this.written !== undefined && !this.written.mightHave(table.name, key)) {
      rows.set(key, { row: undefined, dirty: false });
      return undefined;
    }
    const record = this.statementsOf(table).select.get(key) as Record<string, unknown> | undefined;
    const row = record === undefined ? undefined : fromSqlRecord(table, record);
    rows.set(key, { row, dirty: false });
    return row;
  }

  put<R extends Row>(table: TableSpec<R>, row: R): void {
    const key = row[table.key];
    if (typeof key !== 'string') throw new TypeError(`Row of ${table.name} without a string key ${table.key}`);
    const rows = this.rowsOf(table);
    const cached = rows.get(key);
    if (cached === undefined) {
      rows.set(key, { row, dirty: true });
    } else {
      cached.row = row;
      cached.dirty = true;
    }
  }

  /** Writes every changed row. Call inside the transaction, before its commit. */
  flush(tables: ReadonlyMap<string, TableSpec<Row>>): void {
    for (const [name, rows] of this.cache) {
      const table = tables.get(name);
      if (table === undefined) throw new Error(`Unknown table ${name}`);
      const upsert = this.statementsOf(table).upsert;
      for (const [key, cached] of rows) {
        if (cached.dirty && cached.row !== undefined) {
          upsert.run(toSqlValues(table, cached.row));
          // Recorded once per row written, not per put: a key put in this batch is read from the cache until the flush.
          this.written?.add(name, key);
        }
      }
    }
    this.cache.clear();
  }

  private rowsOf(table: TableSpec<Row>): Map<string, CachedRow> {
    let rows = this.cache.get(table.name);
    if (rows === undefined) {
      rows = new Map();
      this.cache.set(table.name, rows);
    }
    return rows;
  }

  private statementsOf(table: TableSpec<Row>): TableStatements {
    const name = physicalName(table, this.slot);
    let statements = this.statements.get(name);
    if (statements === undefined) {
      const columns = Object.keys(table.columns).map(columnName);
      statements = {
        select: this.db.prepare(`SELECT * FROM ${name} WHERE ${columnName(table.key)} = ?`),
        upsert: this.db.prepare(`INSERT OR REPLACE INTO ${name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`),
      };
      this.statements.set(name, statements);
    }
    return statements;
  }
}
