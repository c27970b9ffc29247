import type { ColumnType, Row, RowValue, TableSpec } from '../core/table-spec';
import { columnName } from '../core/table-spec';

/** The suffix of the tables a rebuild builds before the swap. */
export const REBUILD_SUFFIX = '__rebuild';

/** Which table set an operation works on: the live tables, or the ones a rebuild is building. */
export const TableSlot = {
  LIVE: 'live',
  REBUILD: 'rebuild',
} as const;

/** One of the {@link TableSlot} values. */
export type TableSlot = (typeof TableSlot)[keyof typeof TableSlot];

/** The physical name of a table in a slot. */
export function physicalName(table: Pick<TableSpec, 'name'>, slot: TableSlot): string {
  return slot === TableSlot.LIVE ? table.name : `${table.name}${REBUILD_SUFFIX}`;
}

const SQL_TYPES: Record<ColumnType, string> = { text: 'TEXT', integer: 'INTEGER', boolean: 'INTEGER' };

/** The `CREATE TABLE` statement of a table in a slot (its secondary indexes: {@link createIndexSql}). */
export function createTableSql(table: TableSpec<Row>, slot: TableSlot): string {
  const columns = Object.entries(table.columns).map(
    ([field, type]) => `${columnName(field)} ${SQL_TYPES[type as ColumnType]}${field === table.key ? ' PRIMARY KEY NOT NULL' : ''}`,
  );
  return `CREATE TABLE ${physicalName(table, slot)} (${columns.join(', ')}) WITHOUT ROWID`;
}

/**
 * The `CREATE INDEX IF NOT EXISTS` statements of a table's secondary indexes in a slot;
 * index names carry `generation`, so they never collide across rebuilds.
 */
export function createIndexSql(table: TableSpec<Row>, slot: TableSlot, generation: number): string[] {
  return (table.indexes ?? []).map((index) => {
    const cols = index.map(columnName);
    return `CREATE INDEX IF NOT EXISTS ${table.name}_${cols.join('_')}_g${generation} ON ${physicalName(table, slot)} (${cols.join(', ')})`;
  });
}

/**
 * `ALTER TABLE ... ADD COLUMN` statements for the columns of `table` missing
 * from `existing` (a read-model file written before a column was added; the
 * new column is null in its old rows).
 */
export function addMissingColumnsSql(table: TableSpec<Row>, slot: TableSlot, existing: ReadonlySet<string>): string[] {
  return Object.entries(table.columns)
    .filter(([field]) => !existing.has(columnName(field)))
    .map(([field, type]) => `ALTER TABLE ${physicalName(table, slot)} ADD COLUMN ${columnName(field)} ${SQL_TYPES[type as ColumnType]}`);
}

/** A row as SQL parameters, in column order. */
export function toSqlValues(table: TableSpec<Row>, row: Row): Array<string | number | null> {
  return Object.entries(table.columns).map(([field, type]) => {
    const value: RowValue | undefined = row[field];
    if (value === undefined || value === null) return null;
    if (type === 'boolean') return value === true ? 1 : 0;
    return value as string | number;
  });
}

/** A SQL record (snake_case columns) as a row (camelCase fields, booleans restored). */
export function fromSqlRecord<R extends Row>(table: TableSpec<R>, record: Record<string, unknown>): R {
  const row: Record<string, RowValue> = {};
  for (const [field, type] of Object.entries(table.columns)) {
    const value = record[columnName(field)];
    row[field] = value === null || value === undefined ? null : type === 'boolean' ? value === 1 : (value as string | number);
  }
  return row as R;
}
