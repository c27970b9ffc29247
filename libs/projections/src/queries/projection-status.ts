import type { Position } from '@agent-ledger/event-store';
import type { ProjectionName } from '../core/projection-name';

/** The state of one projection in one source. */
export interface ProjectionStatusEntry {
  readonly projection: ProjectionName;
  readonly source: string;
  /** The last processed position in the source; null if nothing yet. */
  readonly position: Position | null;
  readonly eventsApplied: number;
  /** When the checkpoint was last written (wall clock); null if never. */
  readonly updatedAt: number | null;
  /** The position of the source's last `run` / `audit` event; null when it has none or when the source is not known here. */
  readonly headPosition: Position | null;
  /** Whether the checkpoint is at the head (lag 0). Null when the head is unknown. */
  readonly caughtUp: boolean | null;
  /** Whether `__rebuild` tables of the projection exist (a rebuild runs, or was abandoned by a crash). */
  readonly rebuilding: boolean;
}
