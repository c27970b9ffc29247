import type { ProjectionName } from '../core/projection-name';

/** Where a rebuild is. */
export const RebuildPhase = {
  /** Fresh `__rebuild` tables were created; nothing replayed yet. */
  STARTED: 'started',
  /** Replaying the history of one source into the fresh tables. */
  REPLAYING: 'replaying',
  /** The history was replayed; reading what was appended meanwhile, just before the swap. */
  CATCHING_UP: 'catchingUp',
  /** The rebuilt tables replaced the live ones (the last record). */
  SWAPPED: 'swapped',
} as const;

/** One of the {@link RebuildPhase} values. */
export type RebuildPhase = (typeof RebuildPhase)[keyof typeof RebuildPhase];

/** A progress record of a rebuild: what a progress bar shows. */
export interface RebuildProgress {
  readonly phase: RebuildPhase;
  readonly projections: readonly ProjectionName[];
  /** The source being replayed; null at the start and at the swap. */
  readonly source: string | null;
  /** Events read from the sources so far. */
  readonly eventsDone: number;
  /** Events applied, summed over the projections rebuilt. */
  readonly eventsApplied: number;
  /**
   * The estimated fraction done, 0 to 1: the position reached over the head
   * position of each source when the rebuild started (exact for the embedded
   * store, whose positions are sequence numbers; proportional to the log's
   * bytes for EventStoreDB). Null when the sources are empty.
   */
  readonly fractionDone: number | null;
  /** `eventsDone / fractionDone`: the estimated number of events to replay in all. */
  readonly eventsTotalEstimate: number | null;
  /** Events read per second since the start. */
  readonly eventsPerSecond: number;
  readonly elapsedMs: number;
  /** Estimated time left, from the fraction done and the elapsed time; null while unknown. */
  readonly etaMs: number | null;
}

/** What a finished rebuild did. */
export interface RebuildResult {
  readonly projections: readonly ProjectionName[];
  readonly eventsDone: number;
  readonly eventsApplied: number;
  readonly elapsedMs: number;
  readonly eventsPerSecond: number;
}
