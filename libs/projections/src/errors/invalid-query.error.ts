import { ProjectionError, ProjectionErrorCode } from './projection-error';

/** A bad query option (a cursor not produced by `listRuns`, a limit out of range...). */
export class InvalidQueryError extends ProjectionError {
  readonly code = ProjectionErrorCode.INVALID_QUERY;

  constructor(
    readonly option: string,
    readonly reason: string,
  ) {
    super(`Invalid query option ${option}: ${reason}`);
  }
}
