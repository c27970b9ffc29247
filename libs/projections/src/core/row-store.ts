import type { Row, TableSpec } from './table-spec';

/**
 * What a projection's `apply` may do with its tables: read a row by key and
 * write a whole row (an upsert). Nothing else: no deletes, no scans, no side
 * effects, so that applying an event is a pure function of the rows it reads.
 * Implemented over SQLite (in a transaction) and in memory (for unit specs).
 */
export interface RowStore {
  /** The row of `table` whose key is `key`, or undefined. */
  get<R extends Row>(table: TableSpec<R>, key: string): R | undefined;
  /** Inserts or replaces the row with the same key. */
  put<R extends Row>(table: TableSpec<R>, row: R): void;
}
