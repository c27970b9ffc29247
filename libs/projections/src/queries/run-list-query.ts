import type { RunStatus, TerminationReason } from '@agent-ledger/domain';
import type { RunStatusRow } from '../run-status/run-status-row';

/** Filters and page of {@link ProjectionQueries.listRuns}. Runs come newest first (by `requestedAt`, then run id). */
export interface ListRunsQuery {
  readonly status?: RunStatus;
  readonly reason?: TerminationReason;
  readonly agent?: string;
  /** Runs requested at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Runs requested before this time (ms since the epoch). */
  readonly until?: number;
  /**
   * Most runs in the page, 1 to 1000.
   * @default 50
   */
  readonly limit?: number;
  /** The `nextCursor` of the previous page. @default the first page */
  readonly cursor?: string;
}

/** A page of runs. */
export interface RunPage {
  readonly runs: readonly RunStatusRow[];
  /** Pass it as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}
