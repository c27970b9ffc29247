import type { ProjectionName } from '../core/projection-name';

/**
 * A rebuild that was swapped in, as the read models' file records it (in the
 * swap's transaction): by whichever process ran it, the service (over HTTP)
 * or the CLI, so that every reader of the file sees it.
 */
export interface RebuildRecord {
  readonly projections: readonly ProjectionName[];
  /**
   * Who asked for it: the label of the caller's principal for a rebuild over
   * HTTP (`key:<id>`, `development`), `cli:<user>@<host>` for the CLI's; null
   * when the caller named nobody.
   */
  readonly requestedBy: string | null;
  /** When it started and when its tables were swapped in, ms since the epoch. */
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly eventsDone: number;
  readonly eventsApplied: number;
  readonly elapsedMs: number;
}

/** How many rebuild records the read models' file keeps (the oldest are dropped at each swap). */
export const REBUILD_RECORDS_KEPT = 100;
