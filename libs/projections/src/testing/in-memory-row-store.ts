import type { ProjectionDefinition } from '../core/projection-definition';
import { applyOnce } from '../core/projection-definition';
import type { ProjectedEvent } from '../core/projected-event';
import type { RowStore } from '../core/row-store';
import type { Row, TableSpec } from '../core/table-spec';

/** A {@link RowStore} in memory: the test double of the SQL adapter, for unit specs of the pure mappings. */
export class InMemoryRowStore implements RowStore {
  private readonly tables = new Map<string, Map<string, Row>>();

  get<R extends Row>(table: TableSpec<R>, key: string): R | undefined {
    return this.tables.get(table.name)?.get(key) as R | undefined;
  }

  put<R extends Row>(table: TableSpec<R>, row: R): void {
    let rows = this.tables.get(table.name);
    if (rows === undefined) {
      rows = new Map();
      this.tables.set(table.name, rows);
    }
    rows.set(row[table.key] as string, row);
  }

  /** The rows of a table, in key order. */
  rows<R extends Row>(table: TableSpec<R>): R[] {
    const rows = this.tables.get(table.name);
    if (rows === undefined) return [];
    return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row as R);
  }

  /** Every table's rows, for whole-model comparisons. */
  snapshot(): Record<string, Row[]> {
    return Object.fromEntries([...this.tables.keys()].sort().map((name) => [name, this.rows({ name } as TableSpec<Row>)]));
  }
}

/** Applies events to projections in memory, once per stream revision, and returns the store. */
export function projectInMemory(definitions: readonly ProjectionDefinition[], events: Iterable<ProjectedEvent>, into = new InMemoryRowStore()): InMemoryRowStore {
  for (const event of events) {
    for (const definition of definitions) applyOnce(definition, event, into);
  }
  return into;
}
