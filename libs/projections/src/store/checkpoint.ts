import type { Position } from '@agent-ledger/event-store';
import type { ProjectionName } from '../core/projection-name';

/**
 * How far a projection got in one source (row `<projection>@<source>` of
 * `projection_checkpoints`): the position of the last event of that source's
 * `$all` it processed, committed in the same transaction as the rows.
 */
export interface Checkpoint {
  readonly projection: ProjectionName;
  /** The name of the event store (source) the position belongs to. */
  readonly source: string;
  /** The last processed position (exclusive start of the next subscription); null before the first event. */
  readonly position: Position | null;
  /** Events applied from this source (duplicates and unknown types not counted). */
  readonly eventsApplied: number;
  /** When the row was last written (wall clock, ms since the epoch). */
  readonly updatedAt: number;
}

/** The checkpoint row's name: `<projection>@<source>`. */
export function checkpointName(projection: ProjectionName, source: string): string {
  return `${projection}@${source}`;
}
