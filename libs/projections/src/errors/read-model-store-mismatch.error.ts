import { ProjectionError, ProjectionErrorCode } from './projection-error';

/** One source whose store is not the one the read models were made from. */
export interface ReadModelSourceMismatch {
  /** The source's name (`runs`, `audit`). */
  readonly source: string;
  /**
   * The identity of the store the read models recorded for this source, or
   * null for a file made before identities were recorded whose checkpoints do
   * not fit the store (see `checkReadModelSources`).
   */
  readonly recordedStoreId: string | null;
  /** The identity of the store the source is now. */
  readonly currentStoreId: string;
}

/**
 * The read models were made from other event stores than the sources they are
 * given (another `EVENT_STORE_PATH` with the same data folder): their rows and
 * checkpoints belong to the other store, so they are refused rather than shown.
 * Rebuild them from the sources (`ProjectionRebuilder`, every projection), or
 * point the sources back at the stores they were made from.
 */
export class ReadModelStoreMismatchError extends ProjectionError {
  readonly code = ProjectionErrorCode.STORE_MISMATCH;

  constructor(
    /** The read models' database file. */
    readonly path: string,
    readonly mismatches: readonly ReadModelSourceMismatch[],
    detail = 'rebuild every projection from the sources',
  ) {
    super(
      `The read models in ${path} were made from another event store than ${mismatches
        .map((m) => `source "${m.source}" (store ${m.currentStoreId}; the read models ${m.recordedStoreId === null ? 'recorded no identity and their checkpoints do not fit it' : `recorded store ${m.recordedStoreId}`})`)
        .join(' and ')}: ${detail}`,
    );
  }
}
