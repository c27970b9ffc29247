import { ProjectionError, ProjectionErrorCode } from './projection-error';

/** A projection name that this library does not define. */
export class UnknownProjectionError extends ProjectionError {
  readonly code = ProjectionErrorCode.UNKNOWN_PROJECTION;

  constructor(readonly projection: string) {
    super(`Unknown projection "${projection}"`);
  }
}
