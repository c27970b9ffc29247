/** The SQL type of a read-model column. Booleans are stored as 0 / 1. */
export const ColumnType = {
  TEXT: 'text',
  INTEGER: 'integer',
  BOOLEAN: 'boolean',
} as const;

/** One of the {@link ColumnType} values. */
export type ColumnType = (typeof ColumnType)[keyof typeof ColumnType];

/** A value a read-model row may hold. */
export type RowValue = string | number | boolean | null;

/** A read-model row: named fields (camelCase in code, snake_case in SQL). */
export type Row = { readonly [field: string]: RowValue };

/**
 * A read-model table: its base name (the live table; a rebuild builds
 * `<name>__rebuild`), its single-column primary key and its columns. Every
 * table of every projection is described this way, so that one adapter (SQL)
 * and one test double (in memory) serve them all.
 */
export interface TableSpec<R extends Row = Row> {
  /** The live table's name (snake_case). */
  readonly name: string;
  /** The field holding the primary key (a string). */
  readonly key: keyof R & string;
  /** Every field and its type, in column order. */
  readonly columns: { readonly [F in keyof R & string]-?: ColumnType };
  /** Secondary indexes, each a list of fields. @default none */
  readonly indexes?: ReadonlyArray<ReadonlyArray<keyof R & string>>;
}

/** The SQL column name of a field: `runId` -> `run_id`. */
export function columnName(field: string): string {
  let name = COLUMN_NAMES.get(field);
  if (name === undefined) {
    name = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    COLUMN_NAMES.set(field, name);
  }
  return name;
}

/** The column names computed so far (fields are a fixed, small set: every row of every batch maps them). */
const COLUMN_NAMES = new Map<string, string>();
