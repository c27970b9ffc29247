import type { EventFilter, EventProcessor, RecordedEvent } from '@agent-ledger/event-store';
import { CrashPoint, crashPointSync } from '@agent-ledger/crash-points';
import type { ProjectionDefinition } from '../core/projection-definition';
import { allTablesOf } from '../core/projection-definition';
import { PROJECTED_EVENTS_FILTER } from '../runner/projection-source';
import type { BatchStorage } from './pending-batch';
import { project } from './project-events';
import { physicalName, TableSlot } from './sql-table';
import { SqliteRowStore } from './sqlite-row-store';

/**
 * A projection as an event processor of a `ProcessorRunner`, kept in the read
 * models' live tables (the store's `stateStore`): its checkpoint is the row
 * `<projection>@<source>` of `projection_checkpoints`. A batch's events are
 * applied to its rows in memory (each row read from SQLite once), then the
 * changed rows are written, inside the runner's transaction of the read
 * models' file, which moves the checkpoint with them.
 */
export class ProjectionProcessor implements EventProcessor {
  readonly name: string;
  readonly filter: EventFilter = PROJECTED_EVENTS_FILTER;

  constructor(
    private readonly definition: ProjectionDefinition,
    private readonly storage: BatchStorage,
  ) {
    this.name = definition.name;
  }

  /** Applies the events to the projection's live rows; returns how many it applied (a stream revision already applied is skipped). */
  apply(events: readonly RecordedEvent[]): number {
    const rows = new SqliteRowStore(this.storage.db, TableSlot.LIVE, this.storage.statements);
    const applied = project(this.definition, events, rows);
    rows.flush(this.storage.tables);
    // The rows are written, the checkpoint is not, and nothing is committed: a crash here must lose the whole batch.
    crashPointSync(CrashPoint.DURING_PROJECTION_UPDATE);
    return applied;
  }

  /** Empties the projection's live tables (the runner then feeds it from the start of the store). */
  reset(): void {
    for (const table of allTablesOf(this.definition)) this.storage.db.exec(`DELETE FROM ${physicalName(table, TableSlot.LIVE)}`);
  }
}
