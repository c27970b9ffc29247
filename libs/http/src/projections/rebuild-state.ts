import type { ProjectionName, RebuildProgress, RebuildResult } from '@agent-ledger/projections';

/** Where the HTTP-requested rebuild of this process stands. */
export const REBUILD_STATES = ['idle', 'running', 'succeeded', 'failed'] as const;
/** One of {@link REBUILD_STATES}. */
export type RebuildStateName = (typeof REBUILD_STATES)[number];

/**
 * The rebuild started by `POST /projections/rebuild` in this process: the
 * one running, or the last one (`idle` until one is requested). Kept in
 * memory: a restart forgets it (and aborts a running one).
 */
export interface RebuildState {
  readonly state: RebuildStateName;
  /** The projections rebuilt (null while idle). */
  readonly projections: readonly ProjectionName[] | null;
  /** Who asked for it, as the label of the caller's principal (`key:<id>`; `development` in the development mode); null while idle. */
  readonly requestedBy: string | null;
  /** When it was asked for, ms since the epoch. */
  readonly startedAt: number | null;
  /** When it succeeded or failed, ms since the epoch; null before. */
  readonly finishedAt: number | null;
  /** The last progress record of the rebuilder (`ProjectionRebuilder.rebuildWithProgress`); null before the first. */
  readonly progress: RebuildProgress | null;
  /** What it did, once succeeded (the rebuilt tables are swapped in). */
  readonly result: RebuildResult | null;
  /** Why it failed (the error's message; the service's log has its stack). */
  readonly error: string | null;
}

/** The state before any rebuild was requested. */
export const IDLE_REBUILD: RebuildState = Object.freeze({
  state: 'idle',
  projections: null,
  requestedBy: null,
  startedAt: null,
  finishedAt: null,
  progress: null,
  result: null,
  error: null,
});
