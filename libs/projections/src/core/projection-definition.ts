import type { ProjectedEvent } from './projected-event';
import type { ProjectionName } from './projection-name';
import type { RowStore } from './row-store';
import type { Row, TableSpec } from './table-spec';
import { ColumnType } from './table-spec';

/**
 * A read model: its tables and the pure mapping from events to row changes.
 *
 * `apply` must be deterministic and depend only on the event and the rows it
 * reads: no clock, no randomness, no I/O, no side effect. Events of one stream
 * arrive in revision order; events of different stores (a separate audit
 * store) arrive in any interleaving, so rows fed by both must end the same
 * whatever the interleaving (see docs/projections.md, "order independence").
 */
export interface ProjectionDefinition {
  readonly name: ProjectionName;
  /** The tables `apply` writes (the stream-revision guard table is added by {@link guardTableOf}). */
  readonly tables: ReadonlyArray<TableSpec<Row>>;
  /** Applies one event: reads and writes rows. Never called twice for the same stream revision. */
  apply(event: ProjectedEvent, rows: RowStore): void;
  /**
   * The event types `apply` does something with, when it ignores the others:
   * those are then skipped without reading or writing any row (not even the
   * stream's guard row). @default every type
   */
  readonly eventTypes?: ReadonlySet<ProjectedEvent['type']>;
}

/** The guard row of a projection: the last revision of a stream it applied. */
export type StreamRevisionRow = {
  readonly streamName: string;
  readonly revision: number;
};

/** The per-projection table of last applied revisions per stream (`<projection>_streams`). */
export function guardTableOf(definition: Pick<ProjectionDefinition, 'name'>): TableSpec<StreamRevisionRow> {
  let table = guardTables.get(definition.name);
  if (table === undefined) {
    table = {
      name: `${definition.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_streams`,
      key: 'streamName',
      columns: { streamName: ColumnType.TEXT, revision: ColumnType.INTEGER },
    };
    guardTables.set(definition.name, table);
  }
  return table;
}

const guardTables = new Map<string, TableSpec<StreamRevisionRow>>();

/** Every table of a projection, its guard table last. */
export function allTablesOf(definition: ProjectionDefinition): ReadonlyArray<TableSpec<Row>> {
  return [...definition.tables, guardTableOf(definition) as unknown as TableSpec<Row>];
}

/**
 * Applies `event` to a projection unless its stream revision was already
 * applied (duplicate delivery): the guard row of the stream holds the last
 * applied revision, written in the same transaction as the rows. Returns
 * whether the event was applied.
 */
export function applyOnce(definition: ProjectionDefinition, event: ProjectedEvent, rows: RowStore): boolean {
  // An ignored type needs no guard: the stream's next event it applies still has a higher revision than the guard's.
  if (definition.eventTypes !== undefined && !definition.eventTypes.has(event.type)) return false;
  const guard = guardTableOf(definition);
  const last = rows.get(guard, event.streamName);
  if (last !== undefined && last.revision >= event.revision) return false;
  definition.apply(event, rows);
  rows.put(guard, { streamName: event.streamName, revision: event.revision });
  return true;
}
