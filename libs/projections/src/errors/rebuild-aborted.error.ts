import { ProjectionError, ProjectionErrorCode } from './projection-error';

/** The rebuild's signal was aborted before the swap: the live tables are untouched, the partial tables dropped. */
export class RebuildAbortedError extends ProjectionError {
  readonly code = ProjectionErrorCode.REBUILD_ABORTED;

  constructor(readonly projections: readonly string[]) {
    super(`The rebuild of ${projections.join(', ')} was aborted before the swap`);
  }
}
