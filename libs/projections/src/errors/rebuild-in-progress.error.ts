import { ProjectionError, ProjectionErrorCode } from './projection-error';

/** A rebuild was requested while another one runs in this process. */
export class RebuildInProgressError extends ProjectionError {
  readonly code = ProjectionErrorCode.REBUILD_IN_PROGRESS;

  constructor(readonly running: readonly string[]) {
    super(`A rebuild of ${running.join(', ')} is already running`);
  }
}
