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

/**
 * The `CREATE TABLE` statement of a table in a slot: a rowid table, so that
 * rows are stored in insertion order. A live table's key is its primary key;
 * a rebuild's table has no index on its key until the history is replayed
 * (rows are appended, and found by rowid meanwhile: `WrittenKeys`), when
 * {@link createIndexSql} adds a unique one.
 */
export function createTableSql(table: TableSpec<Row>, slot: TableSlot): string {
  const key = slot === TableSlot.LIVE ? ' PRIMARY KEY NOT NULL' : ' NOT NULL';
  const columns = Object.entries(table.columns).map(([field, type]) => `${columnName(field)} ${SQL_TYPES[type as ColumnType]}${field === table.key ? key : ''}`);
  return `CREATE TABLE ${physicalName(table, slot)} (${columns.join(', ')})`;
}

/**
 * The `CREATE [UNIQUE] INDEX IF NOT EXISTS` statements of a table's indexes in a slot:
 * in the rebuild slot, the unique index of its key first, then its secondary indexes.
 * Index names carry `generation`, so they never collide across rebuilds.
 */
export function createIndexSql(table: TableSpec<Row>, slot: TableSlot, generation: number): string[] {
  const key = columnName(table.key);
  const unique = slot === TableSlot.REBUILD ? [`CREATE UNIQUE INDEX IF NOT EXISTS ${table.name}_${key}_key_g${generation} ON ${physicalName(table, slot)} (${key})`] : [];
  return [
    ...unique,
    ...(table.indexes ?? []).map((index) => {
      const cols = index.map(columnName);
      return `CREATE INDEX IF NOT EXISTS ${table.name}_${cols.join('_')}_g${generation} ON ${physicalName(table, slot)} (${cols.join(', ')})`;
    }),
  ];
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

/** A table's fields, their SQL column names and types, in column order: computed once per table (rows are converted per event). */
interface ColumnLayout {
  readonly fields: readonly string[];
  readonly columns: readonly string[];
  readonly types: readonly ColumnType[];
}

const layouts = new WeakMap<TableSpec<Row>, ColumnLayout>();

function layoutOf(table: TableSpec<Row>): ColumnLayout {
  let layout = layouts.get(table);
  if (layout === undefined) {
    const entries = Object.entries(table.columns) as Array<[string, ColumnType]>;
    layout = { fields: entries.map(([field]) => field), columns: entries.map(([field]) => columnName(field)), types: entries.map(([, type]) => type) };
    layouts.set(table, layout);
  }
  return layout;
}

/** A row as SQL parameters, in column order. */
export function toSqlValues(table: TableSpec<Row>, row: Row): Array<string | number | null> {
  const { fields, types } = layoutOf(table);
  const values = new Array<string | number | null>(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const value: RowValue | undefined = row[fields[i] as string];
    values[i] = value === undefined || value === null ? null : types[i] === 'boolean' ? (value === true ? 1 : 0) : (value as string | number);
  }
  return values;
}

/** A SQL record (snake_case columns) as a row (camelCase fields, booleans restored). */
export function fromSqlRecord<R extends Row>(table: TableSpec<R>, record: Record<string, unknown>): R {
  const { fields, columns, types } = layoutOf(table as TableSpec<Row>);
  const row: Record<string, RowValue> = {};
  for (let i = 0; i < fields.length; i++) {
    const value = record[columns[i] as string];
    row[fields[i] as string] = value === null || value === undefined ? null : types[i] === 'boolean' ? value === 1 : (value as string | number);
  }
  return row as R;
}
